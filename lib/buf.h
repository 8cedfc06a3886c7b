/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * buf.h - one growable byte buffer with a hard cap, for request bodies,
 * documents and output text (in the manner of git's strbuf).
 *
 * The contents are always NUL-terminated (the NUL is not counted in len).
 * Appending beyond `cap` fails with -1 and leaves the buffer as it was, so a
 * caller can answer 413 or "too large" without having allocated the excess.
 */
#ifndef GPUMEND_BUF_H
#define GPUMEND_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char *data;
	size_t len;
	size_t alloc;
	size_t cap;     /* hard limit on len; 0 means SIZE_MAX */
};

/* Initialises an empty buffer limited to `cap` bytes (0: no limit). */
void buf_init(struct buf *b, size_t cap);
/* Frees the contents; the buffer is empty and usable again. Accepts NULL. */
void buf_free(struct buf *b);
/* Empties the buffer, keeping its memory. */
void buf_reset(struct buf *b);
/* Makes room for `extra` more bytes; -1 over the cap or out of memory. */
int buf_grow(struct buf *b, size_t extra);
int buf_append(struct buf *b, const void *data, size_t len);
int buf_puts(struct buf *b, const char *s);
int buf_putc(struct buf *b, char c);
int buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int buf_vprintf(struct buf *b, const char *fmt, va_list ap);
/*
 * Hands the contents over to the caller (free() them) and leaves the buffer
 * empty. Never NULL unless out of memory: an empty buffer yields "".
 */
char *buf_detach(struct buf *b, size_t *len);

/*
 * Writes all `len` bytes of `data` to `fd`, retrying short writes and
 * writes interrupted by a signal (EINTR). Returns 0, or -1 with errno set
 * by the failing write(); some bytes may have been written by then.
 */
int buf_write_all(int fd, const char *data, size_t len);

#endif
