/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.h - writers for the findings of `gpumend lint`: plain text, JSON,
 * SARIF 2.1.0 (GitHub code scanning), GitHub Actions workflow commands and
 * GitLab Code Quality.
 */
#ifndef GPUMEND_REPORT_H
#define GPUMEND_REPORT_H

#include <stddef.h>

#include <jansson.h>

#include "buf.h"
#include "report_object.h"


enum report_format {
	REPORT_TEXT, REPORT_JSON, REPORT_SARIF, REPORT_GITHUB,
	REPORT_CODEQUALITY,
};

/*
 * Appends how findings name the object of `item`, then ": ":
 * "KIND NAMESPACE/NAME: " ("KIND NAME: " without a namespace, the name
 * "PREFIX*" for a generateName, "<no name>" when the object has metadata
 * without a name, "KIND: " when it has no metadata at all (a
 * KubeletConfiguration), "<no kind>" without a kind). Appends nothing when
 * the item has no kind and no name (a syntax error, a chart's values, a
 * document that is no object).
 * Returns 0, or -1 when out of memory or past the cap of `out`.
 */
int report_object_label(struct buf *out, const struct report_item *item);

/*
 * Appends the address of the page that explains rule (or check) `id`, the
 * heading of docs/rules.md that carries its name: what SARIF's helpUri
 * and `gpumend rules ID` give. 0, or -1 when out of memory.
 */
int report_rule_uri(struct buf *out, const char *id);

/*
 * Sets *out to the format called `name` ("text", "json", "sarif",
 * "github", "codequality"). Returns 0, or -1 (leaving *out alone) for any
 * other name.
 */
int report_format_parse(const char *name, enum report_format *out);

/*
 * Appends the report of `items[0..n)`, in their order, to `out`:
 *  - text: "FILE:LINE:COL: SEVERITY: MESSAGE [RULE]" per line (":COL" is
 *    left out when the column is unknown, ":LINE:COL" when the line is,
 *    " [RULE]" when there is no rule); nothing at all when n is 0;
 *  - json: a pretty-printed array of objects with "file", "line",
 *    "column" (integers, 0 when unknown), "rule" (null when none),
 *    "severity", "message" and, when known, "pointer"; "[]" when empty;
 *  - sarif: a SARIF 2.1.0 log with one run of tool "gpumend" version
 *    `tool_version` (GPUMEND_VERSION when NULL), the rules that occur
 *    (with their summaries, descriptions, help and tags) and one result each,
 *    located by the file as a relative URI and, when known, its line and
 *    column (counted in characters);
 *  - github: "::error file=F,line=L,col=C,title=RULE::MESSAGE" per line
 *    ("::warning", "::notice" for info), escaped as the runner expects;
 *  - codequality: GitLab's Code Quality report, a JSON array of issues
 *    with "description", "check_name", "fingerprint", "severity" and
 *    "location" ("path", "lines": {"begin"}).
 * The object of an item, when known, is named in each: in the text
 * before the message (report_object_label()), as "kind", "namespace" and
 * "name" in JSON, as a logical location in SARIF, in the title of a
 * GitHub annotation, in the description of a Code Quality issue.
 * JSON, SARIF and Code Quality end with a newline. Strings that are not valid UTF-8 get
 * U+FFFD for each bad byte in JSON and SARIF.
 *
 * Returns 0, or -1 when out of memory or past the cap of `out`, which is
 * then left as it was.
 */
int report_write(struct buf *out, enum report_format fmt,
		 const struct report_item *items, size_t n,
		 const char *tool_version);

#endif
