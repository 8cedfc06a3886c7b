/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * server.c - libmicrohttpd with GnuTLS: routing, request bodies, answers,
 * the per-request log line and metrics, draining.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <microhttpd.h>

#include "admission.h"
#include "arena.h"
#include "buf.h"
#include "linger.h"
#include "log.h"
#include "metrics.h"
#include "registration.h"
#include "server.h"

/*
 * libmicrohttpd's own connection limit lies above ours by this much (and
 * an eighth), so that it keeps accepting while the oldest idle connection
 * is closed to make room (see watch_add).
 */
#define SERVER_CONNECTION_SLACK 64
/*
 * Memory of a connection (libmicrohttpd's pool: its read buffer, the
 * request head, the answer's head). The pool is zeroed after every
 * request, so its size is paid per request: the default 32 KiB is half of
 * what the HTTP and TLS work of a small request costs. An API server's
 * request head takes a few hundred bytes; a head that does not fit is
 * answered 431. Bodies are read through it in pieces of any size.
 */
#define SERVER_CONNECTION_MEMORY ((size_t)12 << 10)
/* Request bodies held at once, in units of max_body: bounds memory. */
#define SERVER_BODY_BUDGET_FACTOR 8
/*
 * The body budget is taken as bytes arrive, in steps of this many (not
 * from the announced Content-Length: a client that announces 7 MiB and
 * sends nothing holds nothing), and one client address holds at most
 * 1/SERVER_BODY_ADDRESS_SHARE of it.
 */
#define SERVER_BODY_STEP ((size_t)64 << 10)
#define SERVER_BODY_ADDRESS_SHARE 2
/*
 * A body is stalled when, this long after its head, nothing of it has
 * come for as long, or it has come at less than this many bytes a second:
 * such a connection is closed to make room, for the body budget or the
 * connection limit. An API server sends a review at network speed; a
 * client holding a body open on purpose sends nothing, or a trickle.
 */
#define SERVER_STALL_GRACE_MS 1000
#define SERVER_STALL_RATE 65536
/* Largest /metrics page. */
#define METRICS_PAGE_MAX ((size_t)1 << 20)
/*
 * Connections answered before their body was read are drained before
 * they are closed (linger.h): this many at once, each at most this long
 * and this many times --max-body.
 */
#define LINGER_MAX 128
#define LINGER_MS 2000
#define LINGER_BODIES 4

/* A configuration shared by the requests that started under it. */
struct config_ref {
	atomic_int refs;
	struct config *cfg;
	struct json_scan_filter *filter;  /* its prefilter */
	/* registration_hash() of cfg: what a generated registration for it
	 * names in its service paths */
	char hash[REGISTRATION_HASH_LEN + 1];
	atomic_int mismatch_logged;       /* a mismatch with it was logged */
};

struct server {
	struct MHD_Daemon *daemon;
	struct tls_store *tls;
	struct server_options opts;
	unsigned port;

	pthread_mutex_t config_lock;    /* guards `config` */
	struct config_ref *config;

	/* shutting down: /readyz answers 503, every answer asks the client
	 * to close its connection; set before `draining`, and with it */
	atomic_int unready;
	atomic_int draining;
	atomic_int started;             /* MHD messages are start-up errors before */
	atomic_long in_flight;
	size_t body_bytes;              /* reserved for request bodies (conns_lock) */
	size_t body_budget;
	MHD_socket quiesced_socket;

	/* the open connections, oldest first (see server_sweep, watch_add) */
	pthread_mutex_t conns_lock;
	struct conn_watch *conns, *conns_tail;
	unsigned n_conns;               /* in the list */
	unsigned n_shut;                /* of them, shut down and closing */
	atomic_int trim_wanted;         /* requests completed since the sweep */

	/* the memory budget of the reviews in flight (memory_lock) */
	pthread_mutex_t memory_lock;
	pthread_cond_t memory_freed;
	size_t memory_used;
	struct linger_set *linger;      /* early answers, drained on close */
};

/*
 * A connection, watched so that
 * - its first request head arrives within the header timeout of the
 *   accept (a client that connects and sends nothing, or only part of a
 *   handshake, holds a connection for that long at most);
 * - a request trickling in (slowloris: one header byte at a time keeps
 *   libmicrohttpd's idle timeout from firing) still has to arrive whole
 *   within the connection timeout;
 * - the oldest idle connection makes room when the limit is reached;
 * - a body stalled half-way makes room, for the limit or for the body
 *   budget, which each connection takes from as its body arrives;
 * - a drain knows which connections are idle, and which still owe an
 *   answer.
 * Reached from the connection through its tls_conn (tls_conn_owner).
 * Fields other than `connection` and `fd` are under conns_lock.
 */
struct conn_watch {
	struct MHD_Connection *connection;
	MHD_socket fd;
	struct timespec opened;  /* accepted */
	struct timespec since;   /* accepted, or last request completed */
	unsigned requests;       /* request heads read whole */
	int active;              /* a request under way, from its request line */
	int shut;
	int linger;              /* answered before its body: drain on close */
	int family;              /* of the client address: AF_INET, AF_INET6, 0 */
	unsigned char address[16];
	int in_body;             /* its request head is whole, the body to come */
	struct timespec body_start;   /* the head of that request came */
	struct timespec body_last;    /* its last bytes came (or its head) */
	size_t body_received;    /* body bytes of that request so far */
	size_t body_reserved;    /* of the server's body budget */
	struct conn_watch *prev, *next;
};

/* One HTTP request, from its headers to its completion. */
struct request {
	enum metrics_path path;
	struct timespec start;
	struct buf body;
	size_t reserved;                /* of the body budget (the watch's) */
	size_t received;                /* body bytes received */
	int status;                     /* queued status; 0 before */
	int too_large;                  /* body dropped: 413 or 503 to answer */
	int rejected;                   /* connection dropped */
	int logged;                     /* its log line is written */
	int early;                      /* in the first call: no body read yet */
	int must_close;                 /* the connection ends after the answer */
	/* the registration entry of a review path, and the hash it names
	 * ("" when none) */
	enum registration_route route;
	char hash[REGISTRATION_HASH_LEN + 1];
};

static void watch_head(struct server *srv, struct MHD_Connection *connection);
static void watch_body(struct server *srv, struct MHD_Connection *connection,
		       int coming);
static void watch_progress(struct server *srv,
			   struct MHD_Connection *connection, size_t n);
static void watch_done(struct server *srv, struct MHD_Connection *connection);
static void watch_set_linger(struct server *srv,
			     struct MHD_Connection *connection);
static int body_announced(struct MHD_Connection *connection);

static double elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - since->tv_sec) * 1e3 +
	       (double)(now.tv_nsec - since->tv_nsec) / 1e6;
}

static uint64_t elapsed_ns(const struct timespec *since)
{
	struct timespec now;
	long long ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (long long)(now.tv_sec - since->tv_sec) * 1000000000LL +
	     (now.tv_nsec - since->tv_nsec);
	return ns > 0 ? (uint64_t)ns : 0;
}

