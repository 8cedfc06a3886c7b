/*
 * tls_client.c - a raw HTTPS client for the hostile-input tests of
 * gpumend-webhook: it sends bytes that curl will not (truncated bodies,
 * broken chunked encodings, requests written one byte at a time) and holds
 * many connections open at once, and says what the server did and when.
 *
 * usage:
 *   tls_client send PORT FILE [--chunk N] [--delay-ms N] [--responses N]
 *                   [--timeout-ms N] [--out FILE] [--tcp]
 *     Connects to 127.0.0.1:PORT (TLS unless --tcp), writes FILE in pieces
 *     of N bytes (default: all at once) with a pause of --delay-ms between
 *     them, then, sending nothing more (a client that stalls when FILE
 *     holds half a request), reads responses until --responses have come
 *     (default 1), the server closes, or --timeout-ms (default 10000) from
 *     the start. The last response's body goes to --out. Prints one line:
 *       status S[,S...] sent N of M closed C elapsed_ms T
 *     status 0: no response; closed 1: the server closed the connection
 *     (or failed it) before we were done.
 *
 *   tls_client hold PORT N SECONDS [--tcp] [--prefix FILE]
 *     Opens N connections (and completes their handshakes unless --tcp),
 *     writes FILE on each (say, half a request), and watches them for
 *     SECONDS or until the server has closed them all. Prints one line:
 *       opened N closed C first_close_ms T last_close_ms T
 *     (-1 when none closed); times count from when all were open.
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
	      "                       [--timeout-ms N] [--out FILE] [--tcp]\n"
	      "       tls_client hold PORT N SECONDS [--tcp] [--prefix FILE]\n",
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

/* Connects (and shakes hands unless `tcp`); 0 or -1. */
static int connection_open(struct connection *conn, unsigned port, int tcp)
{
	struct sockaddr_in address;
	int one = 1;

	memset(conn, 0, sizeof(*conn));
	conn->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (conn->fd < 0)
		return -1;
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

static int cmd_send(unsigned port, const char *path, struct send_options *o)
{
	struct connection conn;
	char *request, *response;
	size_t request_len, sent = 0, have = 0, used = 0, body_at = 0;
	int statuses[RESPONSES_MAX], n_statuses = 0, closed = 0, status = 0;
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
	printf(" sent %zu of %zu closed %d elapsed_ms %lld\n", sent,
	       request_len, closed, now_ms() - start);
	free(response);
	free(request);
	return 0;
}

static int cmd_hold(unsigned port, long count, long seconds, int tcp,
		    const char *prefix_path)
{
	struct connection *conns;
	struct pollfd *pfds;
	char *prefix = NULL, scratch[4096];
	size_t prefix_len = 0;
	long opened = 0, closed = 0;
	long long start, deadline, first = -1, last = -1;

	if (prefix_path && !(prefix = file_read(prefix_path, &prefix_len)))
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
		if (connection_open(&conns[i], port, tcp) != 0) {
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
	deadline = start + seconds * 1000;
	while (closed < opened && now_ms() < deadline) {
		nfds_t n = 0;

		for (long i = 0; i < count; i++) {
			if (conns[i].fd < 0 || conns[i].closed)
				continue;
			pfds[n].fd = conns[i].fd;
			pfds[n].events = POLLIN;
			pfds[n].revents = 0;
			n++;
		}
		if (poll(pfds, n, (int)(deadline - now_ms())) <= 0)
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
					closed++;
					last = now_ms() - start;
					if (first < 0)
						first = last;
				}
			}
		}
	}
	printf("opened %ld closed %ld first_close_ms %lld last_close_ms %lld\n",
	       opened, closed, first, last);
	for (long i = 0; i < count; i++)
		connection_close(&conns[i]);
	free(conns);
	free(pfds);
	free(prefix);
	return 0;
}

int main(int argc, char **argv)
{
	struct send_options so = { .timeout_ms = 10000, .responses = 1 };
	const char *prefix = NULL;
	struct rlimit rl;
	long port, value;
	int tcp = 0, i;

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
		long count, seconds;

		if (argc < 5 || parse_long(argv[3], 1, &count) ||
		    parse_long(argv[4], 0, &seconds))
			return usage();
		for (i = 5; i < argc; i++) {
			if (!strcmp(argv[i], "--tcp"))
				tcp = 1;
			else if (!strcmp(argv[i], "--prefix") && i + 1 < argc)
				prefix = argv[++i];
			else
				return usage();
		}
		return cmd_hold((unsigned)port, count, seconds, tcp, prefix);
	}
	return usage();
}
