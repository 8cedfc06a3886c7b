/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utf16.c - UTF-16 manifests to UTF-8 and back (see utf16.h).
 */
#include <stdint.h>

#include "utf16.h"

enum utf16_order utf16_detect(const char *text, size_t len)
{
	const unsigned char *t = (const unsigned char *)text;

	if (len >= 2 && t[0] == 0xFF && t[1] == 0xFE)
		return UTF16_LE;
	if (len >= 2 && t[0] == 0xFE && t[1] == 0xFF)
		return UTF16_BE;
	return UTF16_NONE;
}

static uint32_t unit_at(const unsigned char *t, enum utf16_order order)
{
	return order == UTF16_LE ? (uint32_t)t[0] | (uint32_t)t[1] << 8
				 : (uint32_t)t[0] << 8 | (uint32_t)t[1];
}

int utf16_to_utf8(const char *text, size_t len, enum utf16_order order,
		  struct buf *out, size_t *bad_at)
{
	const unsigned char *t = (const unsigned char *)text;
	size_t i = 0;

	if (buf_grow(out, len + len / 2)) {
		*bad_at = (size_t)-1;
		return -1;
	}
	while (i < len) {
		unsigned char u8[4];
		uint32_t c;
		size_t n;

		if (len - i < 2) {
			*bad_at = i;
			return -1;
		}
		c = unit_at(t + i, order);
		if (c >= 0xDC00 && c <= 0xDFFF) {
			*bad_at = i;
			return -1;
		}
		if (c >= 0xD800 && c <= 0xDBFF) {
			uint32_t low = len - i >= 4 ? unit_at(t + i + 2, order) : 0;

			if (low < 0xDC00 || low > 0xDFFF) {
				*bad_at = i;
				return -1;
			}
			c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
			i += 2;
		}
		i += 2;
		if (c < 0x80) {
			u8[0] = (unsigned char)c;
			n = 1;
		} else if (c < 0x800) {
			u8[0] = (unsigned char)(0xC0 | c >> 6);
			u8[1] = (unsigned char)(0x80 | (c & 0x3F));
			n = 2;
		} else if (c < 0x10000) {
			u8[0] = (unsigned char)(0xE0 | c >> 12);
			u8[1] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
			u8[2] = (unsigned char)(0x80 | (c & 0x3F));
			n = 3;
		} else {
			u8[0] = (unsigned char)(0xF0 | c >> 18);
			u8[1] = (unsigned char)(0x80 | (c >> 12 & 0x3F));
			u8[2] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
			u8[3] = (unsigned char)(0x80 | (c & 0x3F));
			n = 4;
		}
		if (buf_append(out, u8, n)) {
			*bad_at = (size_t)-1;
			return -1;
		}
	}
	return 0;
}

/* Appends one UTF-16 unit. */
static int put_unit(struct buf *out, uint32_t u, enum utf16_order order)
{
	unsigned char b[2];

	if (order == UTF16_LE) {
		b[0] = (unsigned char)(u & 0xFF);
		b[1] = (unsigned char)(u >> 8);
	} else {
		b[0] = (unsigned char)(u >> 8);
		b[1] = (unsigned char)(u & 0xFF);
	}
	return buf_append(out, b, 2);
}

int utf8_to_utf16(const char *text, size_t len, enum utf16_order order,
		  struct buf *out)
{
	const unsigned char *t = (const unsigned char *)text;
	size_t i = 0;

	if (buf_grow(out, len * 2))
		return -1;
	while (i < len) {
		uint32_t c = t[i];
		size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;

		if (n > len - i)
			n = len - i;
		if (n == 2)
			c = (c & 0x1F) << 6 | (t[i + 1] & 0x3Fu);
		else if (n == 3)
			c = (c & 0x0F) << 12 | (t[i + 1] & 0x3Fu) << 6 |
			    (t[i + 2] & 0x3Fu);
		else if (n == 4)
			c = (c & 0x07) << 18 | (t[i + 1] & 0x3Fu) << 12 |
			    (t[i + 2] & 0x3Fu) << 6 | (t[i + 3] & 0x3Fu);
		i += n;
		if (c >= 0x10000) {
			c -= 0x10000;
			if (put_unit(out, 0xD800 + (c >> 10), order) ||
			    put_unit(out, 0xDC00 + (c & 0x3FF), order))
				return -1;
		} else if (put_unit(out, c, order)) {
			return -1;
		}
	}
	return 0;
}