/* ------------------------------------------------------------------ */
/* The configuration                                                   */

static struct config_ref *config_ref_new(struct config *cfg_new)
{
	struct config_ref *ref = malloc(sizeof(*ref));

	if (!ref || !(ref->filter = json_scan_filter_new(cfg_new, 0))) {
		free(ref);
		config_free(cfg_new);
		return NULL;
	}
	if (registration_hash(cfg_new, ref->hash) != 0) {
		json_scan_filter_free(ref->filter);
		free(ref);
		config_free(cfg_new);
		return NULL;
	}
	atomic_init(&ref->mismatch_logged, 0);
	atomic_init(&ref->refs, 1);
	ref->cfg = cfg_new;
	return ref;
}

static void config_ref_put(struct config_ref *ref)
{
	if (ref && atomic_fetch_sub(&ref->refs, 1) == 1) {
		json_scan_filter_free(ref->filter);
		config_free(ref->cfg);
		free(ref);
	}
}

static struct config_ref *config_acquire(struct server *srv)
{
	struct config_ref *ref;

	pthread_mutex_lock(&srv->config_lock);
	ref = srv->config;
	atomic_fetch_add(&ref->refs, 1);
	pthread_mutex_unlock(&srv->config_lock);
	return ref;
}

void server_set_config(struct server *server, struct config *cfg_new)
{
	struct config_ref *ref = config_ref_new(cfg_new), *old;

	if (!ref) {
		log_error_event(LOG_LEVEL_ERROR, "config not replaced",
				"out of memory");
		return;
	}
	pthread_mutex_lock(&server->config_lock);
	old = server->config;
	server->config = ref;
	pthread_mutex_unlock(&server->config_lock);
	config_ref_put(old);
}

/* ------------------------------------------------------------------ */
/* Answers                                                             */

/* The client's address as text, for the log. */
static void remote_address(struct MHD_Connection *connection, char *out,
			   size_t size)
{
	const union MHD_ConnectionInfo *info;
	const struct sockaddr *sa;

	if (size >= 2)
		memcpy(out, "?", 2);
	info = MHD_get_connection_info(connection,
				       MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!info || !(sa = info->client_addr))
		return;
	if (sa->sa_family == AF_INET && size >= 16) {
		const struct sockaddr_in *v4 = (const void *)sa;
		const unsigned char *a = (const void *)&v4->sin_addr;

		/* inet_ntop's dotted quad, without its printf */
		for (int i = 0; i < 4; i++) {
			if (a[i] >= 100)
				*out++ = (char)('0' + a[i] / 100);
			if (a[i] >= 10)
				*out++ = (char)('0' + a[i] / 10 % 10);
			*out++ = (char)('0' + a[i] % 10);
			*out++ = i < 3 ? '.' : '\0';
		}
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *v6 = (const void *)sa;

		inet_ntop(AF_INET6, &v6->sin6_addr, out, (socklen_t)size);
	}
}

/*
 * Queues `len` bytes of `data` with `status`. With `owned`, `data` came
 * from malloc and is handed over (freed also on failure).
 */
static enum MHD_Result respond(struct server *srv,
			       struct MHD_Connection *connection,
			       struct request *req, int status,
			       const char *content_type, const char *data,
			       size_t len, int owned, const char *allow)
{
	struct MHD_Response *response;
	enum MHD_Result ret;

	response = MHD_create_response_from_buffer(len, (void *)data,
						   owned ? MHD_RESPMEM_MUST_FREE
							 : MHD_RESPMEM_PERSISTENT);
	if (!response) {
		if (owned)
			free((void *)data);
		return MHD_NO;
	}
	MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE,
				content_type);
	MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL,
				"no-store");
	if (allow)
		MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, allow);
	if (atomic_load(&srv->unready) || req->must_close)
		MHD_add_response_header(response, MHD_HTTP_HEADER_CONNECTION,
					"close");
	ret = MHD_queue_response(connection, (unsigned)status, response);
	MHD_destroy_response(response);
	if (ret == MHD_YES) {
		req->status = status;
		metrics_count_request(req->path, status);
		/* answered before a body it announced: the body is still to
		 * come, and the connection is drained on close (linger.h) */
		if (req->early && body_announced(connection))
			watch_set_linger(srv, connection);
	}
	return ret;
}

static enum MHD_Result respond_text(struct server *srv,
				    struct MHD_Connection *connection,
				    struct request *req, int status,
				    const char *text, const char *allow)
{
	return respond(srv, connection, req, status, "text/plain; charset=utf-8",
		       text, strlen(text), 0, allow);
}

/* Logs a request that was turned away before any review. */
static void log_rejected(struct MHD_Connection *connection,
			 struct request *req, const char *method,
			 const char *url, int status, const char *why)
{
	enum log_level level = req->path == METRICS_PATH_MUTATE ?
			       LOG_LEVEL_WARN : LOG_LEVEL_DEBUG;
	char remote[64];

	req->logged = 1;
	if (!log_enabled(level))
		return;
	remote_address(connection, remote, sizeof(remote));
	log_event(level, "request rejected",
		  json_pack("{s:o*, s:o*, s:i, s:s, s:s, s:f}",
			    "method", log_string(method),
			    "path", log_string(url), "status", status,
			    "error", why, "remote", remote,
			    "duration_ms", elapsed_ms(&req->start)));
}

static enum MHD_Result reject(struct server *srv,
			      struct MHD_Connection *connection,
			      struct request *req, const char *method,
			      const char *url, int status, const char *text,
			      const char *allow)
{
	char line[256], *copy;

	snprintf(line, sizeof(line), "%s\n", text);
	log_rejected(connection, req, method, url, status, text);
	if (!(copy = strdup(line)))
		return MHD_NO;
	return respond(srv, connection, req, status,
		       "text/plain; charset=utf-8", copy, strlen(copy), 1,
		       allow);
}

/* ------------------------------------------------------------------ */
/* Routes                                                              */

static enum MHD_Result serve_metrics(struct server *srv,
				     struct MHD_Connection *connection,
				     struct request *req)
{
	struct buf page;
	char *text;
	size_t len;

	buf_init(&page, METRICS_PAGE_MAX);
	metrics_set_ready(!atomic_load(&srv->unready));
	if (metrics_render(&page) != 0) {
		buf_free(&page);
		metrics_count_error(METRICS_ERROR_INTERNAL);
		return respond_text(srv, connection, req, 500,
				    "cannot render the metrics\n", NULL);
	}
	text = buf_detach(&page, &len);
	if (!text)
		return MHD_NO;
	return respond(srv, connection, req, 200,
		       "text/plain; version=0.0.4; charset=utf-8", text, len, 1,
		       NULL);
}

/*
 * Ready: a certificate and a config loaded (the config always is: the
 * server starts with one and only ever swaps it), and not shutting down.
 */
