/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nul.c - the encoding of strings holding NUL while the rules run (see
 * nul.h).
 */
#define _GNU_SOURCE     /* memmem */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nul.h"

/* U+FDD0 and U+FDD1 in UTF-8: NUL is MARK NEXT, MARK itself MARK MARK. */
#define MARK "\xef\xb7\x90"
#define NEXT "\xef\xb7\x91"
#define MARK_LEN 3

/* The value of the four hex digits at p; -1 when they are not. */
static long hex4(const char *p)
{
	long value = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];

		value <<= 4;
		if (c >= '0' && c <= '9')
			value |= c - '0';
		else if (c >= 'a' && c <= 'f')
			value |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			value |= c - 'A' + 10;
		else
			return -1;
	}
	return value;
}

int nul_text_has(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *run;

	/* by runs of backslashes: memchr() is cheaper than memmem() */
	while ((run = memchr(p, '\\', (size_t)(end - p)))) {
		p = run + 1;
		while (p < end && *p == '\\')
			p++;
		/* an escape only when the backslashes before its own pair up */
		if ((p - 1 - run) % 2 == 0 && end - (p - 1) >= 6 &&
		    memcmp(p - 1, "\\u0000", 6) == 0)
			return 1;
	}
	return 0;
}

char *nul_text_encode(const char *text, size_t len, size_t *out_len)
{
	size_t o = 0;
	char *out;

	/* at most doubles: each \uXXXX escape and each MARK */
	if (len > (SIZE_MAX - 1) / 2)
		return NULL;
	if (!(out = malloc(len * 2 + 1)))
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\\' && i + 1 < len) {
			long value = text[i + 1] == 'u' && i + 6 <= len ?
				     hex4(text + i + 2) : -1;

			if (value == 0) {
				memcpy(out + o, "\\ufdd0\\ufdd1", 12);
				o += 12;
			} else if (value == 0xfdd0) {
				memcpy(out + o, "\\ufdd0\\ufdd0", 12);
				o += 12;
			} else {
				/* another escape, copied whole: \\ is not
				 * the start of one */
				size_t n = value >= 0 ? 6 : 2;

				memcpy(out + o, text + i, n);
				o += n;
			}
			i += value >= 0 ? 5 : 1;
			continue;
		}
		if (text[i] == MARK[0] && i + MARK_LEN <= len &&
		    !memcmp(text + i, MARK, MARK_LEN)) {
			memcpy(out + o, MARK MARK, 2 * MARK_LEN);
			o += 2 * MARK_LEN;
			i += MARK_LEN - 1;
			continue;
		}
		out[o++] = text[i];
	}
	out[o] = '\0';
	*out_len = o;
	return out;
}

/* 1 when text[0..len) holds NUL or MARK. */
static int needs_encoding(const char *text, size_t len)
{
	return memchr(text, '\0', len) ||
	       memmem(text, len, MARK, MARK_LEN);
}

/* A new string: text[0..len) encoded, or decoded; its length in *out. */
static char *recode(const char *text, size_t len, int encode, size_t *out)
{
	size_t size = len + 1, o = 0;
	char *new_text;

	/* a NUL grows into six bytes, a MARK into two MARKs */
	if (encode)
		for (size_t i = 0; i < len; i++)
			size += text[i] == '\0' ? 2 * MARK_LEN - 1 :
				text[i] == MARK[0] ? MARK_LEN : 0;
	if (!(new_text = malloc(size)))
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (encode && text[i] == '\0') {
			memcpy(new_text + o, MARK NEXT, 2 * MARK_LEN);
			o += 2 * MARK_LEN;
		} else if (encode && i + MARK_LEN <= len &&
			   !memcmp(text + i, MARK, MARK_LEN)) {
			memcpy(new_text + o, MARK MARK, 2 * MARK_LEN);
			o += 2 * MARK_LEN;
			i += MARK_LEN - 1;
		} else if (!encode && i + 2 * MARK_LEN <= len &&
			   !memcmp(text + i, MARK NEXT, 2 * MARK_LEN)) {
			new_text[o++] = '\0';
			i += 2 * MARK_LEN - 1;
		} else if (!encode && i + 2 * MARK_LEN <= len &&
			   !memcmp(text + i, MARK MARK, 2 * MARK_LEN)) {
			memcpy(new_text + o, MARK, MARK_LEN);
			o += MARK_LEN;
			i += 2 * MARK_LEN - 1;
		} else {
			new_text[o++] = text[i];
		}
	}
	new_text[o] = '\0';
	*out = o;
	return new_text;
}

/* Encodes or decodes the strings of `value` in place: 1 when one
 * changed, 0 when none did, -1 when out of memory. */
static int recode_json(json_t *value, int encode)
{
	const char *key;
	json_t *child;
	size_t i;
	int changed = 0, rc;

	switch (json_typeof(value)) {
	case JSON_STRING: {
		const char *text = json_string_value(value);
		size_t len = json_string_length(value), n;
		char *new_text;

		if (encode ? !needs_encoding(text, len)
			   : !memmem(text, len, MARK, MARK_LEN))
			return 0;
		if (!(new_text = recode(text, len, encode, &n)))
			return -1;
		rc = json_string_setn_nocheck(value, new_text, n);
		free(new_text);
		return rc ? -1 : 1;
	}
	case JSON_ARRAY:
		json_array_foreach(value, i, child) {
			if ((rc = recode_json(child, encode)) < 0)
				return -1;
			changed |= rc;
		}
		return changed;
	case JSON_OBJECT: {
		size_t klen;
		int keys = 0;

		json_object_keylen_foreach(value, key, klen, child) {
			if ((rc = recode_json(child, encode)) < 0)
				return -1;
			changed |= rc;
			if (encode ? needs_encoding(key, klen)
				   : memmem(key, klen, MARK, MARK_LEN) != NULL)
				keys = 1;
		}
		if (keys) {
			/* keys cannot be renamed in place: the members are
			 * set again, in their order */
			json_t *copy = json_object();

			if (!copy)
				return -1;
			json_object_keylen_foreach(value, key, klen, child) {
				size_t n;
				char *new_key = recode(key, klen, encode, &n);

				if (!new_key ||
				    json_object_setn_nocheck(copy, new_key, n,
							     child)) {
					free(new_key);
					json_decref(copy);
					return -1;
				}
				free(new_key);
			}
			json_object_clear(value);
			json_object_keylen_foreach(copy, key, klen, child)
				if (json_object_setn_nocheck(value, key, klen,
							     child)) {
					json_decref(copy);
					return -1;
				}
			json_decref(copy);
			changed = 1;
		}
		return changed;
	}
	default:
		return 0;
	}
}

int nul_source_may_hold(const char *text, size_t len)
{
	return memchr(text, '\\', len) || memchr(text, '\0', len) ||
	       memchr(text, 0xEF, len);
}

int nul_json_encode(json_t *value)
{
	return recode_json(value, 1);
}

int nul_json_decode(json_t *value)
{
	return recode_json(value, 0) < 0 ? -1 : 0;
}

void nul_text_decode(char *text)
{
	char *in = text, *out = text;

	while (*in) {
		/* strncmp: stops at the end of the text */
		if (!strncmp(in, MARK NEXT, 2 * MARK_LEN)) {
			memcpy(out, "\\u0000", 6);
			out += 6;
			in += 2 * MARK_LEN;
		} else if (!strncmp(in, MARK MARK, 2 * MARK_LEN)) {
			memcpy(out, MARK, MARK_LEN);
			out += MARK_LEN;
			in += 2 * MARK_LEN;
		} else {
			*out++ = *in++;
		}
	}
	*out = '\0';
}
