/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tls_client.c - a raw HTTPS client for the hostile-input tests of
 * gpumend-webhook: it sends bytes that curl will not (truncated bodies,
 * broken chunked encodings, requests written one byte at a time) and holds
 * many connections open at once, and says what the server did and when.
 *
 * usage:
 *   tls_client send PORT FILE [--chunk N] [--delay-ms N] [--responses N]
 *                   [--timeout-ms N] [--out FILE] [--tcp] [--wait-close]
 *     Connects to 127.0.0.1:PORT (TLS unless --tcp), writes FILE in pieces
 *     of N bytes (default: all at once) with a pause of --delay-ms between
 *     them, then, sending nothing more (a client that stalls when FILE
 *     holds half a request), reads responses until --responses have come
 *     (default 1), the server closes, or --timeout-ms (default 10000) from
 *     the start. The last response's body goes to --out. With
 *     --wait-close, it then waits (within the same time) for the server to
 *     close the connection. Prints one line:
 *       status S[,S...] sent N of M closed C elapsed_ms T heads H eof E
 *     status 0: no response; closed 1: the server closed the connection
 *     (or failed it) before we were done; heads: the status lines in all
 *     that came back (one per response, unless a head came twice); eof 1:
 *     the server closed the connection after the responses (--wait-close),
 *     0 it did not, -1 not asked.
 *
 *   tls_client hold PORT N SECONDS [--tcp] [--prefix FILE] [--from ADDR]
 *                   [--addresses K] [--ready FILE] [--settle-ms N]
 *     Opens N connections (and completes their handshakes unless --tcp),
 *     writes FILE on each (say, half a request), and watches them for
 *     SECONDS or until the server has closed them all. With --from, the
 *     connections come from the IPv4 address ADDR, or spread over the K
 *     addresses from ADDR up (127.0.0.2 and up are all local). Prints one
 *     line:
 *       opened N closed C first_close_ms T last_close_ms T
 *     (-1 when none closed); times count from when all were open. With
 *     --ready, once all are open and those the server refused at once are
 *     seen closed (--settle-ms, default 200), it writes "opened N held H"
 *     to FILE.
 *
 *   tls_client repeat PORT FILE COUNT [--from ADDR] [--timeout-ms N]
 *     Sends FILE (a request) COUNT times, one after the other, each on a
 *     new connection (handshake included, as an API server opening one),
 *     and times each from the connect to the whole response. Prints:
 *       answered A of N p50_ms T p99_ms T max_ms T
 *     answered: responses with status 200; times over all requests (one
 *     without an answer counts as --timeout-ms, default 5000).
 *
 *   tls_client storm PORT FILE SECONDS [--workers N]
 *     N processes (default 8) each send FILE on a new connection, one
 *     request per connection, over and over for SECONDS or until a
 *     connection is refused (the server is shutting down). Prints:
 *       sent S answered A lost L refused R
 *     sent: requests written whole; answered: those that got a whole
 *     response; lost: written whole but the connection ended without a
 *     response; refused: connections that failed before the request was
 *     written (refused, reset during the handshake).
 *
 *   tls_client rollout PORT FILE PID [--before N] [--after N] [--timeout-ms N]
 *     A client as an API server is: it sends FILE (a review) over and over
 *     on one kept-alive connection, and opens a new one only when an
 *     answer says "Connection: close". After --before reviews answered
 *     (default 20) it sends SIGTERM to PID (the server), then probes GET
 *     /readyz (each probe on a connection of its own, as the kubelet's)
 *     between reviews until it answers 503, and then sends --after more
 *     reviews (default 20): with one replica they reach the same server,
 *     which still accepts during its shutdown delay (in a cluster they
 *     would reach another replica). Then it sends SIGTERM again, which
 *     ends the delay. A review is failed when its connection could not be
 *     opened or ended without a whole answer, or the answer was not 200;
 *     everything stops at --timeout-ms (default 30000). Prints one line:
 *       answered A failed F closes_before_term C reconnects_before_term R
 *       probes P ready_503 Y answered_after_503 A2 closes_after_503 C2
 *       reconnects_after_503 R2
 *     (closes: answers with "Connection: close"; reconnects: connections
 *     opened after the first; ready_503 1 when a probe got 503).
 *
 * Exit status: 0 when it ran (whatever the server did), 2 on a usage or
 * set-up error. The certificate is not verified: the server is ours, on
 * 127.0.0.1.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

/* Largest response kept (head and body). */
#define RESPONSE_MAX ((size_t)16 << 20)
/* Most responses read from one connection. */
#define RESPONSES_MAX 16

struct connection {
	int fd;
	SSL *ssl;
	int closed;
	long long closed_ms;
};

struct send_options {
	size_t chunk;
	long delay_ms;
	long timeout_ms;
	int responses;
	const char *out;
	int tcp;
	int wait_close;
};

static SSL_CTX *tls_ctx;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static int usage(void)
{
	fputs("usage: tls_client send PORT FILE [--chunk N] [--delay-ms N] [--responses N]\n"
	      "                       [--timeout-ms N] [--out FILE] [--tcp] [--wait-close]\n"
	      "       tls_client hold PORT N SECONDS [--tcp] [--prefix FILE] [--from ADDR]\n"
	      "                       [--addresses K] [--ready FILE] [--settle-ms N]\n"
	      "       tls_client repeat PORT FILE COUNT [--from ADDR] [--timeout-ms N]\n"
	      "       tls_client storm PORT FILE SECONDS [--workers N]\n"
	      "       tls_client rollout PORT FILE PID [--before N] [--after N]\n"
	      "                       [--timeout-ms N]\n",
	      stderr);
	return 2;
}

/* Reads a whole file into a new buffer; NULL on failure (reported). */
static char *file_read(const char *path, size_t *len)
{
	struct stat st;
	char *data;
	size_t have = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "tls_client: cannot read '%s': %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!(data = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	while (have < (size_t)st.st_size &&
	       (n = read(fd, data + have, (size_t)st.st_size - have)) > 0)
		have += (size_t)n;
	close(fd);
	*len = have;
	return data;
}

