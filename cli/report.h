/*
 * report.h - writers for the findings of `gpumend lint`: plain text, JSON,
 * SARIF 2.1.0 (GitHub code scanning) and GitHub Actions workflow commands.
 */
#ifndef GPUMEND_REPORT_H
#define GPUMEND_REPORT_H

#include <stddef.h>

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
};

enum report_format { REPORT_TEXT, REPORT_JSON, REPORT_SARIF, REPORT_GITHUB };

/*
 * Sets *out to the format called `name` ("text", "json", "sarif",
 * "github"). Returns 0, or -1 (leaving *out alone) for any other name.
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
 *    (with their summaries as short descriptions) and one result each,
 *    located by the file as a relative URI and, when known, its line and
 *    column (counted in characters);
 *  - github: "::error file=F,line=L,col=C,title=RULE::MESSAGE" per line
 *    ("::warning", "::notice" for info), escaped as the runner expects.
 * JSON and SARIF end with a newline. Strings that are not valid UTF-8 get
 * U+FFFD for each bad byte in JSON and SARIF.
 *
 * Returns 0, or -1 when out of memory or past the cap of `out`, which is
 * then left as it was.
 */
int report_write(struct buf *out, enum report_format fmt,
		 const struct report_item *items, size_t n,
		 const char *tool_version);

#endif
