/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_write.c - JSON text straight into a buffer (see json_write.h).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define WRITE_SSE2 1
#endif

#include "json_write.h"

/* Bytes written escaped. */
static const unsigned char escaped[256] = {
	[0x00 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1,
};

/*
 * Nonzero when a byte of `w` is '"', '\\' or below 0x20 (it may also be
 * when one is not, after one that is: the bytes are then looked at one by
 * one).
 */
static inline uint64_t word_escapes(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101u, highs = ones << 7;
	uint64_t quote = w ^ (ones * '"'), backslash = w ^ (ones * '\\');

	return (((quote - ones) & ~quote) | ((backslash - ones) & ~backslash) |
		((w - ones * 0x20) & ~w)) & highs;
}

/* Strings are written in pieces of this many bytes at most. */
#define PIECE 4096

int json_write_string(struct buf *b, const char *text, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)text;
	const unsigned char *end = p + len;
	char *o;

	/* short strings, most of them: room for all at once */
	if (buf_grow(b, len < PIECE ? len * 6 + 18 : 2))
		return -1;
	b->data[b->len++] = '"';
	while (p < end) {
		size_t piece = (size_t)(end - p) < PIECE ? (size_t)(end - p)
							 : PIECE;
		const unsigned char *stop = p + piece;

		/* each byte may take 6; 16 more for the wide stores */
		if (len >= PIECE && buf_grow(b, piece * 6 + 16))
			return -1;
		o = b->data + b->len;
		while (p < stop) {
#if WRITE_SSE2
			while (stop - p >= 16) {
				__m128i v = _mm_loadu_si128((const __m128i *)p);
				__m128i low = _mm_set1_epi8(0x1f);
				unsigned mask = (unsigned)_mm_movemask_epi8(
					_mm_or_si128(
						_mm_or_si128(
							_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
							_mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
						_mm_cmpeq_epi8(_mm_max_epu8(v, low), low)));

				_mm_storeu_si128((__m128i *)o, v);
				if (mask) {
					unsigned k = (unsigned)__builtin_ctz(mask);

					o += k;
					p += k;
					break;
				}
				o += 16;
				p += 16;
			}
			if (p >= stop)
				break;
#endif
			/* 8 at a time while none needs an escape */
			while (stop - p >= 8) {
				uint64_t w;

				memcpy(&w, p, 8);
				if (word_escapes(w))
					break;
				memcpy(o, &w, 8);
				o += 8;
				p += 8;
			}
			if (p >= stop)
				break;
			if (!escaped[*p]) {
				*o++ = (char)*p++;
				continue;
			}
			*o++ = '\\';
			switch (*p) {
			case '"': *o++ = '"'; break;
			case '\\': *o++ = '\\'; break;
			case '\b': *o++ = 'b'; break;
			case '\f': *o++ = 'f'; break;
			case '\n': *o++ = 'n'; break;
			case '\r': *o++ = 'r'; break;
			case '\t': *o++ = 't'; break;
			default:
				*o++ = 'u';
				*o++ = '0';
				*o++ = '0';
				*o++ = hex[*p >> 4];
				*o++ = hex[*p & 15];
			}
			p++;
		}
		b->len = (size_t)(o - b->data);
	}
	if (len >= PIECE && buf_grow(b, 1))
		return -1;
	b->data[b->len++] = '"';
	b->data[b->len] = '\0';
	return 0;
}

int json_write_int(struct buf *b, long long value)
{
	char digits[24], *d = digits + sizeof(digits);
	unsigned long long v = value < 0 ? 0 - (unsigned long long)value
					 : (unsigned long long)value;

	do
		*--d = (char)('0' + v % 10);
	while (v /= 10);
	if (value < 0)
		*--d = '-';
	return buf_append(b, d, (size_t)(digits + sizeof(digits) - d));
}

int json_write_value(struct buf *b, const json_t *value)
{
	const char *key;
	json_t *child;
	size_t i, key_len;
	char *text;
	int first = 1, rc;

	switch (json_typeof(value)) {
	case JSON_OBJECT:
		if (buf_putc(b, '{'))
			return -1;
		json_object_keylen_foreach((json_t *)value, key, key_len, child) {
			if ((!first && buf_putc(b, ',')) ||
			    json_write_string(b, key, key_len) ||
			    buf_putc(b, ':') || json_write_value(b, child))
				return -1;
			first = 0;
		}
		return buf_putc(b, '}');
	case JSON_ARRAY:
		if (buf_putc(b, '['))
			return -1;
		json_array_foreach(value, i, child)
			if ((i && buf_putc(b, ',')) || json_write_value(b, child))
				return -1;
		return buf_putc(b, ']');
	case JSON_STRING:
		return json_write_string(b, json_string_value(value),
					 json_string_length(value));
	case JSON_INTEGER:
		return json_write_int(b, json_integer_value(value));
	case JSON_TRUE:
		return buf_append(b, "true", 4);
	case JSON_FALSE:
		return buf_append(b, "false", 5);
	case JSON_NULL:
		return buf_append(b, "null", 4);
	default:
		/* reals, rare in Kubernetes objects: jansson's own format */
		if (!(text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY)))
			return -1;
		rc = buf_puts(b, text);
		free(text);
		return rc;
	}
}

static const char alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The two characters of each 12 bits. */
static char pairs[4096][2];
static pthread_once_t pairs_once = PTHREAD_ONCE_INIT;

static void pairs_init(void)
{
	for (unsigned v = 0; v < 4096; v++) {
		pairs[v][0] = alphabet[v >> 6];
		pairs[v][1] = alphabet[v & 63];
	}
}

int json_write_base64(struct buf *b, const unsigned char *data, size_t len)
{
	size_t i;
	char *o;

	if (len > (SIZE_MAX - 8) / 4 * 3 || buf_grow(b, (len + 2) / 3 * 4))
		return -1;
	pthread_once(&pairs_once, pairs_init);
	o = b->data + b->len;
	for (i = 0; i + 2 < len; i += 3) {
		uint32_t v = (uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8 |
			     data[i + 2];

		memcpy(o, pairs[v >> 12], 2);
		memcpy(o + 2, pairs[v & 4095], 2);
		o += 4;
	}
	if (i < len) {
		uint32_t v = (uint32_t)data[i] << 16;

		if (i + 1 < len)
			v |= (uint32_t)data[i + 1] << 8;
		o[0] = alphabet[v >> 18];
		o[1] = alphabet[v >> 12 & 63];
		o[2] = i + 1 < len ? alphabet[v >> 6 & 63] : '=';
		o[3] = '=';
		o += 4;
	}
	b->len = (size_t)(o - b->data);
	b->data[b->len] = '\0';
	return 0;
}
