/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * buf.c - the growable byte buffer.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"

void buf_init(struct buf *b, size_t cap)
{
	b->data = NULL;
	b->len = 0;
	b->alloc = 0;
	b->cap = cap ? cap : SIZE_MAX - 1;
}

void buf_free(struct buf *b)
{
	if (!b)
		return;
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->alloc = 0;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

int buf_grow(struct buf *b, size_t extra)
{
	size_t need, alloc;
	char *grown;

	if (extra > b->cap - b->len)
		return -1;
	need = b->len + extra + 1;
	if (need <= b->alloc)
		return 0;
	alloc = b->alloc ? b->alloc : 64;
	while (alloc < need)
		alloc = alloc > SIZE_MAX / 2 ? need : alloc * 2;
	grown = realloc(b->data, alloc);
	if (!grown)
		return -1;
	b->data = grown;
	b->alloc = alloc;
	return 0;
}

int buf_append(struct buf *b, const void *data, size_t len)
{
	if (buf_grow(b, len) != 0)
		return -1;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int buf_puts(struct buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

int buf_putc(struct buf *b, char c)
{
	return buf_append(b, &c, 1);
}

int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list copy;
	int len;

	va_copy(copy, ap);
	len = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (len < 0 || buf_grow(b, (size_t)len) != 0)
		return -1;
	vsnprintf(b->data + b->len, (size_t)len + 1, fmt, ap);
	b->len += (size_t)len;
	return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *data = b->data;

	if (!data)
		data = calloc(1, 1);
	if (len)
		*len = b->len;
	b->data = NULL;
	b->len = 0;
	b->alloc = 0;
	return data;
}

int buf_write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, data, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += w;
		len -= (size_t)w;
	}
	return 0;
}
