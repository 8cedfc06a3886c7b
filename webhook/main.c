/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c - gpumend-webhook: options, start-up, the watch on the
 * certificate and config files, signals, and the drain on shutdown.
 *
 * The server runs on libmicrohttpd's threads; this thread only waits for
 * signals (through a signalfd) and file changes (inotify on the files'
 * directories, since the kubelet and cert-manager swap symbolic links
 * there, plus a periodic stat as a fallback) and reloads.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "admission.h"
#include "arena.h"
#include "buf.h"
#include "config_file.h"
#include "log.h"
#include "metrics.h"
#include "msg.h"
#include "rules.h"
#include "server.h"
#include "tls.h"

#include <gnutls/x509.h>

/* Quiet time after a file event before reloading: cert and key settle. */
#define RELOAD_DEBOUNCE_MS 200
/* Period of the stat fallback of the file watch. */
#define STAT_INTERVAL_MS 5000
/* Largest config file read. */
#define CONFIG_FILE_MAX ((size_t)4 << 20)

static const char usage[] =
	"usage: gpumend-webhook --tls-cert FILE --tls-key FILE [options]\n"
	"\n"
	"The gpumend mutating admission webhook: serves POST /mutate, and the\n"
	"paths gpumend webhook-config registers, /mutate/legacy/HASH and\n"
	"/mutate/advisory/HASH (AdmissionReview v1 and v1beta1), GET /healthz,\n"
	"/readyz and /metrics over HTTPS.\n"
	"\n"
	"  --listen ADDR:PORT          address to listen on, IPv4 or [IPv6]:PORT\n"
	"                              (default 0.0.0.0:8443; port 0 picks one)\n"
	"  --tls-cert FILE             serving certificate (PEM, chain allowed)\n"
	"  --tls-key FILE              its private key (PEM)\n"
	"  -c, --config FILE           rules configuration (YAML); default: built-in\n"
	"  --log-level LEVEL           debug, info, warn or error (default info)\n"
	"  --max-body BYTES            request body cap, e.g. 7Mi (default 7Mi)\n"
	"  --connection-timeout SECS   idle connection timeout (default 30)\n"
	"  --header-timeout SECS       a new connection must send its first request\n"
	"                              head (handshake included) within this time\n"
	"                              (default 10; 0: no such deadline)\n"
	"  --max-connections N         connections held at once; past it the oldest\n"
	"                              that has sent no whole request head is closed\n"
	"                              (default 4096)\n"
	"  --max-connections-per-address N\n"
	"                              connections from one client address (default\n"
	"                              256); more are refused\n"
	"  --shutdown-delay SECS       on SIGTERM, how long to go on serving, unready\n"
	"                              and asking clients to reconnect, before the\n"
	"                              drain (default 5; 0: drain at once)\n"
	"  --drain-timeout SECS        how long shutdown waits for requests (default 20)\n"
	"  --threads N                 server threads (default: one per CPU)\n"
	"  --memory-budget BYTES       memory the reviews in flight may take, e.g.\n"
	"                              128Mi; a review past it waits, then is\n"
	"                              answered as a failure (default: half the\n"
	"                              cgroup's memory limit, else 1Gi; 0: none)\n"
	"  --client-ca FILE            require a client certificate signed by these\n"
	"                              CAs (PEM) on /mutate (the API server's\n"
	"                              AdmissionConfiguration kubeconfig presents it)\n"
	"  -h, --help                  show this help\n"
	"  --version                   show the version\n"
	"\n"
	"Each option can also come from the environment: GPUMEND_LISTEN,\n"
	"GPUMEND_TLS_CERT, GPUMEND_TLS_KEY, GPUMEND_CONFIG, GPUMEND_LOG_LEVEL,\n"
	"GPUMEND_MAX_BODY, GPUMEND_CONNECTION_TIMEOUT, GPUMEND_HEADER_TIMEOUT,\n"
	"GPUMEND_MAX_CONNECTIONS, GPUMEND_MAX_CONNECTIONS_PER_ADDRESS,\n"
	"GPUMEND_SHUTDOWN_DELAY, GPUMEND_DRAIN_TIMEOUT, GPUMEND_THREADS,\n"
	"GPUMEND_MEMORY_BUDGET, GPUMEND_CLIENT_CA; options given on the command\n"
	"line win.\n"
	"\n"
	"The certificate, key and config files are re-read when they change, and on\n"
	"SIGHUP; a broken new certificate pair or config is refused and the one in use\n"
	"kept. SIGTERM or SIGINT: /readyz answers 503 at once; reviews are served for\n"
	"the shutdown delay, each answer asking the client to close its connection;\n"
	"then stop accepting, finish requests in flight, exit 0. A second SIGTERM or\n"
	"SIGINT ends the delay early.\n";