static int parse_long(const char *text, long min, long *value)
{
	char *end;

	errno = 0;
	*value = strtol(text, &end, 10);
	return errno || end == text || *end || *value < min ? -1 : 0;
}

static void connection_close(struct connection *conn)
{
	if (conn->ssl) {
		SSL_free(conn->ssl);
		conn->ssl = NULL;
	}
	if (conn->fd >= 0) {
		close(conn->fd);
		conn->fd = -1;
	}
}

/*
 * Connects (from the address `from` unless it is 0) and shakes hands
 * unless `tcp`; 0 or -1.
 */
static int connection_open_from(struct connection *conn, unsigned port,
				int tcp, in_addr_t from)
{
	struct sockaddr_in address;
	int one = 1;

	memset(conn, 0, sizeof(*conn));
	conn->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (conn->fd < 0)
		return -1;
	if (from) {
		memset(&address, 0, sizeof(address));
		address.sin_family = AF_INET;
		address.sin_addr.s_addr = from;
		if (bind(conn->fd, (struct sockaddr *)&address,
			 sizeof(address)) != 0)
			goto out_close;
	}
	memset(&address, 0, sizeof(address));
	address.sin_family = AF_INET;
	address.sin_port = htons((unsigned short)port);
	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(conn->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(conn->fd, (struct sockaddr *)&address,
		    sizeof(address)) != 0)
		goto out_close;
	if (tcp)
		return 0;
	if (!(conn->ssl = SSL_new(tls_ctx)) ||
	    !SSL_set_fd(conn->ssl, conn->fd) || SSL_connect(conn->ssl) != 1)
		goto out_close;
	return 0;
out_close:
	connection_close(conn);
	return -1;
}

static int connection_open(struct connection *conn, unsigned port, int tcp)
{
	return connection_open_from(conn, port, tcp, 0);
}

