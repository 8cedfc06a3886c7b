/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rate_client.c - a fixed-rate HTTPS load generator for the webhook
 * benchmark (wrk only measures closed-loop, and wrk2 is not in Debian).
 *
 * usage: rate_client PORT BODY-FILE RATE SECONDS CONNECTIONS [WARMUP]
 *
 * POSTs BODY-FILE as application/json to https://127.0.0.1:PORT/mutate
 * over CONNECTIONS kept-alive TLS connections, one thread each. The
 * schedule is open-loop and shared: request k is due at start + k / RATE,
 * and the next free connection takes it. A request's latency runs from the
 * time it was due, not from when it was sent, so a server that falls
 * behind is charged for the queue it causes (no coordinated omission).
 * Requests due in the first WARMUP seconds (default 1) are not counted.
 * A server that cannot keep up is given one more second after the last
 * request is due; the requests not answered by then are "missed", and
 * count as slower than any answered one in the percentiles (which then
 * read -1 when they fall among them).
 *
 * Prints one line:
 *   requests N errors N missed N rate R p50_us X p99_us X p999_us X max_us X
 * (rate: answered requests per second of the measured window; -1 for a
 * latency that cannot be told).
 * The certificate is not verified: the server is ours, on 127.0.0.1.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

/* Largest response head read. */
#define HEAD_MAX 16384

struct schedule {
	SSL_CTX *ctx;
	unsigned port;
	const char *request;          /* head and body, ready to send */
	size_t request_len;
	double rate;                  /* requests per second */
	long long start_ns;           /* CLOCK_MONOTONIC */
	long long warmup_ns;
	long long deadline_ns;        /* no request is sent after it */
	long long total;              /* requests due in the whole run */
	atomic_llong next;            /* the next request to take */
	double *latency_us;           /* by request; < 0: not counted */
	atomic_long errors;
};