static enum MHD_Result serve_readyz(struct server *srv,
				    struct MHD_Connection *connection,
				    struct request *req)
{
	struct tls_info info;

	if (atomic_load(&srv->draining))
		return respond_text(srv, connection, req, 503, "draining\n",
				    NULL);
	if (atomic_load(&srv->unready))
		return respond_text(srv, connection, req, 503,
				    "shutting down\n", NULL);
	if (tls_store_info(srv->tls, &info) != 0)
		return respond_text(srv, connection, req, 503,
				    "not loaded\n", NULL);
	return respond_text(srv, connection, req, 200, "ready\n", NULL);
}

/* 1 when the Content-Type is application/json (parameters allowed). */
static int is_json(const char *content_type)
{
	static const char media[] = "application/json";
	const char *rest;

	if (!content_type)
		return 0;
	while (*content_type == ' ' || *content_type == '\t')
		content_type++;
	if (strncasecmp(content_type, media, sizeof(media) - 1) != 0)
		return 0;
	rest = content_type + sizeof(media) - 1;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	return *rest == '\0' || *rest == ';';
}

/*
 * The request headers a review reads, in one pass over them: the first of
 * each name (case-insensitively, as MHD_lookup_connection_value() would
 * give it), and whether the Content-Length headers disagree.
 */
struct request_heads {
	const char *content_type;
	const char *transfer_encoding;
	const char *content_length;
	int lengths_differ;
};

static enum MHD_Result read_head(void *cls, enum MHD_ValueKind kind,
				 const char *key, const char *value)
{
	struct request_heads *h = cls;

	(void)kind;
	if (!key)
		return MHD_YES;
	if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
		if (!h->content_length)
			h->content_length = value ? value : "";
		else if (!value || strcmp(value, h->content_length) != 0)
			h->lengths_differ = 1;
	} else if (!h->content_type &&
		   strcasecmp(key, MHD_HTTP_HEADER_CONTENT_TYPE) == 0) {
		h->content_type = value ? value : "";
	} else if (!h->transfer_encoding &&
		   strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
		h->transfer_encoding = value ? value : "";
	}
	return MHD_YES;
}

/*
 * The announced Content-Length `text` (NULL: absent): 0 and *length set,
 * 1 when absent, -1 when it is not a number (or does not fit).
 */
static int content_length(const char *text, size_t *length)
{
	size_t value = 0;

	if (!text)
		return 1;
	if (!*text)
		return -1;
	for (; *text; text++) {
		if (*text < '0' || *text > '9')
			return -1;
		if (value > (SIZE_MAX - 9) / 10)
			return -1;
		value = value * 10 + (size_t)(*text - '0');
	}
	*length = value;
	return 0;
}

static struct conn_watch *watch_of(struct MHD_Connection *connection);
static void watch_shut(struct server *srv, struct conn_watch *w);
static struct conn_watch *watch_stalled(struct server *srv,
					const struct conn_watch *except,
					const struct conn_watch *same_as,
					int holding);

/* 1 when two watches are of the same client address. */
static int same_address(const struct conn_watch *a, const struct conn_watch *b)
{
	return a->family && a->family == b->family &&
	       !memcmp(a->address, b->address,
		       a->family == AF_INET ? 4 : 16);
}

/* Body bytes held by the connections of `w`'s address. Under the lock. */
static size_t address_body_bytes(struct server *srv,
				 const struct conn_watch *w)
{
	size_t held = 0;

	if (!w->family)
		return w->body_reserved;
	for (const struct conn_watch *o = srv->conns; o; o = o->next)
		if (same_address(o, w))
			held += o->body_reserved;
	return held;
}

/*
 * Takes more of the body budget for `req`, so that it holds at least
 * `need` bytes (a step more when it can); 0, or -1 when neither the budget
 * nor the share of the client's address has room, even after closing a
 * stalled body (whose share is handed over at once: its connection is
 * shut down and reads no more).
 */
static int body_reserve(struct server *srv, struct MHD_Connection *connection,
			struct request *req, size_t need)
{
	struct conn_watch *w = watch_of(connection), *victim;
	size_t share = srv->body_budget / SERVER_BODY_ADDRESS_SHARE;
	size_t want, amount;
	int rc = -1;

	if (!w)
		return -1; /* unwatched (out of memory): no body */
	want = need + SERVER_BODY_STEP;
	if (want > srv->opts.max_body)
		want = srv->opts.max_body > need ? srv->opts.max_body : need;
	pthread_mutex_lock(&srv->conns_lock);
	for (;;) {
		size_t free_all = srv->body_budget - srv->body_bytes;
		size_t held = address_body_bytes(srv, w);
		size_t free_address = share > held ? share - held : 0;
		size_t room = free_all < free_address ? free_all : free_address;

		if (w->shut)
			break;
		amount = want - w->body_reserved;
		if (amount > room)
			amount = need - w->body_reserved;
		if (amount <= room) {
			srv->body_bytes += amount;
			w->body_reserved += amount;
			req->reserved = w->body_reserved;
			rc = 0;
			break;
		}
		/* the address's share is full: only its own stalled bodies
		 * make room for it; the budget is: any stalled body */
		victim = watch_stalled(srv, w,
				       free_address < free_all ? w : NULL, 1);
		if (!victim)
			break;
		srv->body_bytes -= victim->body_reserved;
		victim->body_reserved = 0;
		watch_shut(srv, victim);
		metrics_count_error(METRICS_ERROR_EVICTED);
	}
	pthread_mutex_unlock(&srv->conns_lock);
	return rc;
}

/* Gives the body budget of the connection's request back. */
static void body_release(struct server *srv, struct MHD_Connection *connection,
			 struct request *req)
{
	struct conn_watch *w = watch_of(connection);

	req->reserved = 0;
	if (!w)
		return;
	pthread_mutex_lock(&srv->conns_lock);
	srv->body_bytes -= w->body_reserved;
	w->body_reserved = 0;
	pthread_mutex_unlock(&srv->conns_lock);
}

