/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utf16.h - manifests in UTF-16 with a byte order mark.
 *
 * kubectl reads a manifest in UTF-16 (little or big endian) when it starts
 * with a byte order mark, as Windows PowerShell 5 writes `kubectl get -o
 * yaml > FILE`. gpumend reads and edits UTF-8, so such a file is turned
 * into UTF-8 when it is read (its mark into UTF-8's) and what is written of
 * it back into UTF-16 of the same order, mark included: the bytes no rule
 * changes come back as they were.
 */
#ifndef GPUMEND_UTF16_H
#define GPUMEND_UTF16_H

#include <stddef.h>

#include "buf.h"

enum utf16_order { UTF16_NONE, UTF16_LE, UTF16_BE };

/* The order that text[0..len)'s byte order mark announces, if any. */
enum utf16_order utf16_detect(const char *text, size_t len);

/*
 * Appends to `out` the UTF-8 of the UTF-16 text[0..len) in `order`.
 * Returns 0, or -1 with *bad_at the byte offset of what cannot be
 * decoded (a half of a surrogate pair alone, an odd last byte), or
 * (size_t)-1 when out of memory.
 */
int utf16_to_utf8(const char *text, size_t len, enum utf16_order order,
		  struct buf *out, size_t *bad_at);

/*
 * Appends to `out` the UTF-16 in `order` of the UTF-8 text[0..len) (as
 * utf16_to_utf8() or the rules made it: well formed). 0, or -1 when out of
 * memory.
 */
int utf8_to_utf16(const char *text, size_t len, enum utf16_order order,
		  struct buf *out);

#endif
