/*
 * ascii.h - how much of a text is ASCII, 16 or 8 bytes at a time.
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

#endif
