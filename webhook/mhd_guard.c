/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mhd_guard.c - guards against two defects of libmicrohttpd 0.9.75 (the
 * version of Debian 12) that no option turns off.
 *
 * 1. Doubled heads.
 *
 * When libmicrohttpd refuses a request head itself while parsing it (a
 * Content-Length that is not a number, or past 2^64: 400 and 413 before
 * the server sees the request), it sends its answer with the status line
 * and the headers twice. Its MHD_connection_handle_idle() calls
 * parse_connection_headers(), whose error path (transmit_error_response)
 * queues the answer, writes its head into the write buffer and moves the
 * connection to HEADERS_SENDING; the caller then overwrites that state with
 * HEADERS_PROCESSED, the connection goes through FULL_REQ_RECEIVED to
 * START_REPLY, and build_header_response() appends the same head a second
 * time. A client reads the first head and takes the second as the start of
 * the body (the connection is closed after it, so nothing else is
 * misread).
 *
 * libmicrohttpd hands the whole head to gnutls_record_send() in one call
 * (a head is far below a TLS record). This definition of that function,
 * to which the dynamic linker binds libmicrohttpd's calls (a function of
 * the executable comes first), passes everything to GnuTLS's own, except
 * a buffer that is a response head followed by an exact copy of itself:
 * that head is sent once, and the caller is told that both were.
 *
 * 2. A panic on shutdown. MHD_quiesce_daemon(), called on SIGTERM from
 * the main thread, takes the listening socket out of each pool worker's
 * epoll set, and panics (abort) when epoll_ctl(EPOLL_CTL_DEL) fails. But a
 * worker that wakes up at that moment sees the daemon quiesced and takes
 * the socket out itself (its own call tolerates ENOENT; the worker's
 * removal at the connection limit does not either): whichever comes
 * second gets ENOENT, and the main thread's call aborts the process
 * (seen: exit 134, "Failed to remove listen FD from epoll set", about one
 * SIGTERM in a hundred under load). For EPOLL_CTL_DEL, ENOENT says that
 * the descriptor is not in the set, which is what the caller asked for:
 * this definition of epoll_ctl(), to which libmicrohttpd's calls are bound
 * as above, reports it as done.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/epoll.h>

#include <gnutls/gnutls.h>

/* GnuTLS's own gnutls_record_send() and the C library's epoll_ctl() */
static ssize_t (*real_send)(gnutls_session_t, const void *, size_t);
static int (*real_epoll_ctl)(int, int, int, struct epoll_event *);
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void find_real(void)
{
	/* POSIX's way to store a function's address that dlsym() found */
	*(void **)&real_send = dlsym(RTLD_NEXT, "gnutls_record_send");
	*(void **)&real_epoll_ctl = dlsym(RTLD_NEXT, "epoll_ctl");
}

/* The length of a response head that `data` holds twice in a row; 0 if not. */
static size_t doubled_head(const char *data, size_t len)
{
	const char *end;
	size_t head;

	if (len < 16 || len % 2 || memcmp(data, "HTTP/1.", 7) != 0)
		return 0;
	end = memmem(data, len, "\r\n\r\n", 4);
	if (!end)
		return 0;
	head = (size_t)(end - data) + 4;
	return head * 2 == len && memcmp(data, data + head, head) == 0 ? head
								       : 0;
}

ssize_t gnutls_record_send(gnutls_session_t session, const void *data,
			   size_t data_size)
{
	size_t head;
	ssize_t sent;

	pthread_once(&real_once, find_real);
	if (!real_send)
		return GNUTLS_E_INTERNAL_ERROR;
	head = data ? doubled_head(data, data_size) : 0;
	if (!head)
		return real_send(session, data, data_size);
	/* a head is one record: sent whole, or not at all (E_AGAIN, and the
	 * caller comes back with the same buffer) */
	sent = real_send(session, data, head);
	return sent == (ssize_t)head ? (ssize_t)data_size : sent;
}

int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event)
{
	int rc;

	pthread_once(&real_once, find_real);
	if (!real_epoll_ctl) {
		errno = ENOSYS;
		return -1;
	}
	rc = real_epoll_ctl(epfd, op, fd, event);
	if (rc != 0 && op == EPOLL_CTL_DEL && errno == ENOENT)
		return 0;
	return rc;
}