struct options {
	const char *listen;
	const char *tls_cert;
	const char *tls_key;
	const char *config;
	const char *log_level;
	const char *max_body;
	const char *connection_timeout;
	const char *header_timeout;
	const char *max_connections;
	const char *max_per_address;
	const char *shutdown_delay;
	const char *drain_timeout;
	const char *threads;
	const char *client_ca;
	const char *memory_budget;
};

/* One option: its flag, its environment variable, where it goes. */
struct option_spec {
	const char *flag;
	const char *short_flag;
	const char *env;
	size_t offset;
};

static const struct option_spec option_specs[] = {
	{ "--listen", NULL, "GPUMEND_LISTEN", offsetof(struct options, listen) },
	{ "--tls-cert", NULL, "GPUMEND_TLS_CERT", offsetof(struct options, tls_cert) },
	{ "--tls-key", NULL, "GPUMEND_TLS_KEY", offsetof(struct options, tls_key) },
	{ "--config", "-c", "GPUMEND_CONFIG", offsetof(struct options, config) },
	{ "--log-level", NULL, "GPUMEND_LOG_LEVEL", offsetof(struct options, log_level) },
	{ "--max-body", NULL, "GPUMEND_MAX_BODY", offsetof(struct options, max_body) },
	{ "--connection-timeout", NULL, "GPUMEND_CONNECTION_TIMEOUT",
	  offsetof(struct options, connection_timeout) },
	{ "--header-timeout", NULL, "GPUMEND_HEADER_TIMEOUT",
	  offsetof(struct options, header_timeout) },
	{ "--max-connections", NULL, "GPUMEND_MAX_CONNECTIONS",
	  offsetof(struct options, max_connections) },
	{ "--max-connections-per-address", NULL,
	  "GPUMEND_MAX_CONNECTIONS_PER_ADDRESS",
	  offsetof(struct options, max_per_address) },
	{ "--shutdown-delay", NULL, "GPUMEND_SHUTDOWN_DELAY",
	  offsetof(struct options, shutdown_delay) },
	{ "--drain-timeout", NULL, "GPUMEND_DRAIN_TIMEOUT",
	  offsetof(struct options, drain_timeout) },
	{ "--threads", NULL, "GPUMEND_THREADS", offsetof(struct options, threads) },
	{ "--client-ca", NULL, "GPUMEND_CLIENT_CA", offsetof(struct options, client_ca) },
	{ "--memory-budget", NULL, "GPUMEND_MEMORY_BUDGET",
	  offsetof(struct options, memory_budget) },
};
#define N_OPTIONS (sizeof(option_specs) / sizeof(option_specs[0]))

static const char **option_slot(struct options *o, const struct option_spec *spec)
{
	return (const char **)(void *)((char *)o + spec->offset);
}

/*
 * Fills `o` from argv, then fills what is still unset from the
 * environment. Returns 0, 1 after --help or --version, or -1 on a usage
 * error (reported).
 */
static int options_parse(int argc, char **argv, struct options *o)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const struct option_spec *spec = NULL;
		const char *value = NULL;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			fputs(usage, stdout);
			return 1;
		}
		if (!strcmp(arg, "--version")) {
			printf("gpumend-webhook %s (%s)\n", GPUMEND_VERSION,
			       GPUMEND_REVISION);
			return 1;
		}
		for (size_t k = 0; k < N_OPTIONS && !spec; k++) {
			size_t len = strlen(option_specs[k].flag);

			if (!strcmp(arg, option_specs[k].flag) ||
			    (option_specs[k].short_flag &&
			     !strcmp(arg, option_specs[k].short_flag))) {
				spec = &option_specs[k];
			} else if (!strncmp(arg, option_specs[k].flag, len) &&
				   arg[len] == '=') {
				spec = &option_specs[k];
				value = arg + len + 1;
			}
		}
		if (!spec) {
			msg_error("unknown option '%s' (see --help)", arg);
			return -1;
		}
		if (!value) {
			if (++i == argc) {
				msg_error("option '%s' needs a value", arg);
				return -1;
			}
			value = argv[i];
		}
		*option_slot(o, spec) = value;
	}
	for (size_t k = 0; k < N_OPTIONS; k++) {
		const char **slot = option_slot(o, &option_specs[k]);
		const char *env = getenv(option_specs[k].env);

		if (!*slot && env && *env)
			*slot = env;
	}
	return 0;
}