struct connection {
	int fd;
	SSL *ssl;
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until(long long when_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(when_ns / 1000000000LL),
		.tv_nsec = (long)(when_ns % 1000000000LL),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
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

/* Connects and completes the handshake; 0 or -1. */
static int connection_open(struct schedule *sch, struct connection *conn)
{
	struct sockaddr_in address;
	int one = 1;

	conn->ssl = NULL;
	conn->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (conn->fd < 0)
		return -1;
	memset(&address, 0, sizeof(address));
	address.sin_family = AF_INET;
	address.sin_port = htons((unsigned short)sch->port);
	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(conn->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(conn->fd, (struct sockaddr *)&address,
		    sizeof(address)) != 0)
		goto out_close;
	if (!(conn->ssl = SSL_new(sch->ctx)) ||
	    !SSL_set_fd(conn->ssl, conn->fd) || SSL_connect(conn->ssl) != 1)
		goto out_close;
	return 0;
out_close:
	connection_close(conn);
	return -1;
}

/*
 * Sends the request and reads the whole response. Returns its HTTP status,
 * or -1 when the connection failed (it must then be reopened).
 */
static int connection_exchange(struct schedule *sch, struct connection *conn)
{
	char head[HEAD_MAX + 1], rest[65536];
	size_t have = 0, body_len = 0, body_have;
	const char *end, *p;
	int status, n;

	if (SSL_write(conn->ssl, sch->request, (int)sch->request_len) !=
	    (int)sch->request_len)
		return -1;
	for (;;) {
		if (have == HEAD_MAX)
			return -1;
		n = SSL_read(conn->ssl, head + have, (int)(HEAD_MAX - have));
		if (n <= 0)
			return -1;
		have += (size_t)n;
		head[have] = '\0';
		if ((end = strstr(head, "\r\n\r\n")))
			break;
	}
	if (sscanf(head, "HTTP/1.%*c %d", &status) != 1)
		return -1;
	for (p = strstr(head, "\r\n"); p && p < end; p = strstr(p + 2, "\r\n")) {
		if (strncasecmp(p + 2, "Content-Length:", 15) == 0) {
			body_len = strtoul(p + 17, NULL, 10);
			break;
		}
	}
	body_have = have - (size_t)(end + 4 - head);
	while (body_have < body_len) {
		size_t want = body_len - body_have;

		n = SSL_read(conn->ssl, rest,
			     (int)(want < sizeof(rest) ? want : sizeof(rest)));
		if (n <= 0)
			return -1;
		body_have += (size_t)n;
	}
	return status;
}

static void *client_run(void *arg)
{
	struct schedule *sch = arg;
	struct connection conn = { .fd = -1, .ssl = NULL };
	long long k, due;
	int status;

	if (connection_open(sch, &conn) != 0)
		atomic_fetch_add(&sch->errors, 1);
	while ((k = atomic_fetch_add(&sch->next, 1)) < sch->total) {
		due = sch->start_ns + (long long)((double)k * 1e9 / sch->rate);
		sleep_until(due);
		if (now_ns() > sch->deadline_ns)
			break;
		if (!conn.ssl && connection_open(sch, &conn) != 0) {
			atomic_fetch_add(&sch->errors, 1);
			continue;
		}
		status = connection_exchange(sch, &conn);
		if (status != 200) {
			atomic_fetch_add(&sch->errors, 1);
			if (status < 0)
				connection_close(&conn);
			continue;
		}
		if (due - sch->start_ns >= sch->warmup_ns)
			sch->latency_us[k] = (double)(now_ns() - due) / 1e3;
	}
	connection_close(&conn);
	return NULL;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Nearest-rank percentile of `n` sorted values followed by `missed` ones
 * slower than all of them: -1 when it falls among those.
 */
static double percentile(const double *sorted, size_t n, size_t missed,
			 double p)
{
	size_t rank = (size_t)(p / 100.0 * (double)(n + missed) + 0.999999);

	if (rank < 1)
		rank = 1;
	if (rank > n)
		return -1;
	return sorted[rank - 1];
}

/* Reads the whole file into a request: head then body. */
static char *request_load(const char *path, unsigned port, size_t *len)
{
	char head[256], *request;
	size_t body_len, head_len;
	FILE *f = fopen(path, "rb");
	long size;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		if (f)
			fclose(f);
		return NULL;
	}
	body_len = (size_t)size;
	head_len = (size_t)snprintf(head, sizeof(head),
				    "POST /mutate HTTP/1.1\r\n"
				    "Host: 127.0.0.1:%u\r\n"
				    "Content-Type: application/json\r\n"
				    "Content-Length: %zu\r\n\r\n",
				    port, body_len);
	if (!(request = malloc(head_len + body_len))) {
		fclose(f);
		return NULL;
	}
	memcpy(request, head, head_len);
	if (fread(request + head_len, 1, body_len, f) != body_len) {
		free(request);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = head_len + body_len;
	return request;
}

int main(int argc, char **argv)
{
	struct schedule sch;
	pthread_t *threads;
	double seconds, warmup = 1, *sorted;
	long connections;
	size_t counted = 0, measured = 0, missed;
	long errors;
	int status = 1;

	if (argc < 6 || argc > 7) {
		fprintf(stderr, "usage: rate_client PORT BODY-FILE RATE SECONDS "
				"CONNECTIONS [WARMUP]\n");
		return 2;
	}
	memset(&sch, 0, sizeof(sch));
	sch.port = (unsigned)strtoul(argv[1], NULL, 10);
	sch.rate = strtod(argv[3], NULL);
	seconds = strtod(argv[4], NULL);
	connections = strtol(argv[5], NULL, 10);
	if (argc == 7)
		warmup = strtod(argv[6], NULL);
	if (sch.rate <= 0 || seconds <= 0 || connections < 1 ||
	    connections > 1024 || warmup < 0 || warmup >= seconds) {
		fprintf(stderr, "rate_client: bad arguments\n");
		return 2;
	}
	if (!(sch.request = request_load(argv[2], sch.port, &sch.request_len))) {
		fprintf(stderr, "rate_client: cannot read '%s'\n", argv[2]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	sch.ctx = SSL_CTX_new(TLS_client_method());
	if (!sch.ctx) {
		fprintf(stderr, "rate_client: cannot set up TLS\n");
		goto out_free_request;
	}
	SSL_CTX_set_verify(sch.ctx, SSL_VERIFY_NONE, NULL);
	sch.total = (long long)(sch.rate * seconds);
	sch.warmup_ns = (long long)(warmup * 1e9);
	sch.latency_us = malloc((size_t)sch.total * sizeof(double));
	threads = calloc((size_t)connections, sizeof(*threads));
	if (!sch.latency_us || !threads) {
		fprintf(stderr, "rate_client: out of memory\n");
		goto out_free;
	}
	for (long long k = 0; k < sch.total; k++)
		sch.latency_us[k] = -1;
	/* the connections open during this head start */
	sch.start_ns = now_ns() + 200000000LL;
	sch.deadline_ns = sch.start_ns + (long long)((seconds + 1) * 1e9);
	for (long i = 0; i < connections; i++) {
		if (pthread_create(&threads[i], NULL, client_run, &sch) != 0) {
			fprintf(stderr, "rate_client: cannot start a thread\n");
			/* the threads started take every request: let them */
			connections = i;
			break;
		}
	}
	for (long i = 0; i < connections; i++)
		pthread_join(threads[i], NULL);

	sorted = sch.latency_us;
	for (long long k = 0; k < sch.total; k++) {
		if ((double)k / sch.rate >= warmup)
			measured++;
		if (sch.latency_us[k] >= 0)
			sorted[counted++] = sch.latency_us[k];
	}
	qsort(sorted, counted, sizeof(double), compare_double);
	/* failed requests are errors; the others not answered, missed */
	errors = atomic_load(&sch.errors);
	missed = measured - counted > (size_t)errors ?
		 measured - counted - (size_t)errors : 0;
	printf("requests %zu errors %ld missed %zu rate %.0f p50_us %.0f "
	       "p99_us %.0f p999_us %.0f max_us %.0f\n", counted, errors,
	       missed, (double)counted / (seconds - warmup),
	       percentile(sorted, counted, missed, 50),
	       percentile(sorted, counted, missed, 99),
	       percentile(sorted, counted, missed, 99.9),
	       missed || !counted ? -1 : sorted[counted - 1]);
	status = 0;
out_free:
	free(threads);
	free(sch.latency_us);
	SSL_CTX_free(sch.ctx);
out_free_request:
	free((char *)sch.request);
	return status;
}