/* The log line of one review. */
static void log_review(struct MHD_Connection *connection, struct request *req,
		       const struct admission_outcome *out, uint64_t review_ns)
{
	enum log_level level = out->failure != ADMISSION_OK ? LOG_LEVEL_WARN
							    : LOG_LEVEL_INFO;
	struct log_line line;
	size_t findings = 0;
	char remote[64];
	int first = 1;

	req->logged = 1;
	if (log_line_begin(&line, level, "admission review") != 0)
		return;
	remote_address(connection, remote, sizeof(remote));
	log_line_string(&line, "uid", out->uid);
	log_line_string(&line, "api_version", out->api_version);
	log_line_string(&line, "kind", out->kind);
	log_line_string(&line, "namespace", out->namespace_name);
	log_line_string(&line, "name", out->name);
	log_line_string(&line, "operation", out->operation);
	log_line_bool(&line, "dry_run", out->dry_run);
	/* the registration entry it came through (none on plain /mutate) */
	if (req->route != REGISTRATION_PLAIN)
		log_line_string(&line, "entry", req->route == REGISTRATION_LEGACY ?
				"legacy" : "advisory");
	/* left alone: a controller's copy of its template */
	if (out->owner)
		log_line_string(&line, "owner", out->owner);
	/* "rules": the names of the rules that changed the object */
	if (!line.failed && buf_puts(&line.text, ",\"rules\":["))
		line.failed = 1;
	for (int r = 0; r < RULE_COUNT; r++) {
		for (int s = 0; s < 3; s++)
			findings += out->findings[r][s];
		if (!(out->mutated_rules & 1u << r) || line.failed)
			continue;
		if ((!first && buf_putc(&line.text, ',')) ||
		    buf_putc(&line.text, '"') ||
		    buf_puts(&line.text, rule_info_get((enum rule_id)r)->name) ||
		    buf_putc(&line.text, '"'))
			line.failed = 1;
		first = 0;
	}
	if (!line.failed && buf_putc(&line.text, ']'))
		line.failed = 1;
	log_line_int(&line, "findings", (long long)findings);
	log_line_int(&line, "warnings", (long long)out->n_warnings);
	log_line_bool(&line, "allowed", out->allowed);
	log_line_bool(&line, "patched", out->patched);
	log_line_int(&line, "status", out->http_status);
	log_line_string(&line, "remote", remote);
	log_line_ms(&line, "review_ms", (double)review_ns / 1e6);
	log_line_ms(&line, "duration_ms", elapsed_ms(&req->start));
	if (out->failure != ADMISSION_OK)
		log_line_string(&line, "error", out->error);
	log_line_end(&line);
}

static void count_review(const struct admission_outcome *out)
{
	for (int r = 0; r < RULE_COUNT; r++) {
		if (out->mutated_rules & 1u << r)
			metrics_count_mutation((enum rule_id)r);
		for (int s = 0; s < 3; s++)
			for (unsigned n = 0; n < out->findings[r][s]; n++)
				metrics_count_finding((enum rule_id)r,
						      (enum severity)s);
	}
	if (out->failure == ADMISSION_BAD_REQUEST)
		metrics_count_error(METRICS_ERROR_BAD_REQUEST);
	else if (out->failure == ADMISSION_INTERNAL)
		metrics_count_error(METRICS_ERROR_INTERNAL);
}

/*
 * Takes `amount` bytes of the memory budget, waiting at most
 * SERVER_MEMORY_WAIT_MS for reviews in flight to give some back; an
 * amount larger than the whole budget waits until nothing else is in
 * flight and takes it all. 0, or -1 when the wait was in vain.
 */
static int memory_take(struct server *srv, size_t *amount)
{
	struct timespec deadline;
	int rc = 0;

	if (!srv->opts.memory_budget) {
		*amount = 0;
		return 0;
	}
	if (*amount > srv->opts.memory_budget)
		*amount = srv->opts.memory_budget;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += SERVER_MEMORY_WAIT_MS / 1000;
	deadline.tv_nsec += (long)(SERVER_MEMORY_WAIT_MS % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&srv->memory_lock);
	while (*amount > srv->opts.memory_budget - srv->memory_used && rc == 0)
		rc = pthread_cond_timedwait(&srv->memory_freed,
					    &srv->memory_lock, &deadline);
	if (*amount <= srv->opts.memory_budget - srv->memory_used) {
		srv->memory_used += *amount;
		rc = 0;
	} else {
		rc = -1;
	}
	pthread_mutex_unlock(&srv->memory_lock);
	return rc;
}

static void memory_give(struct server *srv, size_t amount)
{
	if (!amount)
		return;
	pthread_mutex_lock(&srv->memory_lock);
	srv->memory_used -= amount;
	pthread_cond_broadcast(&srv->memory_freed);
	pthread_mutex_unlock(&srv->memory_lock);
}

/*
 * The registration that sent a review was made for the config whose hash
 * its path names: another than the one loaded means its conditions may
 * not send objects the rules now act on. Said once per config loaded, and
 * in a gauge; the review is served all the same.
 */
static void check_hash(struct config_ref *config, const char *hash)
{
	int mismatch = strcmp(hash, config->hash) != 0;

	metrics_set_config_hash_mismatch(mismatch);
	if (mismatch && !atomic_exchange(&config->mismatch_logged, 1))
		log_event(LOG_LEVEL_WARN,
			  "registration made for another config",
			  json_pack("{s:s,s:s,s:s}", "registration_hash", hash,
				    "config_hash", config->hash, "fix",
				    "regenerate it: gpumend webhook-config -c CONFIG | kubectl apply -f -"));
}

/* The whole body is in: review it and answer. */
static enum MHD_Result serve_review(struct server *srv,
				    struct MHD_Connection *connection,
				    struct request *req)
{
	const char *text = req->body.data ? req->body.data : "";
	struct admission_outcome out;
	struct config_ref *config;
	struct config entry;
	struct timespec start;
	uint64_t review_ns;
	enum MHD_Result ret;
	size_t memory;
	char *body;
	int rc, overloaded;

	memory = admission_memory_estimate(text, req->body.len);
	/* a review the memory budget has no room for in time is not done:
	 * answered as an internal failure (per the failure policy) from
	 * what the answer needs, which takes next to nothing; the wait is
	 * in the request's duration, not in the review's */
	overloaded = memory_take(srv, &memory) != 0;
	clock_gettime(CLOCK_MONOTONIC, &start);
	config = config_acquire(srv);
	if (req->hash[0])
		check_hash(config, req->hash);
	admission_outcome_init(&out);
	json_arena_begin();
	/* a failure is answered as the entry's failurePolicy says; plain
	 * /mutate (older registrations) as webhook.failurePolicy does: the
	 * review reads a copy of the config's members with that answer */
	entry = *config->cfg;
	if (req->route != REGISTRATION_PLAIN)
		entry.failure_allow = req->route == REGISTRATION_ADVISORY;
	if (overloaded)
		rc = admission_refuse(&entry, text, req->body.len,
				      "the webhook is overloaded: no memory for the review in time; retry",
				      &out);
	else
		rc = admission_review_filtered(&entry, config->filter,
					       text, req->body.len, &out);
	json_arena_end();
	config_ref_put(config);
	memory_give(srv, overloaded ? 0 : memory);
	/* the body is no longer needed: give its memory back now */
	buf_free(&req->body);
	review_ns = elapsed_ns(&start);
	metrics_observe_admission(review_ns);
	if (rc != 0) {
		metrics_count_error(METRICS_ERROR_INTERNAL);
		out.http_status = 500;
		out.failure = ADMISSION_INTERNAL;
		snprintf(out.error, sizeof(out.error), "out of memory");
		log_review(connection, req, &out, review_ns);
		admission_outcome_clear(&out);
		return respond_text(srv, connection, req, 500,
				    "internal error: out of memory\n", NULL);
	}
	/* an internal failure, and of these one for want of memory */
	count_review(&out);
	if (overloaded)
		metrics_count_error(METRICS_ERROR_OVERLOADED);
	log_review(connection, req, &out, review_ns);
	body = out.body;
	out.body = NULL;
	ret = respond(srv, connection, req, out.http_status,
		      out.http_status == 200 ? "application/json"
					     : "text/plain; charset=utf-8",
		      body, out.body_len, 1, NULL);
	admission_outcome_clear(&out);
	return ret;
}