/* Parses a whole number in [min, max]; quantity suffixes (Ki, Mi) allowed
 * when `quantity`. */
static int parse_number(const char *name, const char *text, int quantity,
			long long min, long long max, long long *value)
{
	long long milli;
	char *end;

	if (quantity) {
		if (quantity_parse_milli(text, &milli) != 0 || milli % 1000)
			goto out_bad;
		*value = milli / 1000;
	} else {
		errno = 0;
		*value = strtoll(text, &end, 10);
		if (errno || end == text || *end)
			goto out_bad;
	}
	if (*value < min || *value > max) {
		msg_error("%s '%s' is out of range (%lld to %lld)", name, text,
			  min, max);
		return -1;
	}
	return 0;
out_bad:
	msg_error("%s '%s' is not a whole number", name, text);
	return -1;
}

/* "ADDR:PORT", "[IPv6]:PORT" or ":PORT" (every IPv4 address). */
static int parse_listen(const char *text, struct server_options *opts)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *port_text, *close_bracket;
	struct sockaddr_in *v4 = (struct sockaddr_in *)(void *)&opts->address;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)(void *)&opts->address;
	long long port;
	size_t host_len;
	int ipv6 = 0;

	memset(&opts->address, 0, sizeof(opts->address));
	if (text[0] == '[') {
		close_bracket = strchr(text, ']');
		if (!close_bracket || close_bracket[1] != ':')
			goto out_bad;
		host_len = (size_t)(close_bracket - text - 1);
		if (host_len >= sizeof(host))
			goto out_bad;
		memcpy(host, text + 1, host_len);
		port_text = close_bracket + 2;
		ipv6 = 1;
	} else {
		port_text = strrchr(text, ':');
		if (!port_text)
			goto out_bad;
		host_len = (size_t)(port_text - text);
		if (host_len >= sizeof(host))
			goto out_bad;
		memcpy(host, text, host_len);
		port_text++;
	}
	host[host_len] = '\0';
	if (parse_number("port of --listen", port_text, 0, 0, 65535, &port))
		return -1;
	if (ipv6) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		if (!*host)
			v6->sin6_addr = in6addr_any;
		else if (inet_pton(AF_INET6, host, &v6->sin6_addr) != 1)
			goto out_bad;
		opts->address_len = sizeof(*v6);
	} else {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		if (!*host)
			v4->sin_addr.s_addr = htonl(INADDR_ANY);
		else if (inet_pton(AF_INET, host, &v4->sin_addr) != 1)
			goto out_bad;
		opts->address_len = sizeof(*v4);
	}
	return 0;
out_bad:
	msg_error("invalid listen address '%s': expected ADDR:PORT or [IPV6]:PORT with a numeric address",
		  text);
	return -1;
}

static void format_listen(const struct server_options *opts, unsigned port,
			  char *out, size_t size)
{
	char host[INET6_ADDRSTRLEN];

	if (opts->address.ss_family == AF_INET6) {
		const struct sockaddr_in6 *v6 = (const void *)&opts->address;

		inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host));
		snprintf(out, size, "[%s]:%u", host, port);
	} else {
		const struct sockaddr_in *v4 = (const void *)&opts->address;

		inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host));
		snprintf(out, size, "%s:%u", host, port);
	}
}

static unsigned listen_port(const struct server_options *opts)
{
	const struct sockaddr_in6 *v6 = (const void *)&opts->address;
	const struct sockaddr_in *v4 = (const void *)&opts->address;

	if (opts->address.ss_family == AF_INET6)
		return ntohs(v6->sin6_port);
	return ntohs(v4->sin_port);
}

static unsigned cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > 64 ? 64 : (unsigned)n;
}

