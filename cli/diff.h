/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * diff.h - unified diffs of two texts, as `diff -u` and git print them.
 */
#ifndef GPUMEND_DIFF_H
#define GPUMEND_DIFF_H

#include <stddef.h>

#include "buf.h"

/* Lines of unchanged context around each change, as `diff -u` uses. */
#define DIFF_CONTEXT 3

/*
 * Appends to `out` a unified diff that turns text `a` (`alen` bytes) into
 * text `b`: the header lines "--- OLD_LABEL" and "+++ NEW_LABEL", then
 * "@@ -l,n +l,n @@" hunks with DIFF_CONTEXT lines of context, in the same
 * hunks `diff -u` prints. The texts are split after each '\n'; every line
 * keeps its own ending, so "\r\n" and "\n" endings differ and CRLF text
 * diffs as it is, and a last line without a newline is followed by
 * "\ No newline at end of file". Neither text needs a NUL terminator and
 * both may hold any bytes.
 *
 * The comparison is Myers' O(ND) algorithm in linear space, after the
 * common head and tail are set aside, so a small change to a large text is
 * cheap; past a cost bound on very different texts it settles for a short
 * rather than the shortest diff, as GNU diff does.
 *
 * Returns 0, having appended nothing when the texts are equal, or -1 when
 * out of memory or when `out` would grow past its cap; on -1 `out` is left
 * as it was.
 */
int diff_unified(struct buf *out, const char *old_label, const char *new_label,
		 const char *a, size_t alen, const char *b, size_t blen);

#endif