/* The first call for a request: route it, answer what needs no body. */
/*
 * 1 when the client presented a certificate that the client CA signed,
 * valid now, and meant for client authentication: an extended key usage
 * that leaves clientAuth out (a serving certificate, say the webhook's
 * own) is refused at every link of the chain, as the API server's own
 * verifier does; a certificate without that extension is not restricted
 * (RFC 5280 4.2.1.12).
 */
static int client_verified(struct MHD_Connection *connection)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(
		connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	gnutls_typed_vdata_st purpose = {
		.type = GNUTLS_DT_KEY_PURPOSE_OID,
		.data = (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT,
		.size = 0
	};
	gnutls_session_t session;
	unsigned int status = 0, n = 0;

	if (!info || !info->tls_session)
		return 0;
	session = (gnutls_session_t)info->tls_session;
	if (!gnutls_certificate_get_peers(session, &n) || n == 0)
		return 0;
	return gnutls_certificate_verify_peers(session, &purpose, 1, &status) ==
		       GNUTLS_E_SUCCESS && status == 0;
}

static enum MHD_Result route(struct server *srv,
			     struct MHD_Connection *connection,
			     struct request *req, const char *url,
			     const char *method)
{
	int is_get = !strcmp(method, MHD_HTTP_METHOD_GET) ||
		     !strcmp(method, MHD_HTTP_METHOD_HEAD);
	struct request_heads heads = { NULL, NULL, NULL, 0 };
	size_t length = 0;
	int has_length;

	MHD_get_connection_values(connection, MHD_HEADER_KIND, read_head,
				  &heads);
	/* RFC 9112 6.1: with both, chunked wins over the Content-Length, and
	 * the connection must be closed after the answer (what a proxy on
	 * the way made of such a message is in doubt: request smuggling) */
	if (heads.transfer_encoding && heads.content_length)
		req->must_close = 1;
	if (req->path == METRICS_PATH_OTHER)
		return reject(srv, connection, req, method, url, 404,
			      "not found", NULL);
	if (req->path != METRICS_PATH_MUTATE) {
		if (!is_get)
			return reject(srv, connection, req, method, url, 405,
				      "method not allowed", "GET, HEAD");
		if (req->path == METRICS_PATH_HEALTHZ)
			return respond_text(srv, connection, req, 200, "ok\n",
					    NULL);
		if (req->path == METRICS_PATH_READYZ)
			return serve_readyz(srv, connection, req);
		return serve_metrics(srv, connection, req);
	}

	if (srv->opts.client_ca_pem && !client_verified(connection))
		return reject(srv, connection, req, method, url, 403,
			      "a client certificate signed by the client CA is required",
			      NULL);
	if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
		return reject(srv, connection, req, method, url, 405,
			      "method not allowed", "POST");
	if (!is_json(heads.content_type))
		return reject(srv, connection, req, method, url, 415,
			      "Content-Type must be application/json", NULL);
	/* RFC 9112 6.1, 6.3: a body whose length is ambiguous is refused */
	if (heads.lengths_differ)
		return reject(srv, connection, req, method, url, 400,
			      "conflicting Content-Length headers", NULL);
	if (heads.transfer_encoding &&
	    strcasecmp(heads.transfer_encoding, "chunked") != 0)
		return reject(srv, connection, req, method, url, 501,
			      "only the chunked transfer coding is supported",
			      NULL);
	has_length = content_length(heads.content_length, &length);
	if (has_length < 0 || (has_length == 0 && length > srv->opts.max_body))
		return reject(srv, connection, req, method, url, 413,
			      "request body too large", NULL);
	/* the body budget is taken as the body comes (body_reserve) */
	watch_body(srv, connection, 1);
	return MHD_YES;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *connection,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	struct server *srv = cls;
	struct request *req = *req_cls;
	enum MHD_Result ret;

	(void)version;
	if (!req) {
		if (!(req = calloc(1, sizeof(*req))))
			return MHD_NO;
		clock_gettime(CLOCK_MONOTONIC, &req->start);
		buf_init(&req->body, srv->opts.max_body);
		if (!registration_path_parse(url, &req->route, req->hash))
			req->path = METRICS_PATH_MUTATE;
		else if (!strcmp(url, "/healthz"))
			req->path = METRICS_PATH_HEALTHZ;
		else if (!strcmp(url, "/readyz"))
			req->path = METRICS_PATH_READYZ;
		else if (!strcmp(url, "/metrics"))
			req->path = METRICS_PATH_METRICS;
		else
			req->path = METRICS_PATH_OTHER;
		*req_cls = req;
		watch_head(srv, connection);
		atomic_fetch_add(&srv->in_flight, 1);
		metrics_add_in_flight(1);
		req->early = 1;
		ret = route(srv, connection, req, url, method);
		req->early = 0;
		return ret;
	}
	if (req->status) {
		/* answered already: the rest of the body is not wanted */
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (*upload_data_size) {
		size_t n = *upload_data_size;

		*upload_data_size = 0;
		req->received += n;
		/* the connection timeout counts idle time only: a body that
		 * trickles in (slow POST) must still arrive within it */
		if (srv->opts.connection_timeout &&
		    elapsed_ms(&req->start) > 1000.0 * srv->opts.connection_timeout) {
			req->rejected = 1;
			metrics_count_request(req->path, 408);
			log_rejected(connection, req, method, url, 408,
				     "request body too slow (connection closed)");
			return MHD_NO;
		}
		if (req->too_large) {
			/*
			 * libmicrohttpd cannot answer in the middle of a body:
			 * the rest is read and dropped to answer 413 at its
			 * end, unless it goes on far past the cap.
			 */
			if (req->received / 2 > srv->opts.max_body) {
				req->rejected = 1;
				metrics_count_request(req->path, 413);
				log_rejected(connection, req, method, url, 413,
					     "request body too large (connection closed)");
				return MHD_NO;
			}
			return MHD_YES;
		}
		watch_progress(srv, connection, n);
		if (req->body.len + n > req->reserved &&
		    req->body.len + n <= srv->opts.max_body &&
		    body_reserve(srv, connection, req, req->body.len + n)) {
			req->too_large = 503;
			buf_free(&req->body);
			body_release(srv, connection, req);
		} else if (buf_append(&req->body, upload_data, n) != 0) {
			/* past the cap with no Content-Length (chunked) */
			req->too_large = 413;
			buf_free(&req->body);
		}
		return MHD_YES;
	}
	watch_body(srv, connection, 0);
	if (req->too_large == 503)
		return reject(srv, connection, req, method, url, 503,
			      "too many request bodies in flight; retry", NULL);
	if (req->too_large)
		return reject(srv, connection, req, method, url, 413,
			      "request body too large", NULL);
	return serve_review(srv, connection, req);
}

static void request_completed(void *cls, struct MHD_Connection *connection,
			      void **req_cls,
			      enum MHD_RequestTerminationCode toe)
{
	struct server *srv = cls;
	struct request *req = *req_cls;
	int trim;

	if (!req)
		return;
	watch_done(srv, connection);
	if (!req->logged && log_enabled(LOG_LEVEL_DEBUG)) {
		/* probes and scrapes: only worth a line when debugging */
		char remote[64];

		remote_address(connection, remote, sizeof(remote));
		log_event(LOG_LEVEL_DEBUG, req->status ? "request"
						       : "request abandoned",
			  json_pack("{s:s, s:i, s:i, s:s, s:f}",
				    "path", metrics_path_name(req->path),
				    "status", req->status,
				    "termination", (int)toe, "remote", remote,
				    "duration_ms", elapsed_ms(&req->start)));
	}
	/* a large body leaves its pages with the allocator: give them back */
	trim = req->body.alloc > ((size_t)1 << 20) ||
	       req->received > ((size_t)1 << 20);
	buf_free(&req->body);
	body_release(srv, connection, req);
	free(req);
	if (trim)
		malloc_trim(0);
	else
		atomic_store(&srv->trim_wanted, 1);
	*req_cls = NULL;
	metrics_add_in_flight(-1);
	atomic_fetch_sub(&srv->in_flight, 1);
}

/* The watch of a connection; NULL when it has none. */
static struct conn_watch *watch_of(struct MHD_Connection *connection)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(
		connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return info ? tls_conn_owner(info->socket_context) : NULL;
}

/* Shuts a connection down: libmicrohttpd sees it end and closes it (the
 * fd stays open until it does, and it tells us before). Under the lock. */
static void watch_shut(struct server *srv, struct conn_watch *w)
{
	shutdown(w->fd, SHUT_RDWR);
	w->shut = 1;
	srv->n_shut++;
}

/*
 * Of the connections whose request body is stalled (SERVER_STALL_GRACE_MS
 * after its head, nothing for as long, or less than SERVER_STALL_RATE
 * bytes a second), the one that has sent nothing for the longest: not
 * `except`, of the address of `same_as` when that is not NULL, holding
 * some of the body budget when `holding`. NULL when none is. Under the
 * lock.
 */
static struct conn_watch *watch_stalled(struct server *srv,
					const struct conn_watch *except,
					const struct conn_watch *same_as,
					int holding)
{
	struct conn_watch *stalled = NULL;
	double stalled_ms = -1;

	for (struct conn_watch *w = srv->conns; w; w = w->next) {
		double ms, quiet_ms;

		if (w->shut || w == except || !w->in_body ||
		    (holding && !w->body_reserved) ||
		    (same_as && !same_address(w, same_as)))
			continue;
		ms = elapsed_ms(&w->body_start);
		if (ms < SERVER_STALL_GRACE_MS)
			continue;
		quiet_ms = elapsed_ms(&w->body_last);
		if (quiet_ms < SERVER_STALL_GRACE_MS &&
		    (double)w->body_received * 1000.0 / ms >= SERVER_STALL_RATE)
			continue;
		if (quiet_ms > stalled_ms) {
			stalled = w;
			stalled_ms = quiet_ms;
		}
	}
	return stalled;
}

/*
 * Over the connection limit: the oldest connection that has not sent a
 * whole request head yet (nothing, a part of a handshake, a request line
 * and no more: no request of it is being served), else the one whose
 * body is stalled (watch_stalled), else the oldest idle kept-alive one,
 * else the newest (the one just accepted) is closed. A flood of
 * connections that send nothing, or never finish, so ages out instead of
 * starving the API server's. Under the lock.
 */
static void watch_make_room(struct server *srv, struct conn_watch *newest)
{
	struct conn_watch *w, *idle = NULL;

	for (w = srv->conns; w; w = w->next) {
		if (w->shut || w == newest)
			continue;
		if (!w->requests)
			break;
		if (!w->active && !idle)
			idle = w;
	}
	if (!w)
		w = watch_stalled(srv, newest, NULL, 0);
	if (!w)
		w = idle ? idle : newest;
	if (w->body_reserved) {
		srv->body_bytes -= w->body_reserved;
		w->body_reserved = 0;
	}
	watch_shut(srv, w);
	metrics_count_error(METRICS_ERROR_EVICTED);
}

/* Keeps the connection's client address, for the share of the budget. */
static void watch_address(struct conn_watch *w,
			  struct MHD_Connection *connection)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(
		connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = info ? info->client_addr : NULL;

	if (!sa)
		return;
	if (sa->sa_family == AF_INET) {
		memcpy(w->address,
		       &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
		w->family = AF_INET;
	} else if (sa->sa_family == AF_INET6) {
		memcpy(w->address,
		       &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
		w->family = AF_INET6;
	}
}

static void watch_add(struct server *srv, struct MHD_Connection *connection,
		      struct tls_conn *tls)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(
		connection, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct conn_watch *w;

	if (!info || !(w = calloc(1, sizeof(*w))))
		return; /* unwatched: the idle timeout still applies */
	w->connection = connection;
	w->fd = info->connect_fd;
	watch_address(w, connection);
	clock_gettime(CLOCK_MONOTONIC, &w->opened);
	w->since = w->opened;
	tls_conn_set_owner(tls, w);
	pthread_mutex_lock(&srv->conns_lock);
	w->prev = srv->conns_tail;
	if (srv->conns_tail)
		srv->conns_tail->next = w;
	else
		srv->conns = w;
	srv->conns_tail = w;
	srv->n_conns++;
	if (srv->n_conns - srv->n_shut > srv->opts.max_connections)
		watch_make_room(srv, w);
	pthread_mutex_unlock(&srv->conns_lock);
}

/* Forgets a connection that closes; 1 when it is to be drained first
 * (answered before its body, and not shut by us). */
static int watch_remove(struct server *srv, struct conn_watch *w)
{
	int linger;

	pthread_mutex_lock(&srv->conns_lock);
	linger = w->linger && !w->shut;
	if (w->prev)
		w->prev->next = w->next;
	else
		srv->conns = w->next;
	if (w->next)
		w->next->prev = w->prev;
	else
		srv->conns_tail = w->prev;
	srv->n_conns--;
	if (w->shut)
		srv->n_shut--;
	pthread_mutex_unlock(&srv->conns_lock);
	free(w);
	return linger;
}

/* A request line has come: a request is under way on the connection. */
static void *uri_logged(void *cls, const char *uri,
			struct MHD_Connection *connection)
{
	struct server *srv = cls;
	struct conn_watch *w = watch_of(connection);

	(void)uri;
	if (w) {
		pthread_mutex_lock(&srv->conns_lock);
		w->active = 1;
		pthread_mutex_unlock(&srv->conns_lock);
	}
	return NULL; /* the request's state is made by the first call */
}

/* The request's head is whole (the handler's first call). */
static void watch_head(struct server *srv, struct MHD_Connection *connection)
{
	struct conn_watch *w = watch_of(connection);

	if (!w)
		return;
	pthread_mutex_lock(&srv->conns_lock);
	w->requests++;
	w->active = 1;
	pthread_mutex_unlock(&srv->conns_lock);
}

/*
 * `coming` 1: a request body is to come on the connection (the head is
 * whole); 0: it is whole, and its review is no stall (it keeps its
 * share of the body budget).
 */
static void watch_body(struct server *srv, struct MHD_Connection *connection,
		       int coming)
{
	struct conn_watch *w = watch_of(connection);

	if (!w)
		return;
	pthread_mutex_lock(&srv->conns_lock);
	w->in_body = coming;
	if (coming) {
		w->body_received = 0;
		clock_gettime(CLOCK_MONOTONIC, &w->body_start);
		w->body_last = w->body_start;
	}
	pthread_mutex_unlock(&srv->conns_lock);
}

/* `n` more bytes of the body came. */
static void watch_progress(struct server *srv,
			   struct MHD_Connection *connection, size_t n)
{
	struct conn_watch *w = watch_of(connection);

	if (!w)
		return;
	pthread_mutex_lock(&srv->conns_lock);
	w->body_received += n;
	clock_gettime(CLOCK_MONOTONIC, &w->body_last);
	pthread_mutex_unlock(&srv->conns_lock);
}

/* The request is done: the connection is idle, its clock restarts. */
static void watch_done(struct server *srv, struct MHD_Connection *connection)
{
	struct conn_watch *w = watch_of(connection);

	if (!w)
		return;
	pthread_mutex_lock(&srv->conns_lock);
	w->active = 0;
	w->in_body = 0;
	clock_gettime(CLOCK_MONOTONIC, &w->since);
	pthread_mutex_unlock(&srv->conns_lock);
}

/* The connection's answer comes before its body: see linger.h. */
static void watch_set_linger(struct server *srv,
			     struct MHD_Connection *connection)
{
	struct conn_watch *w = watch_of(connection);

	if (!w)
		return;
	pthread_mutex_lock(&srv->conns_lock);
	w->linger = 1;
	pthread_mutex_unlock(&srv->conns_lock);
}

/* 1 when the request announces a body (Content-Length > 0, or chunked). */
static int body_announced(struct MHD_Connection *connection)
{
	const char *length = MHD_lookup_connection_value(
		connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);

	if (MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_TRANSFER_ENCODING))
		return 1;
	if (!length)
		return 0;
	while (*length == '0')
		length++;
	return *length != '\0';
}

/* 1 when bytes wait unread on the connection's socket (a request coming). */
static int input_pending(MHD_socket fd)
{
	int n = 0;

	return ioctl(fd, FIONREAD, &n) == 0 && n > 0;
}

/*
 * Shuts down the connections past their deadlines; while draining, also
 * the idle kept-alive ones. Returns the connections still open.
 */
static unsigned sweep(struct server *srv, int draining)
{
	double limit = 1000.0 * srv->opts.connection_timeout;
	double head_limit = 1000.0 * srv->opts.header_timeout;
	unsigned open;

	pthread_mutex_lock(&srv->conns_lock);
	for (struct conn_watch *w = srv->conns; w; w = w->next) {
		if (w->shut)
			continue;
		if (!w->requests && srv->opts.header_timeout &&
		    elapsed_ms(&w->opened) > head_limit) {
			/* no request head within the header timeout */
			watch_shut(srv, w);
			metrics_count_error(METRICS_ERROR_TIMEOUT);
		} else if (srv->opts.connection_timeout &&
			   elapsed_ms(&w->since) > limit) {
			watch_shut(srv, w);
			metrics_count_error(METRICS_ERROR_TIMEOUT);
		} else if (draining && w->requests && !w->active &&
			   !input_pending(w->fd)) {
			/* kept alive, idle: nothing is owed on it */
			watch_shut(srv, w);
		}
	}
	open = srv->n_conns;
	pthread_mutex_unlock(&srv->conns_lock);
	return open;
}

void server_sweep(struct server *srv)
{
	if (!srv)
		return;
	/* after requests, give what they left with the allocator back to the
	 * system (a burst of large reviews would otherwise stay resident) */
	if (atomic_exchange(&srv->trim_wanted, 0))
		malloc_trim(0);
	sweep(srv, atomic_load(&srv->draining));
}

static void notify_connection(void *cls, struct MHD_Connection *connection,
			      void **socket_context,
			      enum MHD_ConnectionNotificationCode toe)
{
	struct server *srv = cls;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		*socket_context = tls_conn_new(srv->tls);
		if (*socket_context)
			watch_add(srv, connection, *socket_context);
	} else {
		struct conn_watch *w = tls_conn_owner(*socket_context);
		MHD_socket fd = w ? w->fd : MHD_INVALID_SOCKET;

		/* libmicrohttpd closes the socket next: a duplicate keeps it
		 * open for the drain (epoll forgets it: MHD removes it) */
		if (w && watch_remove(srv, w))
			linger_add(srv->linger, fcntl(fd, F_DUPFD_CLOEXEC, 0));
		tls_conn_free(*socket_context);
		*socket_context = NULL;
	}
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct server *srv = cls;
	char text[512];
	size_t len;

	vsnprintf(text, sizeof(text), fmt, ap);
	len = strlen(text);
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		text[--len] = '\0';
	/* after start-up these are mostly clients failing their handshake */
	log_event(atomic_load(&srv->started) ? LOG_LEVEL_DEBUG : LOG_LEVEL_ERROR,
		  "libmicrohttpd", json_pack("{s:o*}", "detail", log_string(text)));
}

/* ------------------------------------------------------------------ */
/* Life cycle                                                          */

struct server *server_start(const struct server_options *opts,
			    struct tls_store *tls, struct config *cfg_new,
			    char *err, size_t errlen)
{
	struct server *srv = calloc(1, sizeof(*srv));
	unsigned flags = MHD_USE_TLS | MHD_USE_EPOLL_INTERNAL_THREAD |
			 MHD_USE_ITC | MHD_USE_ERROR_LOG;
	const union MHD_DaemonInfo *info;
	struct MHD_OptionItem pool[3] = {
		{ MHD_OPTION_END, 0, NULL }, { MHD_OPTION_END, 0, NULL },
		{ MHD_OPTION_END, 0, NULL }
	};
	size_t n_pool = 0;

	if (!srv) {
		config_free(cfg_new);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	srv->tls = tls;
	srv->opts = *opts;
	srv->quiesced_socket = MHD_INVALID_SOCKET;
	srv->body_budget = opts->max_body * SERVER_BODY_BUDGET_FACTOR;
	if (pthread_mutex_init(&srv->conns_lock, NULL) != 0) {
		config_free(cfg_new);
		free(srv);
		snprintf(err, errlen, "cannot create a lock");
		return NULL;
	}
	if (pthread_mutex_init(&srv->config_lock, NULL) != 0 ||
	    pthread_mutex_init(&srv->memory_lock, NULL) != 0 ||
	    pthread_cond_init(&srv->memory_freed, NULL) != 0) {
		config_free(cfg_new);
		free(srv);
		snprintf(err, errlen, "cannot create a lock");
		return NULL;
	}
	if (!(srv->config = config_ref_new(cfg_new))) {
		snprintf(err, errlen, "out of memory");
		goto out_free;
	}
	if (!(srv->linger = linger_new(LINGER_MAX, LINGER_MS,
				       LINGER_BODIES * opts->max_body))) {
		snprintf(err, errlen, "cannot start a thread");
		goto out_free;
	}
	if (opts->address.ss_family == AF_INET6) {
		const struct sockaddr_in6 *v6 = (const void *)&opts->address;

		/* [::] serves IPv4 too; a given IPv6 address only itself */
		flags |= IN6_IS_ADDR_UNSPECIFIED(&v6->sin6_addr) ?
			 MHD_USE_DUAL_STACK : MHD_USE_IPv6;
	}
	if (opts->threads > 1) {
		pool[n_pool].option = MHD_OPTION_THREAD_POOL_SIZE;
		pool[n_pool].value = (intptr_t)opts->threads;
		n_pool++;
	}
	if (opts->client_ca_pem) {
		/* handshakes then ask for a client certificate */
		pool[n_pool].option = MHD_OPTION_HTTPS_MEM_TRUST;
		pool[n_pool].ptr_value = (void *)opts->client_ca_pem;
		n_pool++;
	}
	srv->daemon = MHD_start_daemon(
		flags, 0, NULL, NULL, handle, srv,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, srv,
		MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)&srv->opts.address,
		MHD_OPTION_HTTPS_CERT_CALLBACK, tls_certificate_callback,
		MHD_OPTION_HTTPS_PRIORITIES, TLS_PRIORITIES,
		MHD_OPTION_CONNECTION_TIMEOUT, opts->connection_timeout,
		MHD_OPTION_CONNECTION_LIMIT,
		opts->max_connections + opts->max_connections / 8 +
		SERVER_CONNECTION_SLACK,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, opts->max_per_address,
		MHD_OPTION_URI_LOG_CALLBACK, uri_logged, srv,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, SERVER_CONNECTION_MEMORY,
		MHD_OPTION_NOTIFY_COMPLETED, request_completed, srv,
		MHD_OPTION_NOTIFY_CONNECTION, notify_connection, srv,
		MHD_OPTION_ARRAY, pool,
		MHD_OPTION_END);
	if (!srv->daemon) {
		snprintf(err, errlen,
			 "cannot start the HTTPS server (address in use, or not allowed?)");
		goto out_free;
	}
	info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
	srv->port = info ? info->port : 0;
	atomic_store(&srv->started, 1);
	metrics_set_ready(1);
	return srv;
out_free:
	linger_free(srv->linger);
	config_ref_put(srv->config);
	pthread_mutex_destroy(&srv->config_lock);
	pthread_mutex_destroy(&srv->memory_lock);
	pthread_cond_destroy(&srv->memory_freed);
	free(srv);
	return NULL;
}

/* The limit in bytes in the cgroup file `path`; 0 when none (or "max"). */
static size_t cgroup_limit(const char *path)
{
	char text[64];
	unsigned long long limit;
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return 0;
	ok = fgets(text, sizeof(text), f) && sscanf(text, "%llu", &limit) == 1;
	fclose(f);
	/* cgroup v1 says "no limit" with a number near 2^63 */
	if (!ok || limit == 0 || limit >= (1ULL << 60) || limit > SIZE_MAX)
		return 0;
	return (size_t)limit;
}

size_t server_memory_budget_default(void)
{
	size_t limit = cgroup_limit("/sys/fs/cgroup/memory.max");

	if (!limit)
		limit = cgroup_limit("/sys/fs/cgroup/memory/memory.limit_in_bytes");
	return limit ? limit / 2 : SERVER_MEMORY_FALLBACK;
}

unsigned server_port(const struct server *server)
{
	return server->port;
}

void server_unready(struct server *server)
{
	if (atomic_exchange(&server->unready, 1))
		return;
	metrics_set_ready(0);
}

void server_quiesce(struct server *server)
{
	server_unready(server);
	if (atomic_exchange(&server->draining, 1))
		return;
	server->quiesced_socket = MHD_quiesce_daemon(server->daemon);
	/*
	 * The socket may be closed only after MHD_stop_daemon(), but a
	 * shutdown makes the kernel refuse new connections now, instead of
	 * leaving them unanswered in the backlog.
	 */
	if (server->quiesced_socket != MHD_INVALID_SOCKET)
		shutdown(server->quiesced_socket, SHUT_RDWR);
}

int server_drain(struct server *server, unsigned timeout_ms, long *left)
{
	struct timespec start;
	unsigned open;
	long n;

	clock_gettime(CLOCK_MONOTONIC, &start);
	/*
	 * Not only the requests in flight: a connection accepted just before
	 * may carry a request not read yet (its client sent it after the
	 * handshake), and closing it would lose that request. So every
	 * connection is waited for; the sweep closes the idle ones and those
	 * past their deadlines.
	 */
	while (((open = sweep(server, 1)) > 0 ||
		(n = atomic_load(&server->in_flight)) > 0) &&
	       elapsed_ms(&start) < (double)timeout_ms) {
		struct timespec pause = { 0, 10 * 1000 * 1000 };

		nanosleep(&pause, NULL);
	}
	n = atomic_load(&server->in_flight);
	if (left)
		*left = n;
	return open > 0 || n > 0 ? -1 : 0;
}

void server_stop(struct server *server)
{
	if (!server)
		return;
	MHD_stop_daemon(server->daemon);
	linger_free(server->linger);
	if (server->quiesced_socket != MHD_INVALID_SOCKET)
		close(server->quiesced_socket);
	config_ref_put(server->config);
	pthread_mutex_destroy(&server->config_lock);
	pthread_mutex_destroy(&server->memory_lock);
	pthread_cond_destroy(&server->memory_freed);
	/* libmicrohttpd told of every close: nothing is left to free */
	pthread_mutex_destroy(&server->conns_lock);
	free(server);
}
