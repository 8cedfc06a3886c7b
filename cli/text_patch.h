/*
 * text_patch.h - the text patcher: turns the engine's operations into
 * byte edits of a YAML/JSON source, so that everything no rule changes
 * stays as it was.
 */
#ifndef GPUMEND_TEXT_PATCH_H
#define GPUMEND_TEXT_PATCH_H

#include <stddef.h>
#include <jansson.h>

#include "buf.h"
#include "rules.h"
#include "source.h"

/*
 * Rewrites one document of `text` so that it holds `migrated` (the
 * engine's result), applying `result`'s operations to the source tree of
 * `doc` as text edits: everything no operation touches stays byte for byte.
 * The new text of the document's span [doc->start, doc->end) is appended to
 * `out`. When the document cannot be edited in place, it is re-emitted
 * whole and *reemitted set to 1 (the caller tells the user). Returns 0, or
 * -1 on failure (out of memory).
 */
int text_patch_document(struct buf *out, const char *text, size_t len,
			struct source_doc *doc, const struct rules_result *result,
			json_t *migrated, const struct source_limits *limits,
			int *reemitted, char *why, size_t why_len);

#endif
