/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * floor_server.c - the benchmark's floor for the webhook: libmicrohttpd and
 * GnuTLS set up as webhook/server.c sets them up (the same daemon flags,
 * thread pool, TLS priorities, connection timeout, limit and memory, and
 * the same certificate through webhook/tls.c), a handler that reads the POST body
 * into the same growable buffer (lib/buf.c) and answers one fixed
 * AdmissionReview with the same headers. No review, no log, no metrics:
 * gpumend-webhook cannot answer faster than this.
 *
 * usage: floor_server CERT KEY [THREADS]
 * Listens on 127.0.0.1 on a port of its choosing, prints "port N" on
 * standard output, serves until SIGTERM or SIGINT.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <microhttpd.h>

#include "buf.h"
#include "tls.h"

/* As in webhook/server.c and webhook/main.c (their defaults). */
#define FLOOR_MAX_CONNECTIONS 1024
#define FLOOR_CONNECTION_TIMEOUT 30
#define FLOOR_MAX_BODY ((size_t)7 << 20)
#define FLOOR_CONNECTION_MEMORY ((size_t)12 << 10)

static const char answer[] =
	"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
	"\"response\":{\"uid\":\"00000000-0000-0000-0000-000000000000\","
	"\"allowed\":true}}";

/* One request: its body as it arrives. */
struct floor_request {
	struct buf body;
	int too_large;
};

static enum MHD_Result floor_respond(struct MHD_Connection *connection,
				     unsigned status, const char *text,
				     size_t len)
{
	struct MHD_Response *response;
	enum MHD_Result ret;

	response = MHD_create_response_from_buffer(len, (void *)text,
						   MHD_RESPMEM_PERSISTENT);
	if (!response)
		return MHD_NO;
	MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE,
				"application/json");
	MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL,
				"no-store");
	ret = MHD_queue_response(connection, status, response);
	MHD_destroy_response(response);
	return ret;
}

static enum MHD_Result floor_handle(void *cls,
				    struct MHD_Connection *connection,
				    const char *url, const char *method,
				    const char *version,
				    const char *upload_data,
				    size_t *upload_data_size, void **req_cls)
{
	struct floor_request *req = *req_cls;

	(void)cls;
	(void)url;
	(void)version;
	if (!req) {
		if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
			return floor_respond(connection, 405, "", 0);
		if (!(req = calloc(1, sizeof(*req))))
			return MHD_NO;
		buf_init(&req->body, FLOOR_MAX_BODY);
		*req_cls = req;
		return MHD_YES;
	}
	if (*upload_data_size) {
		if (!req->too_large &&
		    buf_append(&req->body, upload_data, *upload_data_size)) {
			req->too_large = 1;
			buf_free(&req->body);
		}
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (req->too_large)
		return floor_respond(connection, 413, "", 0);
	/* the body is read whole, as a review needs it, and dropped */
	buf_free(&req->body);
	return floor_respond(connection, 200, answer, sizeof(answer) - 1);
}

static void floor_completed(void *cls, struct MHD_Connection *connection,
			    void **req_cls, enum MHD_RequestTerminationCode toe)
{
	struct floor_request *req = *req_cls;

	(void)cls;
	(void)connection;
	(void)toe;
	if (!req)
		return;
	buf_free(&req->body);
	free(req);
	*req_cls = NULL;
}

static void floor_notify_connection(void *cls,
				    struct MHD_Connection *connection,
				    void **socket_context,
				    enum MHD_ConnectionNotificationCode toe)
{
	(void)connection;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		*socket_context = tls_conn_new(cls);
	} else {
		tls_conn_free(*socket_context);
		*socket_context = NULL;
	}
}

int main(int argc, char **argv)
{
	unsigned flags = MHD_USE_TLS | MHD_USE_EPOLL_INTERNAL_THREAD |
			 MHD_USE_ITC | MHD_USE_ERROR_LOG;
	struct MHD_OptionItem pool[2] = {
		{ MHD_OPTION_END, 0, NULL }, { MHD_OPTION_END, 0, NULL }
	};
	const union MHD_DaemonInfo *info;
	struct sockaddr_in address;
	struct MHD_Daemon *daemon;
	struct tls_store *tls;
	long threads = sysconf(_SC_NPROCESSORS_ONLN);
	char err[1024];
	sigset_t signals;
	int signo, status = 1;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: floor_server CERT KEY [THREADS]\n");
		return 2;
	}
	if (argc == 4)
		threads = strtol(argv[3], NULL, 10);
	if (threads < 1)
		threads = 1;
	if (threads > 64)
		threads = 64;

	sigemptyset(&signals);
	sigaddset(&signals, SIGTERM);
	sigaddset(&signals, SIGINT);
	pthread_sigmask(SIG_BLOCK, &signals, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (!(tls = tls_store_new(argv[1], argv[2]))) {
		fprintf(stderr, "floor_server: out of memory\n");
		return 1;
	}
	if (tls_store_reload(tls, err, sizeof(err)) != 1) {
		fprintf(stderr, "floor_server: %s\n", err);
		goto out_free_tls;
	}
	memset(&address, 0, sizeof(address));
	address.sin_family = AF_INET;
	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (threads > 1) {
		pool[0].option = MHD_OPTION_THREAD_POOL_SIZE;
		pool[0].value = (intptr_t)threads;
	}
	daemon = MHD_start_daemon(
		flags, 0, NULL, NULL, floor_handle, NULL,
		MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)&address,
		MHD_OPTION_HTTPS_CERT_CALLBACK, tls_certificate_callback,
		MHD_OPTION_HTTPS_PRIORITIES, TLS_PRIORITIES,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)FLOOR_CONNECTION_TIMEOUT,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)FLOOR_MAX_CONNECTIONS,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, FLOOR_CONNECTION_MEMORY,
		MHD_OPTION_NOTIFY_COMPLETED, floor_completed, NULL,
		MHD_OPTION_NOTIFY_CONNECTION, floor_notify_connection, tls,
		MHD_OPTION_ARRAY, pool,
		MHD_OPTION_END);
	if (!daemon) {
		fprintf(stderr, "floor_server: cannot start the HTTPS server\n");
		goto out_free_tls;
	}
	info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
	printf("port %u\n", info ? (unsigned)info->port : 0u);
	fflush(stdout);
	if (sigwait(&signals, &signo) == 0)
		status = 0;
	MHD_stop_daemon(daemon);
out_free_tls:
	tls_store_free(tls);
	return status;
}
