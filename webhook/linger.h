/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * linger.h - closing a connection gracefully after an early answer.
 *
 * A client that writes its whole request body before it reads (Python's
 * http.client, and most simple clients) gets a connection reset instead
 * of an answer sent before its body was read (413, 415, 403...): closing
 * a socket with unread bytes, or receiving more after the close, makes
 * the kernel send RST, and the client's kernel may then drop the answer it
 * had already received. So such a connection is not closed at once: its
 * writing side is shut (the client sees the end of the answer), what still
 * arrives is read and dropped, and it is closed when the client closes it,
 * or at the latest after a short time or a number of bytes.
 */
#ifndef GPUMEND_WEBHOOK_LINGER_H
#define GPUMEND_WEBHOOK_LINGER_H

#include <stddef.h>

struct linger_set;

/*
 * Starts the thread that drains lingering connections: at most `max` at
 * once (more are closed at once), each for at most `timeout_ms` and
 * `max_bytes`. NULL when out of resources.
 */
struct linger_set *linger_new(unsigned max, unsigned timeout_ms,
			      size_t max_bytes);

/*
 * Takes `fd`, a socket whose answer has been written in full (the caller
 * hands over its own descriptor, a dup() when another owner closes the
 * original): shuts down its writing side and drains it as above. `fd` is
 * closed in every case.
 */
void linger_add(struct linger_set *set, int fd);

/* Stops the thread and closes what still lingers; accepts NULL. */
void linger_free(struct linger_set *set);

#endif