/* ------------------------------------------------------------------ */
/* Reloads                                                             */

/* A watched file: its path and what stat said last time. */
struct watched_file {
	const char *path;
	const char *dir_name;     /* copy, owned */
	const char *base_name;    /* inside path */
	int watch;                /* inotify descriptor of its directory */
	struct stat last;
	int last_ok;
};

struct state {
	struct server *server;
	struct tls_store *tls;
	const char *config_path;
	char *config_text;        /* the config file's text in use (or refused) */
	size_t config_len;
	struct watched_file files[3];
	size_t n_files;
	int inotify_fd;
};

static void log_certificate(struct state *st, const char *msg)
{
	struct tls_info info;

	if (tls_store_info(st->tls, &info) != 0)
		return;
	metrics_set_certificate_expiry(info.not_after);
	log_event(LOG_LEVEL_INFO, msg,
		  json_pack("{s:s, s:I, s:I, s:i}", "sha256", info.sha256,
			    "not_after", (json_int_t)info.not_after,
			    "not_before", (json_int_t)info.not_before,
			    "chain_length", (int)info.chain_length));
	if (info.not_after < (long long)time(NULL))
		log_event(LOG_LEVEL_WARN, "certificate expired",
			  json_pack("{s:I}", "not_after",
				    (json_int_t)info.not_after));
}

static void reload_certificate(struct state *st)
{
	char err[1024];
	int rc = tls_store_reload(st->tls, err, sizeof(err));

	if (rc > 0) {
		metrics_count_reload(METRICS_RELOAD_CERTIFICATE, 1);
		log_certificate(st, "certificate reloaded");
	} else if (rc < 0) {
		metrics_count_reload(METRICS_RELOAD_CERTIFICATE, 0);
		log_error_event(LOG_LEVEL_ERROR,
				"certificate reload refused, keeping the one in use",
				"%s", err);
	}
}

/* Reads the config file's text; NULL with `err` set on failure. */
static char *config_read(const char *path, size_t *len, char *err,
			 size_t errlen)
{
	struct buf text;
	char chunk[16384];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
			 strerror(errno));
		return NULL;
	}
	buf_init(&text, CONFIG_FILE_MAX);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (buf_append(&text, chunk, n) != 0) {
			snprintf(err, errlen, "cannot read '%s': larger than %zu bytes",
				 path, CONFIG_FILE_MAX);
			goto out_fail;
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
			 strerror(errno));
		goto out_fail;
	}
	fclose(f);
	return buf_detach(&text, len);
out_fail:
	fclose(f);
	buf_free(&text);
	return NULL;
}

/*
 * Loads the config file. With `force` it is parsed even when its text has
 * not changed. Returns the new config, or NULL when unchanged or refused
 * (logged unless `initial`, which reports through msg_error instead).
 */
static struct config *config_load(struct state *st, int force, int initial)
{
	char err[1024];
	struct config *cfg;
	size_t len = 0;
	char *text;

	text = config_read(st->config_path, &len, err, sizeof(err));
	if (!text)
		goto out_refused;
	if (!force && st->config_text && len == st->config_len &&
	    !memcmp(text, st->config_text, len)) {
		free(text);
		return NULL;
	}
	free(st->config_text);
	st->config_text = text;
	st->config_len = len;
	cfg = config_text_load_admission(st->config_path, text, len, err,
					 sizeof(err));
	if (!cfg)
		goto out_refused;
	return cfg;
out_refused:
	if (initial) {
		msg_error("%s", err);
	} else {
		metrics_count_reload(METRICS_RELOAD_CONFIG, 0);
		log_error_event(LOG_LEVEL_ERROR,
				"config reload refused, keeping the one in use",
				"%s", err);
	}
	return NULL;
}

static void reload_config(struct state *st, int force)
{
	struct config *cfg;

	if (!st->config_path)
		return;
	cfg = config_load(st, force, 0);
	if (!cfg)
		return;
	server_set_config(st->server, cfg);
	metrics_count_reload(METRICS_RELOAD_CONFIG, 1);
	log_event(LOG_LEVEL_INFO, "config reloaded",
		  json_pack("{s:o*}", "config", log_string(st->config_path)));
}