/* Writes all of `data`; 0, or -1 when the connection failed. */
static int connection_write(struct connection *conn, const char *data,
			    size_t len)
{
	while (len) {
		int want = len > (1 << 20) ? 1 << 20 : (int)len;
		ssize_t n;

		if (conn->ssl)
			n = SSL_write(conn->ssl, data, want);
		else
			n = send(conn->fd, data, (size_t)want, MSG_NOSIGNAL);
		if (n <= 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Reads what is there, waiting up to `wait_ms`: >0 bytes read, 0 when
 * the server closed (or failed) the connection, -1 on a timeout.
 */
static int connection_read(struct connection *conn, char *into, size_t room,
			   long wait_ms)
{
	struct pollfd pfd = { .fd = conn->fd, .events = POLLIN };
	int n;

	if (wait_ms < 0)
		wait_ms = 0;
	if (!(conn->ssl && SSL_pending(conn->ssl)) &&
	    poll(&pfd, 1, (int)wait_ms) == 0)
		return -1;
	if (room > (1 << 20))
		room = 1 << 20;
	if (conn->ssl) {
		n = SSL_read(conn->ssl, into, (int)room);
		if (n <= 0) {
			int e = SSL_get_error(conn->ssl, n);

			if (e == SSL_ERROR_WANT_READ)
				return -1;
			return 0;
		}
		return n;
	}
	n = (int)recv(conn->fd, into, room, 0);
	return n > 0 ? n : 0;
}

/*
 * The length of the first complete response in data[0..len), or 0 when
 * it is not whole yet; its status in *status. Bodies are delimited by
 * Content-Length (the server's answers always carry one) or, without it,
 * run to the end of the connection.
 */
static size_t response_length(const char *data, size_t len, int *status,
			      size_t *body_at)
{
	const char *end = NULL, *p;
	size_t body_len = 0, head_len;
	int have_length = 0;

	for (size_t i = 0; i + 3 < len; i++) {
		if (!memcmp(data + i, "\r\n\r\n", 4)) {
			end = data + i;
			break;
		}
	}
	if (!end)
		return 0;
	if (sscanf(data, "HTTP/1.%*c %d", status) != 1)
		*status = -1;
	for (p = data; p < end; p++) {
		if ((p == data || p[-1] == '\n') &&
		    !strncasecmp(p, "Content-Length:", 15)) {
			body_len = strtoul(p + 15, NULL, 10);
			have_length = 1;
		}
	}
	head_len = (size_t)(end + 4 - data);
	*body_at = head_len;
	if (!have_length)
		return 0;
	return len - head_len >= body_len ? head_len + body_len : 0;
}

/* The status lines ("HTTP/1.x NNN " at a line start) in data[0..len). */
static int status_lines(const char *data, size_t len)
{
	int n = 0;

	for (size_t i = 0; i + 13 <= len; i++)
		if ((i == 0 || data[i - 1] == '\n') &&
		    !memcmp(data + i, "HTTP/1.", 7) && data[i + 8] == ' ' &&
		    data[i + 9] >= '1' && data[i + 9] <= '5' &&
		    data[i + 12] == ' ')
			n++;
	return n;
}

static int cmd_send(unsigned port, const char *path, struct send_options *o)
{
	struct connection conn;
	char *request, *response;
	size_t request_len, sent = 0, have = 0, used = 0, body_at = 0;
	int statuses[RESPONSES_MAX], n_statuses = 0, closed = 0, status = 0;
	int eof = -1;
	long long start, deadline;
	size_t last_at = 0, last_len = 0;

	if (!(request = file_read(path, &request_len)))
		return 2;
	if (!(response = malloc(RESPONSE_MAX))) {
		free(request);
		return 2;
	}
	start = now_ms();
	deadline = start + o->timeout_ms;
	if (connection_open(&conn, port, o->tcp) != 0) {
		closed = 1;
		goto out_print;
	}
	while (sent < request_len) {
		size_t n = o->chunk && o->chunk < request_len - sent ?
			   o->chunk : request_len - sent;
		int got;

		/* a failed write still leaves the answer to read (413) */
		if (connection_write(&conn, request + sent, n) != 0)
			break;
		sent += n;
		if (sent < request_len && o->delay_ms)
			sleep_ms(o->delay_ms);
		/* a server that answers early (413) or closes is noticed */
		got = sent < request_len && o->delay_ms ?
		      connection_read(&conn, response + have,
				      RESPONSE_MAX - have, 0) : -1;
		if (got == 0) {
			closed = 1;
			break;
		}
		if (got > 0)
			have += (size_t)got;
		if (now_ms() > deadline)
			break;
	}
	while (!closed && n_statuses < o->responses) {
		size_t one;
		int got;

		while (n_statuses < o->responses &&
		       (one = response_length(response + used, have - used,
					      &status, &body_at)) > 0) {
			statuses[n_statuses++] = status;
			last_at = used + body_at;
			last_len = one - body_at;
			used += one;
		}
		if (n_statuses == o->responses || have == RESPONSE_MAX)
			break;
		got = connection_read(&conn, response + have,
				      RESPONSE_MAX - have,
				      (long)(deadline - now_ms()));
		if (got < 0)
			break;
		if (got == 0) {
			closed = 1;
			break;
		}
		have += (size_t)got;
	}
	/* a last response without Content-Length runs to the close */
	if (closed && n_statuses < o->responses && have > used &&
	    response_length(response + used, have - used, &status,
			    &body_at) == 0 && body_at && status > 0) {
		statuses[n_statuses++] = status;
		last_at = used + body_at;
		last_len = have - used - body_at;
	}
	/* then the server must close (RFC 9112 6.1, 9.6), or not */
	if (o->wait_close) {
		eof = closed;
		while (!eof && have < RESPONSE_MAX) {
			int got = connection_read(&conn, response + have,
						  RESPONSE_MAX - have,
						  (long)(deadline - now_ms()));

			if (got < 0)
				break;
			if (got == 0)
				eof = 1;
			else
				have += (size_t)got;
		}
	}
	connection_close(&conn);
out_print:
	if (o->out) {
		FILE *f = fopen(o->out, "w");

		if (f) {
			fwrite(response + last_at, 1, last_len, f);
			fclose(f);
		}
	}
	printf("status ");
	if (!n_statuses)
		printf("0");
	for (int i = 0; i < n_statuses; i++)
		printf("%s%d", i ? "," : "", statuses[i]);
	printf(" sent %zu of %zu closed %d elapsed_ms %lld heads %d eof %d\n",
	       sent, request_len, closed, now_ms() - start,
	       status_lines(response, have), eof);
	free(response);
	free(request);
	return 0;
}

struct hold_options {
	int tcp;
	const char *prefix;
	in_addr_t from;          /* network order; 0: any */
	long addresses;          /* spread over this many from `from` up */
	const char *ready;
	long settle_ms;          /* before the ready file */
};

/*
 * Watches the open connections of `conns` until `until` (a now_ms()
 * time) or until all are closed; counts those the server closes.
 */
static void hold_watch(struct connection *conns, struct pollfd *pfds,
		       long count, long long until, long opened, long *closed,
		       long long start, long long *first, long long *last)
{
	char scratch[4096];

	while (*closed < opened && now_ms() < until) {
		nfds_t n = 0;

		for (long i = 0; i < count; i++) {
			if (conns[i].fd < 0 || conns[i].closed)
				continue;
			pfds[n].fd = conns[i].fd;
			pfds[n].events = POLLIN;
			pfds[n].revents = 0;
			n++;
		}
		if (poll(pfds, n, (int)(until - now_ms())) <= 0)
			continue;
		for (long i = 0, k = 0; i < count && k < (long)n; i++) {
			if (conns[i].fd < 0 || conns[i].closed)
				continue;
			if (pfds[k++].revents) {
				int got;

				do {
					got = connection_read(&conns[i], scratch,
							      sizeof(scratch), 0);
				} while (got > 0);
				if (got == 0) {
					conns[i].closed = 1;
					(*closed)++;
					*last = now_ms() - start;
					if (*first < 0)
						*first = *last;
				}
			}
		}
	}
}

static int cmd_hold(unsigned port, long count, long seconds,
		    const struct hold_options *o)
{
	struct connection *conns;
	struct pollfd *pfds;
	char *prefix = NULL;
	size_t prefix_len = 0;
	long opened = 0, closed = 0;
	long long start, first = -1, last = -1;

	if (o->prefix && !(prefix = file_read(o->prefix, &prefix_len)))
		return 2;
	conns = calloc((size_t)count, sizeof(*conns));
	pfds = calloc((size_t)count, sizeof(*pfds));
	if (!conns || !pfds) {
		free(conns);
		free(pfds);
		free(prefix);
		return 2;
	}
	for (long i = 0; i < count; i++) {
		in_addr_t from = o->from;

		if (from && o->addresses > 1)
			from = htonl(ntohl(from) + (in_addr_t)(i % o->addresses));
		if (connection_open_from(&conns[i], port, o->tcp, from) != 0) {
			conns[i].fd = -1;
			continue;
		}
		if (prefix_len &&
		    connection_write(&conns[i], prefix, prefix_len) != 0) {
			connection_close(&conns[i]);
			continue;
		}
		opened++;
	}
	start = now_ms();
	if (o->ready) {
		/* those refused at once are closed by now */
		FILE *f;

		hold_watch(conns, pfds, count, start + o->settle_ms, opened,
			   &closed,
			   start, &first, &last);
		if ((f = fopen(o->ready, "w"))) {
			fprintf(f, "opened %ld held %ld\n", opened,
				opened - closed);
			fclose(f);
		}
	}
	hold_watch(conns, pfds, count, start + seconds * 1000, opened, &closed,
		   start, &first, &last);
	printf("opened %ld closed %ld first_close_ms %lld last_close_ms %lld\n",
	       opened, closed, first, last);
	for (long i = 0; i < count; i++)
		connection_close(&conns[i]);
	free(conns);
	free(pfds);
	free(prefix);
	return 0;
}

/*
 * Reads one whole response on `conn` until `deadline` (a now_ms() time):
 * 1 with its status in *status (and in *close whether its head says
 * "Connection: close", when `close` is not NULL), 0 when the connection
 * ended or the deadline passed first.
 */
static int response_read(struct connection *conn, long long deadline,
			 char *response, int *status, int *close)
{
	size_t have = 0, body_at, whole;

	*status = 0;
	while (have < RESPONSE_MAX) {
		int got = connection_read(conn, response + have,
					  RESPONSE_MAX - have,
					  (long)(deadline - now_ms()));

		if (got <= 0)
			return 0;
		have += (size_t)got;
		whole = response_length(response, have, status, &body_at);
		if (whole > 0) {
			if (close) {
				*close = 0;
				for (size_t i = 0; i + 17 <= body_at; i++)
					if (response[i] == '\n' &&
					    !strncasecmp(response + i + 1,
							 "Connection: close", 17))
						*close = 1;
			}
			return 1;
		}
	}
	return 0;
}

/*
 * One request on a new connection: 1 answered (status in *status), 0
 * the connection ended without a response after the request was written
 * whole, -1 refused (the connection failed before that).
 */
static int request_once(unsigned port, in_addr_t from, const char *request,
			size_t len, long timeout_ms, char *response,
			int *status)
{
	struct connection conn;
	int rc;

	*status = 0;
	if (connection_open_from(&conn, port, 0, from) != 0)
		return -1;
	if (connection_write(&conn, request, len) != 0) {
		connection_close(&conn);
		return -1;
	}
	rc = response_read(&conn, now_ms() + timeout_ms, response, status,
			   NULL);
	connection_close(&conn);
	return rc;
}

static int long_cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static int cmd_repeat(unsigned port, const char *path, long count,
		      in_addr_t from, long timeout_ms)
{
	char *request, *response;
	size_t len;
	long long *took;
	long answered = 0;

	if (!(request = file_read(path, &len)))
		return 2;
	response = malloc(RESPONSE_MAX);
	took = calloc((size_t)count, sizeof(*took));
	if (!response || !took) {
		free(request);
		free(response);
		free(took);
		return 2;
	}
	for (long i = 0; i < count; i++) {
		long long t = now_ms();
		int status;

		if (request_once(port, from, request, len, timeout_ms,
				 response, &status) == 1 && status == 200) {
			answered++;
			took[i] = now_ms() - t;
		} else {
			took[i] = timeout_ms;
		}
	}
	qsort(took, (size_t)count, sizeof(*took), long_cmp);
	printf("answered %ld of %ld p50_ms %lld p99_ms %lld max_ms %lld\n",
	       answered, count, took[(count - 1) / 2],
	       took[(count * 99 + 99) / 100 - 1], took[count - 1]);
	free(took);
	free(response);
	free(request);
	return 0;
}

static int cmd_storm(unsigned port, const char *path, long seconds,
		     long workers)
{
	char *request;
	size_t len;
	int pipes[2];
	long long totals[4] = { 0, 0, 0, 0 };
	FILE *in;

	if (!(request = file_read(path, &len)))
		return 2;
	if (pipe(pipes) != 0) {
		free(request);
		return 2;
	}
	fflush(stdout);
	for (long w = 0; w < workers; w++) {
		pid_t pid = fork();

		if (pid < 0)
			return 2;
		if (pid == 0) {
			/* sent, answered, lost, refused */
			long long counts[4] = { 0, 0, 0, 0 };
			long long end = now_ms() + seconds * 1000;
			char *response = malloc(RESPONSE_MAX);
			char line[128];
			int status, n;

			close(pipes[0]);
			while (response && now_ms() < end) {
				int rc = request_once(port, 0, request, len,
						      10000, response, &status);

				if (rc < 0) {
					counts[3]++;
					break;
				}
				counts[0]++;
				counts[rc ? 1 : 2]++;
			}
			n = snprintf(line, sizeof(line), "%lld %lld %lld %lld\n",
				     counts[0], counts[1], counts[2], counts[3]);
			if (write(pipes[1], line, (size_t)n) != n)
				_exit(1);
			_exit(0);
		}
	}
	close(pipes[1]);
	if ((in = fdopen(pipes[0], "r"))) {
		long long c[4];

		while (fscanf(in, "%lld %lld %lld %lld", &c[0], &c[1], &c[2],
			      &c[3]) == 4)
			for (int k = 0; k < 4; k++)
				totals[k] += c[k];
		fclose(in);
	}
	while (wait(NULL) > 0)
		;
	printf("sent %lld answered %lld lost %lld refused %lld\n", totals[0],
	       totals[1], totals[2], totals[3]);
	free(request);
	return 0;
}

/* What `tls_client rollout` saw; [0] before the SIGTERM, [1] after the
 * first 503 of /readyz. */
struct rollout_counts {
	long answered, failed, probes;
	long closes[2], reconnects[2], answered_after;
	int ready_503;
};

static int cmd_rollout(unsigned port, const char *path, pid_t pid,
		       long before, long after, long timeout_ms)
{
	static const char probe[] =
		"GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
		"Connection: close\r\n\r\n";
	struct rollout_counts n = { 0 };
	struct connection conn = { .fd = -1 };
	long long deadline = now_ms() + timeout_ms;
	char *request, *response;
	size_t len;
	int phase = 0, opened = 0; /* 0 before SIGTERM, 1 after, 2 after 503 */

	if (!(request = file_read(path, &len)))
		return 2;
	if (!(response = malloc(RESPONSE_MAX))) {
		free(request);
		return 2;
	}
	while (now_ms() < deadline &&
	       (phase < 2 || n.answered_after < after)) {
		int status = 0, close = 1;

		if (conn.fd < 0) {
			if (connection_open(&conn, port, 0) != 0) {
				/* refused: the server stopped accepting */
				n.failed++;
				break;
			}
			if (opened++ && phase != 1)
				n.reconnects[phase / 2]++;
		}
		if (connection_write(&conn, request, len) == 0 &&
		    response_read(&conn, deadline, response, &status, &close) &&
		    status == 200) {
			n.answered++;
			if (phase == 2)
				n.answered_after++;
			if (close && phase != 1)
				n.closes[phase / 2]++;
		} else {
			n.failed++;
			close = 1;
		}
		if (close)
			connection_close(&conn);
		if (phase == 0 && n.answered >= before) {
			kill(pid, SIGTERM);
			phase = 1;
		} else if (phase == 1) {
			n.probes++;
			if (request_once(port, 0, probe, sizeof(probe) - 1,
					 timeout_ms, response, &status) == 1 &&
			    status == 503) {
				n.ready_503 = 1;
				phase = 2;
			}
		}
	}
	connection_close(&conn);
	/* the drain begins */
	kill(pid, SIGTERM);
	printf("answered %ld failed %ld closes_before_term %ld reconnects_before_term %ld "
	       "probes %ld ready_503 %d answered_after_503 %ld closes_after_503 %ld "
	       "reconnects_after_503 %ld\n",
	       n.answered, n.failed, n.closes[0], n.reconnects[0], n.probes,
	       n.ready_503, n.answered_after, n.closes[1], n.reconnects[1]);
	free(response);
	free(request);
	return 0;
}

int main(int argc, char **argv)
{
	struct send_options so = { .timeout_ms = 10000, .responses = 1 };
	struct in_addr from;
	struct rlimit rl;
	long port, value;
	int i;

	if (argc < 4 || parse_long(argv[2], 1, &port) || port > 65535)
		return usage();
	signal(SIGPIPE, SIG_IGN);
	/* hold opens many connections: raise the descriptor limit */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	SSL_library_init();
	SSL_load_error_strings();
	if (!(tls_ctx = SSL_CTX_new(TLS_client_method())))
		return 2;
	SSL_CTX_set_verify(tls_ctx, SSL_VERIFY_NONE, NULL);

	if (!strcmp(argv[1], "send")) {
		for (i = 4; i < argc; i++) {
			const char *opt = argv[i];

			if (!strcmp(opt, "--tcp")) {
				so.tcp = 1;
				continue;
			}
			if (!strcmp(opt, "--wait-close")) {
				so.wait_close = 1;
				continue;
			}
			if (i + 1 == argc)
				return usage();
			if (!strcmp(opt, "--out")) {
				so.out = argv[++i];
				continue;
			}
			if (parse_long(argv[++i], 0, &value))
				return usage();
			if (!strcmp(opt, "--chunk"))
				so.chunk = (size_t)value;
			else if (!strcmp(opt, "--delay-ms"))
				so.delay_ms = value;
			else if (!strcmp(opt, "--timeout-ms"))
				so.timeout_ms = value;
			else if (!strcmp(opt, "--responses") && value >= 1 &&
				 value <= RESPONSES_MAX)
				so.responses = (int)value;
			else
				return usage();
		}
		return cmd_send((unsigned)port, argv[3], &so);
	}
	if (!strcmp(argv[1], "hold")) {
		struct hold_options ho = { .addresses = 1, .settle_ms = 200 };
		long count, seconds;

		if (argc < 5 || parse_long(argv[3], 1, &count) ||
		    parse_long(argv[4], 0, &seconds))
			return usage();
		for (i = 5; i < argc; i++) {
			if (!strcmp(argv[i], "--tcp"))
				ho.tcp = 1;
			else if (!strcmp(argv[i], "--prefix") && i + 1 < argc)
				ho.prefix = argv[++i];
			else if (!strcmp(argv[i], "--ready") && i + 1 < argc)
				ho.ready = argv[++i];
			else if (!strcmp(argv[i], "--from") && i + 1 < argc &&
				 inet_pton(AF_INET, argv[i + 1], &from) == 1)
				ho.from = from.s_addr, i++;
			else if (!strcmp(argv[i], "--addresses") && i + 1 < argc &&
				 !parse_long(argv[i + 1], 1, &ho.addresses))
				i++;
			else if (!strcmp(argv[i], "--settle-ms") && i + 1 < argc &&
				 !parse_long(argv[i + 1], 0, &ho.settle_ms))
				i++;
			else
				return usage();
		}
		return cmd_hold((unsigned)port, count, seconds, &ho);
	}
	if (!strcmp(argv[1], "repeat") || !strcmp(argv[1], "storm")) {
		long count, timeout_ms = 5000, workers = 8;

		if (argc < 5 || parse_long(argv[4], 1, &count))
			return usage();
		from.s_addr = 0;
		for (i = 5; i < argc; i++) {
			if (!strcmp(argv[i], "--from") && i + 1 < argc &&
			    inet_pton(AF_INET, argv[i + 1], &from) == 1)
				i++;
			else if (!strcmp(argv[i], "--timeout-ms") && i + 1 < argc &&
				 !parse_long(argv[i + 1], 1, &timeout_ms))
				i++;
			else if (!strcmp(argv[i], "--workers") && i + 1 < argc &&
				 !parse_long(argv[i + 1], 1, &workers))
				i++;
			else
				return usage();
		}
		if (!strcmp(argv[1], "storm"))
			return cmd_storm((unsigned)port, argv[3], count, workers);
		return cmd_repeat((unsigned)port, argv[3], count, from.s_addr,
				  timeout_ms);
	}
	if (!strcmp(argv[1], "rollout")) {
		long pid, before = 20, after = 20, timeout_ms = 30000;

		if (argc < 5 || parse_long(argv[4], 1, &pid))
			return usage();
		for (i = 5; i + 1 < argc; i += 2) {
			long *slot = !strcmp(argv[i], "--before") ? &before :
				     !strcmp(argv[i], "--after") ? &after :
				     !strcmp(argv[i], "--timeout-ms") ? &timeout_ms :
				     NULL;

			if (!slot || parse_long(argv[i + 1], 1, slot))
				return usage();
		}
		if (i != argc)
			return usage();
		return cmd_rollout((unsigned)port, argv[3], (pid_t)pid, before,
				   after, timeout_ms);
	}
	return usage();
}
