/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * server.h - the HTTPS server: libmicrohttpd on an epoll thread pool, the
 * routes (/mutate, /healthz, /readyz, /metrics), the request-body cap, the
 * live configuration, and draining on shutdown.
 */
#ifndef GPUMEND_WEBHOOK_SERVER_H
#define GPUMEND_WEBHOOK_SERVER_H

#include <stddef.h>
#include <sys/socket.h>

#include "rules.h"
#include "tls.h"

/* Defaults of the connection limits (see server_options). */
#define SERVER_MAX_CONNECTIONS_DEFAULT 4096
#define SERVER_MAX_PER_ADDRESS_DEFAULT 256
#define SERVER_HEADER_TIMEOUT_DEFAULT 10
/* Descriptors the server needs beyond one per connection. */
#define SERVER_FD_RESERVE 256
/* Longest wait of a review for the memory budget. */
#define SERVER_MEMORY_WAIT_MS 3000

/*
 * The memory budget of the reviews in flight by default: half the memory
 * limit of the process's cgroup (v2 memory.max, or v1
 * memory.limit_in_bytes), the rest being left to the request bodies, the
 * connections and the program; without a limit, SERVER_MEMORY_FALLBACK.
 */
#define SERVER_MEMORY_FALLBACK ((size_t)1 << 30)
size_t server_memory_budget_default(void);

struct server_options {
	struct sockaddr_storage address;  /* IPv4 or IPv6, with the port */
	socklen_t address_len;
	size_t max_body;                  /* bytes; 413 beyond */
	unsigned connection_timeout;      /* seconds of inactivity */
	/* seconds from the accept to the first request head (handshake
	 * included); 0: no such deadline */
	unsigned header_timeout;
	/* connections held at once; past it, the oldest that has sent no
	 * whole request head yet (else the one whose body has stalled
	 * longest, else the oldest idle one) is closed */
	unsigned max_connections;
	unsigned max_per_address;         /* from one client address */
	unsigned threads;                 /* size of the thread pool */
	/* bytes the reviews in flight may take together (by
	 * admission_memory_estimate()); a review that would pass it waits
	 * for the others, at most SERVER_MEMORY_WAIT_MS, and is then
	 * answered as an internal failure; 0: no budget */
	size_t memory_budget;
	/* PEM CAs that sign the API server's client certificate: /mutate
	 * then answers 403 without one (probes and /metrics are open);
	 * NULL for no client authentication. Must outlive the server. */
	const char *client_ca_pem;
};

struct server;

/*
 * Starts serving. `tls` must hold a loaded pair and outlive the server;
 * `cfg_new` is the configuration for requests and is stolen (also on
 * failure). Returns the running server, or NULL with `err` set.
 */
struct server *server_start(const struct server_options *opts,
			    struct tls_store *tls, struct config *cfg_new,
			    char *err, size_t errlen);

/*
 * Closes connections whose first request head has not come within the
 * header timeout of the accept, and those whose request has not arrived
 * whole within the connection timeout of their start or of their previous
 * request (the timeout of libmicrohttpd counts idle time only). Call it
 * about once a second.
 */
void server_sweep(struct server *server);

/* The port the server listens on (the one chosen when 0 was asked for). */
unsigned server_port(const struct server *server);

/*
 * Replaces the configuration for requests that start from now on; those
 * under way keep the one they started with. Steals `cfg_new`.
 */
void server_set_config(struct server *server, struct config *cfg_new);

/*
 * The shutdown delay begins: /readyz answers 503 and every response asks
 * the client to close its connection (so that it reconnects, through the
 * Service, to a replica still ready), while new connections are still
 * accepted and every request is served as before. Idempotent.
 */
void server_unready(struct server *server);

/*
 * Starts draining (server_unready() first, when it was not called): the
 * listening socket stops accepting, /readyz answers 503 and responses on
 * kept-alive connections ask the client to close. Idempotent.
 */
void server_quiesce(struct server *server);

/*
 * After server_quiesce(): waits, at most `timeout_ms` milliseconds, until
 * every connection is closed: those with a request under way once it is
 * answered (asking the client to close), idle kept-alive ones at once,
 * and those accepted but with no request yet once it is answered or their
 * header timeout has passed (a client may have sent it already). Returns
 * 0, or -1 when connections were still open at the deadline (the requests
 * still in flight in *left when `left` is not NULL).
 */
int server_drain(struct server *server, unsigned timeout_ms, long *left);

/* Stops the server (closing every connection) and frees it; accepts NULL. */
void server_stop(struct server *server);

#endif
