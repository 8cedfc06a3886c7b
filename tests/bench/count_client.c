/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * count_client.c - sends one body a given number of times over a single
 * kept-alive TLS connection, one request after the other, for the
 * instruction counts of the webhook benchmark (tests/bench/instructions.sh).
 *
 * usage: count_client PORT BODY-FILE N [ANSWER-FILE]
 *
 * POSTs BODY-FILE as application/json to https://127.0.0.1:PORT/mutate N
 * times on one connection (one handshake), reads each whole answer and
 * checks that it is a 200 with a Content-Length. The last answer's body is
 * written to ANSWER-FILE when given. Exits 0 when all N were answered so,
 * 1 otherwise (with a message on standard error). The certificate is not
 * verified: the server is ours, on 127.0.0.1.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/ssl.h>

/* Largest answer read, head and body. */
#define ANSWER_MAX ((size_t)1 << 22)

static char *file_load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	long size;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)size + 1))) {
		if (fread(data, 1, (size_t)size, f) == (size_t)size) {
			*len = (size_t)size;
		} else {
			free(data);
			data = NULL;
		}
	}
	fclose(f);
	return data;
}

/*
 * Reads one answer into `answer` (ANSWER_MAX bytes); returns its status
 * and sets *body and *body_len, or -1 with a message.
 */
static int answer_read(SSL *ssl, char *answer, const char **body,
		       size_t *body_len)
{
	size_t have = 0, head_len = 0, length = 0;
	const char *end = NULL, *p;
	int status, n, has_length = 0;

	while (!end) {
		if (have == ANSWER_MAX - 1) {
			fprintf(stderr, "count_client: answer head too long\n");
			return -1;
		}
		n = SSL_read(ssl, answer + have, (int)(ANSWER_MAX - 1 - have));
		if (n <= 0) {
			fprintf(stderr, "count_client: connection closed\n");
			return -1;
		}
		have += (size_t)n;
		answer[have] = '\0';
		end = strstr(answer, "\r\n\r\n");
	}
	head_len = (size_t)(end + 4 - answer);
	if (sscanf(answer, "HTTP/1.%*c %d", &status) != 1) {
		fprintf(stderr, "count_client: not an HTTP answer\n");
		return -1;
	}
	for (p = strstr(answer, "\r\n"); p && p < end;
	     p = strstr(p + 2, "\r\n")) {
		if (strncasecmp(p + 2, "Content-Length:", 15) == 0) {
			length = strtoul(p + 17, NULL, 10);
			has_length = 1;
			break;
		}
	}
	if (!has_length || head_len + length > ANSWER_MAX - 1) {
		fprintf(stderr, "count_client: the answer has no usable Content-Length\n");
		return -1;
	}
	while (have < head_len + length) {
		n = SSL_read(ssl, answer + have, (int)(head_len + length - have));
		if (n <= 0) {
			fprintf(stderr, "count_client: connection closed in an answer\n");
			return -1;
		}
		have += (size_t)n;
	}
	if (have != head_len + length) {
		fprintf(stderr, "count_client: more bytes than the answer\n");
		return -1;
	}
	*body = answer + head_len;
	*body_len = length;
	return status;
}

int main(int argc, char **argv)
{
	struct sockaddr_in address;
	char head[256], *body, *request, *answer;
	const char *got = NULL;
	size_t body_len = 0, head_len, got_len = 0;
	long n, port;
	SSL_CTX *ctx;
	SSL *ssl;
	int fd, one = 1;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: count_client PORT BODY-FILE N [ANSWER-FILE]\n");
		return 2;
	}
	port = strtol(argv[1], NULL, 10);
	n = strtol(argv[3], NULL, 10);
	if (port <= 0 || port > 65535 || n <= 0) {
		fprintf(stderr, "count_client: bad port or count\n");
		return 2;
	}
	if (!(body = file_load(argv[2], &body_len))) {
		fprintf(stderr, "count_client: cannot read '%s'\n", argv[2]);
		return 1;
	}
	head_len = (size_t)snprintf(head, sizeof(head),
				    "POST /mutate HTTP/1.1\r\n"
				    "Host: 127.0.0.1:%ld\r\n"
				    "Content-Type: application/json\r\n"
				    "Content-Length: %zu\r\n\r\n",
				    port, body_len);
	request = malloc(head_len + body_len);
	answer = malloc(ANSWER_MAX);
	if (!request || !answer)
		return 1;
	memcpy(request, head, head_len);
	memcpy(request + head_len, body, body_len);

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&address, 0, sizeof(address));
	address.sin_family = AF_INET;
	address.sin_port = htons((unsigned short)port);
	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&address,
			      sizeof(address)) != 0) {
		fprintf(stderr, "count_client: cannot connect to port %ld\n", port);
		return 1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (!(ctx = SSL_CTX_new(TLS_client_method())) ||
	    !(ssl = SSL_new(ctx)) || !SSL_set_fd(ssl, fd) ||
	    SSL_connect(ssl) != 1) {
		fprintf(stderr, "count_client: TLS handshake failed\n");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		int status;

		if (SSL_write(ssl, request, (int)(head_len + body_len)) !=
		    (int)(head_len + body_len)) {
			fprintf(stderr, "count_client: cannot send request %ld\n", i + 1);
			return 1;
		}
		status = answer_read(ssl, answer, &got, &got_len);
		if (status != 200) {
			if (status > 0)
				fprintf(stderr, "count_client: request %ld answered %d\n",
					i + 1, status);
			return 1;
		}
	}
	if (argc == 5) {
		FILE *f = fopen(argv[4], "wb");

		if (!f || fwrite(got, 1, got_len, f) != got_len || fclose(f)) {
			fprintf(stderr, "count_client: cannot write '%s'\n", argv[4]);
			return 1;
		}
	}
	SSL_shutdown(ssl);
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	close(fd);
	free(answer);
	free(request);
	free(body);
	return 0;
}
