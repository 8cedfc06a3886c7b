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


/*
 * One finding as the CLI reports it. All strings are borrowed. `file` is
 * the path as the user gave it ("-" for stdin); `line` and `column` are
 * 1-based, 0 when unknown; `rule` is the rule id, or NULL for a finding
 * that belongs to no rule; `severity` is "error", "warning" or "info";
 * `message` is one line; `pointer` is the JSON Pointer of the node in the
 * document, or NULL. A NULL `file` is written as "-", a NULL `message` or
 * `severity` as "" and "warning".
 */
struct report_item {
	const char *file;
	int line, column;
	const char *rule;
	const char *severity;
	const char *message;
	const char *pointer;
	/* the object the finding is about (report_item_object()), each
	 * NULL when unknown; `generate_name` only when there is no name */
	const char *kind;
	const char *namespace;
	const char *name;
	const char *generate_name;
	int nameless;        /* 1: metadata, but neither name nor generateName */
	/* how much of `pointer` leads to the object ("/items/3" of a List
	 * item), so that pointer + object_at is the place in the object */
	size_t object_at;
};

enum report_format {
	REPORT_TEXT, REPORT_JSON, REPORT_SARIF, REPORT_GITHUB,
	REPORT_CODEQUALITY,
};

/*
 * Sets the object of `item` (kind, namespace, name, generate_name) from
 * the object of the document `root` that item->pointer is in: the item of
 * a `kind: List` it points into, else the document (rules_object_at()).
 * The strings are borrowed from `root`. Members that are not strings (or
 * an empty name) count as unknown; a NULL `root` leaves them all NULL.
 */
void report_item_object(struct report_item *item, json_t *root);

/*
 * The object of a finding with its names owned, for keeping it once the
 * document is gone. report_object_copy() copies the object of `item`
 * through `copy` (a new string of `s`, or NULL when out of memory; NULL:
 * strdup()); 0, or -1 (`obj` then cleared) when out of memory.
 * report_object_lend() makes `item` borrow the names of `obj`.
 * report_object_clear() frees them.
 */
struct report_object {
	char *kind, *namespace, *name, *generate_name;
	int nameless;
};
int report_object_copy(struct report_object *obj,
		       const struct report_item *item,
		       char *(*copy)(void *arg, const char *s), void *arg);
void report_object_lend(struct report_item *item,
			const struct report_object *obj);
void report_object_clear(struct report_object *obj);

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