/* 1 when a stat of some watched file differs from the last one. */
static int files_changed(struct state *st)
{
	int changed = 0;

	for (size_t i = 0; i < st->n_files; i++) {
		struct watched_file *w = &st->files[i];
		struct stat now;
		int ok = stat(w->path, &now) == 0;

		if (ok != w->last_ok ||
		    (ok && (now.st_dev != w->last.st_dev ||
			    now.st_ino != w->last.st_ino ||
			    now.st_size != w->last.st_size ||
			    now.st_mtim.tv_sec != w->last.st_mtim.tv_sec ||
			    now.st_mtim.tv_nsec != w->last.st_mtim.tv_nsec)))
			changed = 1;
		w->last = now;
		w->last_ok = ok;
	}
	return changed;
}

static int watch_add(struct state *st, const char *path)
{
	struct watched_file *w = &st->files[st->n_files];
	const char *slash = strrchr(path, '/');
	char *dir;

	memset(w, 0, sizeof(*w));
	w->path = path;
	w->base_name = slash ? slash + 1 : path;
	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return -1;
	w->dir_name = dir;
	w->watch = -1;
	if (st->inotify_fd >= 0) {
		w->watch = inotify_add_watch(st->inotify_fd, dir,
					     IN_CLOSE_WRITE | IN_MOVED_TO |
					     IN_MOVED_FROM | IN_CREATE |
					     IN_DELETE | IN_ATTRIB);
		if (w->watch < 0)
			log_error_event(LOG_LEVEL_WARN,
					"cannot watch a directory; falling back to stat",
					"'%s': %s", dir, strerror(errno));
	}
	st->n_files++;
	return 0;
}

/*
 * Reads pending inotify events; returns 1 when one concerns a watched file
 * (its name, or a "..name" the kubelet's atomic writer swaps).
 */
