/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ascii.h - how much of a text is ASCII, 16 or 8 bytes at a time; the
 * line breaks YAML reads.
 */
#ifndef GPUMEND_ASCII_H
#define GPUMEND_ASCII_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The number of bytes of text[0..len) before the first one >= 0x80. */
static inline size_t ascii_span(const char *text, size_t len)
{
	size_t i = 0;
	uint64_t word, next;

	/* 16 bytes a turn, then 8 */
	while (len - i >= 16) {
		memcpy(&word, text + i, 8);
		memcpy(&next, text + i + 8, 8);
		if ((word | next) & 0x8080808080808080u)
			break;
		i += 16;
	}
	if (len - i >= 8) {
		memcpy(&word, text + i, 8);
		if (!(word & 0x8080808080808080u))
			i += 8;
	}
	while (i < len && !((unsigned char)text[i] & 0x80))
		i++;
	return i;
}

/*
 * The length of the line break YAML reads at u[0..n): LF, CR LF, CR, and
 * NEL, U+2028 and U+2029 in UTF-8; 0 when there is none.
 */
static inline size_t yaml_break_len(const unsigned char *u, size_t n)
{
	if (!n)
		return 0;
	if (u[0] == '\n')
		return 1;
	if (u[0] == '\r')
		return n >= 2 && u[1] == '\n' ? 2 : 1;
	if (n >= 2 && u[0] == 0xC2 && u[1] == 0x85)
		return 2;
	if (n >= 3 && u[0] == 0xE2 && u[1] == 0x80 &&
	    (u[2] == 0xA8 || u[2] == 0xA9))
		return 3;
	return 0;
}

#endif
