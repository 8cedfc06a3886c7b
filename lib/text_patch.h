/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
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

/* What an edit does, and the node it concerns (see struct text_edit). */
enum text_edit_kind {
	TEXT_EDIT_RENAME,    /* rewrites a key; node: the member's value */
	TEXT_EDIT_REMOVE,    /* deletes a member or item; node: its value */
	TEXT_EDIT_REPLACE,   /* rewrites a value; node: the old value */
	TEXT_EDIT_ADD        /* inserts members or items; node: their parent */
};

/* One edit of the source text. */
struct text_edit {
	size_t start, end;   /* the span replaced; start == end inserts */
	char *text;          /* owned; NULL deletes */
	size_t len;
	enum text_edit_kind kind;
	const struct source_node *node; /* in doc->root's tree, borrowed */
};

struct text_edits {
	struct text_edit *items; /* sorted by position */
	size_t n;
};

/*
 * The edits that text_patch_document() would make to `doc`, without
 * applying them and without ever writing the document anew: 0 with
 * `edits` set (to release with text_edits_clear()) when the edited text
 * reads back as `migrated`, else -1 with `why` saying what went wrong.
 * The nodes the edits name belong to doc->root, which the call changes
 * (it records the operations in it): free the tree, or read it again,
 * before patching the document once more.
 */
int text_patch_edits(const char *text, size_t len, struct source_doc *doc,
		     const struct rules_result *result, json_t *migrated,
		     const struct source_limits *limits,
		     struct text_edits *edits, char *why, size_t why_len);
void text_edits_clear(struct text_edits *edits);

#endif