static int watch_read(struct state *st)
{
	char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int relevant = 0;
	ssize_t len;

	while ((len = read(st->inotify_fd, events, sizeof(events))) > 0) {
		for (char *p = events; p < events + len;) {
			const struct inotify_event *ev = (const void *)p;

			for (size_t i = 0; i < st->n_files; i++) {
				const struct watched_file *w = &st->files[i];

				if (ev->wd != w->watch)
					continue;
				if (!ev->len || !strcmp(ev->name, w->base_name) ||
				    !strncmp(ev->name, "..", 2))
					relevant = 1;
			}
			if (ev->mask & IN_Q_OVERFLOW)
				relevant = 1;
			p += sizeof(*ev) + ev->len;
		}
	}
	return relevant;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The first SIGTERM or SIGINT: the server stops being ready and asks its
 * clients to reconnect, while it goes on serving for `delay_ms`. Returns
 * when the drain may start: the time it ends.
 */
static long long shutdown_begin(struct state *st, int signo,
				long long delay_ms)
{
	server_unready(st->server);
	log_event(LOG_LEVEL_INFO, "shutting down",
		  json_pack("{s:s, s:I}", "signal",
			    signo == SIGINT ? "SIGINT" : "SIGTERM",
			    "shutdown_delay", (json_int_t)(delay_ms / 1000)));
	return now_ms() + delay_ms;
}

/*
 * Waits for signals and file changes until SIGTERM or SIGINT, and then
 * for the shutdown delay of `delay_ms` (serving, reloading and sweeping
 * as before; a second SIGTERM or SIGINT ends it). Returns the signal that
 * began the shutdown.
 */
static int event_loop(struct state *st, int signal_fd, long long delay_ms)
{
	long long reload_at = -1, next_stat = now_ms() + STAT_INTERVAL_MS;
	long long stop_at = -1;
	int stop_signal = 0;

	files_changed(st);
	for (;;) {
		struct pollfd fds[2] = {
			{ .fd = signal_fd, .events = POLLIN },
			{ .fd = st->inotify_fd, .events = POLLIN },
		};
		long long now = now_ms(), deadline = next_stat;
		int timeout;

		if (reload_at >= 0 && reload_at < deadline)
			deadline = reload_at;
		if (stop_at >= 0 && stop_at < deadline)
			deadline = stop_at;
		timeout = deadline > now ? (int)(deadline - now) : 0;
		/* wake at least every half second to sweep slow requests */
		if (timeout > 500)
			timeout = 500;
		if (poll(fds, st->inotify_fd >= 0 ? 2 : 1, timeout) < 0 &&
		    errno != EINTR) {
			log_error_event(LOG_LEVEL_ERROR, "poll failed", "%s",
					strerror(errno));
			return stop_signal ? stop_signal : SIGTERM;
		}
		if (fds[0].revents & POLLIN) {
			struct signalfd_siginfo info;

			while (read(signal_fd, &info, sizeof(info)) ==
			       (ssize_t)sizeof(info)) {
				if (info.ssi_signo == SIGHUP) {
					log_event(LOG_LEVEL_INFO,
						  "reload requested (SIGHUP)",
						  NULL);
					reload_certificate(st);
					reload_config(st, 1);
					files_changed(st);
					continue;
				}
				if (info.ssi_signo != SIGTERM &&
				    info.ssi_signo != SIGINT)
					continue;
				if (stop_signal) {
					log_event(LOG_LEVEL_INFO,
						  "shutdown delay cut short",
						  NULL);
					return stop_signal;
				}
				stop_signal = (int)info.ssi_signo;
				if (delay_ms <= 0)
					return stop_signal;
				stop_at = shutdown_begin(st, stop_signal,
							 delay_ms);
			}
		}
		server_sweep(st->server);
		if (st->inotify_fd >= 0 && (fds[1].revents & POLLIN) &&
		    watch_read(st))
			reload_at = now_ms() + RELOAD_DEBOUNCE_MS;
		now = now_ms();
		if (now >= next_stat) {
			next_stat = now + STAT_INTERVAL_MS;
			/* a pair refused as not valid yet may be valid now */
			if ((files_changed(st) || tls_store_waiting(st->tls)) &&
			    reload_at < 0)
				reload_at = now;
		}
		if (reload_at >= 0 && now >= reload_at) {
			reload_at = -1;
			reload_certificate(st);
			reload_config(st, 0);
			files_changed(st);
		}
		if (stop_at >= 0 && now >= stop_at)
			return stop_signal;
	}
}

/* ------------------------------------------------------------------ */

/*
 * Reads the client CA bundle: at least one PEM certificate, checked here so
 * that a wrong file stops the start with a clear message.
 */
static char *read_client_ca(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, cap = 0;
	gnutls_x509_crt_t *list = NULL;
	unsigned int n = 0;
	gnutls_datum_t pem;
	int rc;

	if (!f) {
		msg_error("cannot open client CA '%s': %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t got;

		if (len + 4096 + 1 > cap) {
			char *grown;

			cap = cap ? cap * 2 : 8192;
			if (cap > (1u << 20) || !(grown = realloc(text, cap))) {
				msg_error("client CA '%s' is too large", path);
				goto out_fail;
			}
			text = grown;
		}
		got = fread(text + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		msg_error("cannot read client CA '%s'", path);
		goto out_fail;
	}
	fclose(f);
	f = NULL;
	text[len] = '\0';
	pem.data = (unsigned char *)text;
	pem.size = (unsigned)len;
	rc = gnutls_x509_crt_list_import2(&list, &n, &pem, GNUTLS_X509_FMT_PEM, 0);
	if (rc < 0 || n == 0) {
		msg_error("client CA '%s' holds no PEM certificate: %s", path,
			  rc < 0 ? gnutls_strerror(rc) : "empty");
		goto out_fail;
	}
	for (unsigned int i = 0; i < n; i++)
		gnutls_x509_crt_deinit(list[i]);
	gnutls_free(list);
	return text;
out_fail:
	if (f)
		fclose(f);
	free(text);
	return NULL;
}

/*
 * A whole-number option in [min, max]: `text` (NULL when not given, then
 * `fallback`) into *out. 0, or -1 when it is not one (said).
 */
static int option_unsigned(const char *flag, const char *text, long long min,
			   long long max, unsigned fallback, unsigned *out)
{
	long long number;

	*out = fallback;
	if (!text)
		return 0;
	if (parse_number(flag, text, 0, min, max, &number))
		return -1;
	*out = (unsigned)number;
	return 0;
}

/*
 * Raises the soft limit on open descriptors towards what the connection
 * limit needs (container runtimes often start processes at 1024); when the
 * hard limit does not allow it, lowers the connection limit to fit, with a
 * warning. Returns the soft limit in force.
 */
static long long fd_limit_raise(struct server_options *sopts)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)sopts->max_connections + SERVER_FD_RESERVE;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -1;
	if (rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ?
			      want : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		unsigned fit = rl.rlim_cur > 2 * SERVER_FD_RESERVE ?
			       (unsigned)(rl.rlim_cur - SERVER_FD_RESERVE) :
			       (unsigned)(rl.rlim_cur / 2);

		log_error_event(LOG_LEVEL_WARN, "connection limit lowered",
				"%u connections need %llu descriptors, and the limit is %llu: at most %u connections",
				sopts->max_connections, (unsigned long long)want,
				(unsigned long long)rl.rlim_cur, fit);
		sopts->max_connections = fit;
	}
	if (sopts->max_per_address > sopts->max_connections)
		sopts->max_per_address = sopts->max_connections;
	return rl.rlim_cur == RLIM_INFINITY ? -1 : (long long)rl.rlim_cur;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	char *client_ca = NULL;
	struct server_options sopts = { 0 };
	struct state st = { .inotify_fd = -1 };
	enum log_level level = LOG_LEVEL_INFO;
	long long number, drain_timeout = 20, shutdown_delay = 5;
	struct config *cfg = NULL;
	char err[1024], listen_text[80];
	sigset_t signals;
	int signal_fd = -1, rc, status = 1, signo;
	long long fd_limit;
	long left = 0;

	msg_set_program("gpumend-webhook");
	/* request bodies and large documents come and go: above 128 KiB they
	 * are mapped and unmapped rather than left in the heap, and fewer
	 * arenas leave less memory stranded between bursts */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	mallopt(M_ARENA_MAX, 2);
	/* each review's json values live in its thread's region */
	json_arena_scoped();
	rc = options_parse(argc, argv, &o);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (o.log_level && log_level_parse(o.log_level, &level) != 0) {
		msg_error("unknown log level '%s' (debug, info, warn, error)",
			  o.log_level);
		return 2;
	}
	log_set_level(level);
	if (!o.tls_cert || !o.tls_key) {
		msg_error("missing %s (or GPUMEND_TLS_%s); see --help",
			  !o.tls_cert ? "--tls-cert" : "--tls-key",
			  !o.tls_cert ? "CERT" : "KEY");
		return 2;
	}
	if (parse_listen(o.listen ? o.listen : "0.0.0.0:8443", &sopts))
		return 2;
	sopts.max_body = ADMISSION_MAX_BODY_DEFAULT;
	if (o.max_body) {
		if (parse_number("--max-body", o.max_body, 1, 1024,
				 (long long)256 << 20, &number))
			return 2;
		sopts.max_body = (size_t)number;
	}
	if (option_unsigned("--connection-timeout", o.connection_timeout, 1,
			    3600, 30, &sopts.connection_timeout) ||
	    option_unsigned("--header-timeout", o.header_timeout, 0, 3600,
			    SERVER_HEADER_TIMEOUT_DEFAULT, &sopts.header_timeout) ||
	    option_unsigned("--max-connections", o.max_connections, 1, 1000000,
			    SERVER_MAX_CONNECTIONS_DEFAULT,
			    &sopts.max_connections) ||
	    option_unsigned("--max-connections-per-address", o.max_per_address,
			    1, 1000000, SERVER_MAX_PER_ADDRESS_DEFAULT,
			    &sopts.max_per_address))
		return 2;
	if (o.shutdown_delay &&
	    parse_number("--shutdown-delay", o.shutdown_delay, 0, 0, 3600,
			 &shutdown_delay))
		return 2;
	if (o.drain_timeout &&
	    parse_number("--drain-timeout", o.drain_timeout, 0, 0, 3600,
			 &drain_timeout))
		return 2;
	sopts.threads = cpu_count();
	if (o.threads) {
		if (parse_number("--threads", o.threads, 0, 1, 256, &number))
			return 2;
		sopts.threads = (unsigned)number;
	}

	sopts.memory_budget = server_memory_budget_default();
	if (o.memory_budget) {
		if (parse_number("--memory-budget", o.memory_budget, 1, 0,
				 (long long)1 << 50, &number))
			return 2;
		sopts.memory_budget = (size_t)number;
	}
	if (o.client_ca && !(client_ca = read_client_ca(o.client_ca)))
		return 2;
	sopts.client_ca_pem = client_ca;

	fd_limit = fd_limit_raise(&sopts);

	metrics_reset();
	/* every thread started from here inherits the blocked signals */
	sigemptyset(&signals);
	sigaddset(&signals, SIGTERM);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGHUP);
	if (pthread_sigmask(SIG_BLOCK, &signals, NULL) != 0 ||
	    (signal_fd = signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		msg_error("cannot set up signal handling: %s", strerror(errno));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);

	st.config_path = o.config;
	if (o.config)
		cfg = config_load(&st, 1, 1);
	else
		cfg = config_new_default();
	if (!cfg) {
		if (!o.config)
			msg_error("out of memory");
		goto out_close;
	}
	if (!(st.tls = tls_store_new(o.tls_cert, o.tls_key))) {
		msg_error("out of memory");
		config_free(cfg);
		goto out_close;
	}
	if (tls_store_reload(st.tls, err, sizeof(err)) != 1) {
		msg_error("%s", err);
		config_free(cfg);
		goto out_free_tls;
	}
	st.server = server_start(&sopts, st.tls, cfg, err, sizeof(err));
	if (!st.server) {
		format_listen(&sopts, listen_port(&sopts), listen_text,
			      sizeof(listen_text));
		msg_error("cannot listen on '%s': %s", listen_text, err);
		goto out_free_tls;
	}
	format_listen(&sopts, server_port(st.server), listen_text,
		      sizeof(listen_text));
	log_event(LOG_LEVEL_INFO, "started",
		  json_pack("{s:s, s:s, s:i, s:I, s:I, s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:o*, s:o*, s:o*}",
			    "version", GPUMEND_VERSION, "listen", listen_text,
			    "threads", (int)sopts.threads,
			    "max_body", (json_int_t)sopts.max_body,
			    "memory_budget", (json_int_t)sopts.memory_budget,
			    "connection_timeout", (int)sopts.connection_timeout,
			    "header_timeout", (int)sopts.header_timeout,
			    "max_connections", (json_int_t)sopts.max_connections,
			    "max_connections_per_address",
			    (json_int_t)sopts.max_per_address,
			    "fd_limit", (json_int_t)fd_limit,
			    "shutdown_delay", (json_int_t)shutdown_delay,
			    "drain_timeout", (json_int_t)drain_timeout,
			    "tls_cert", log_string(o.tls_cert),
			    "tls_key", log_string(o.tls_key),
			    "config", o.config ? log_string(o.config)
					       : json_string("(built-in defaults)")));
	log_certificate(&st, "certificate loaded");
	metrics_count_reload(METRICS_RELOAD_CERTIFICATE, 1);
	if (o.config)
		metrics_count_reload(METRICS_RELOAD_CONFIG, 1);

	st.inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (st.inotify_fd < 0)
		log_error_event(LOG_LEVEL_WARN,
				"cannot watch files; falling back to stat", "%s",
				strerror(errno));
	if (watch_add(&st, o.tls_cert) || watch_add(&st, o.tls_key) ||
	    (o.config && watch_add(&st, o.config)))
		log_error_event(LOG_LEVEL_WARN, "cannot watch files",
				"out of memory");

	signo = event_loop(&st, signal_fd, shutdown_delay * 1000);
	server_quiesce(st.server);
	log_event(LOG_LEVEL_INFO, "draining",
		  json_pack("{s:s, s:I, s:I}", "signal",
			    signo == SIGINT ? "SIGINT" : "SIGTERM",
			    "in_flight", (json_int_t)metrics_in_flight(),
			    "drain_timeout", (json_int_t)drain_timeout));
	if (server_drain(st.server, (unsigned)drain_timeout * 1000, &left))
		log_event(LOG_LEVEL_WARN, "drain timed out",
			  json_pack("{s:I}", "abandoned", (json_int_t)left));
	server_stop(st.server);
	log_event(LOG_LEVEL_INFO, "stopped", NULL);
	status = 0;

	for (size_t i = 0; i < st.n_files; i++)
		free((char *)st.files[i].dir_name);
	if (st.inotify_fd >= 0)
		close(st.inotify_fd);
out_free_tls:
	tls_store_free(st.tls);
out_close:
	free(st.config_text);
	free(client_ca);
	close(signal_fd);
	return status;
}
