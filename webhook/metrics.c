/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metrics.c - counters and their Prometheus text exposition, with the
 * standard process_* metrics read from /proc/self at each scrape.
 */
#include <dirent.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "metrics.h"

static const char *const path_labels[METRICS_PATH_COUNT] = {
	"/mutate", "/healthz", "/readyz", "/metrics", "other"
};

/* The status codes the server answers with; the last slot is "other". */
static const int status_codes[] = { 200, 400, 404, 405, 413, 415, 500, 503 };
#define N_STATUS (sizeof(status_codes) / sizeof(status_codes[0]) + 1)

/* Admission latency buckets: sub-millisecond first, the engine is fast. */
static const uint64_t bucket_ns[] = {
	50000, 100000, 250000, 500000, 1000000, 2500000, 5000000,
	10000000, 25000000, 50000000, 100000000, 250000000, 1000000000,
};
static const char *const bucket_labels[] = {
	"5e-05", "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005",
	"0.01", "0.025", "0.05", "0.1", "0.25", "1",
};
#define N_BUCKETS (sizeof(bucket_ns) / sizeof(bucket_ns[0]))

static const char *const error_labels[METRICS_ERROR_COUNT] = {
	"bad_request", "internal", "timeout", "evicted", "overloaded"
};
static const char *const reload_labels[METRICS_RELOAD_COUNT] = {
	"certificate", "config"
};

static struct {
	atomic_ullong requests[METRICS_PATH_COUNT][N_STATUS];
	atomic_ullong buckets[N_BUCKETS + 1];   /* not cumulative; last: +Inf */
	atomic_ullong latency_sum_ns;
	atomic_ullong mutations[RULE_COUNT];
	atomic_ullong findings[RULE_COUNT][3];
	atomic_ullong errors[METRICS_ERROR_COUNT];
	atomic_ullong reloads[METRICS_RELOAD_COUNT][2]; /* [kind][ok] */
	atomic_llong certificate_expiry;
	atomic_long in_flight;
	atomic_int ready;
	atomic_int config_hash_mismatch;
	atomic_llong start_time;
} m;

const char *metrics_path_name(enum metrics_path path)
{
	return (unsigned)path < METRICS_PATH_COUNT ? path_labels[path]
						   : path_labels[METRICS_PATH_OTHER];
}

void metrics_reset(void)
{
	for (size_t p = 0; p < METRICS_PATH_COUNT; p++)
		for (size_t s = 0; s < N_STATUS; s++)
			atomic_store(&m.requests[p][s], 0);
	for (size_t b = 0; b <= N_BUCKETS; b++)
		atomic_store(&m.buckets[b], 0);
	atomic_store(&m.latency_sum_ns, 0);
	for (size_t r = 0; r < RULE_COUNT; r++) {
		atomic_store(&m.mutations[r], 0);
		for (size_t s = 0; s < 3; s++)
			atomic_store(&m.findings[r][s], 0);
	}
	for (size_t e = 0; e < METRICS_ERROR_COUNT; e++)
		atomic_store(&m.errors[e], 0);
	for (size_t k = 0; k < METRICS_RELOAD_COUNT; k++) {
		atomic_store(&m.reloads[k][0], 0);
		atomic_store(&m.reloads[k][1], 0);
	}
	atomic_store(&m.certificate_expiry, 0);
	atomic_store(&m.in_flight, 0);
	atomic_store(&m.ready, 0);
	atomic_store(&m.start_time, (long long)time(NULL));
}

void metrics_count_request(enum metrics_path path, int status)
{
	size_t s = 0;

	if ((unsigned)path >= METRICS_PATH_COUNT)
		path = METRICS_PATH_OTHER;
	while (s < N_STATUS - 1 && status_codes[s] != status)
		s++;
	atomic_fetch_add_explicit(&m.requests[path][s], 1,
				  memory_order_relaxed);
}

void metrics_observe_admission(uint64_t nanoseconds)
{
	size_t b = 0;

	while (b < N_BUCKETS && nanoseconds > bucket_ns[b])
		b++;
	atomic_fetch_add_explicit(&m.buckets[b], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&m.latency_sum_ns, nanoseconds,
				  memory_order_relaxed);
}

void metrics_count_mutation(enum rule_id rule)
{
	if ((unsigned)rule < RULE_COUNT)
		atomic_fetch_add_explicit(&m.mutations[rule], 1,
					  memory_order_relaxed);
}

void metrics_count_finding(enum rule_id rule, enum severity severity)
{
	if ((unsigned)rule < RULE_COUNT && (unsigned)severity < 3)
		atomic_fetch_add_explicit(&m.findings[rule][severity], 1,
					  memory_order_relaxed);
}

void metrics_count_error(enum metrics_error kind)
{
	if ((unsigned)kind < METRICS_ERROR_COUNT)
		atomic_fetch_add_explicit(&m.errors[kind], 1,
					  memory_order_relaxed);
}

void metrics_count_reload(enum metrics_reload kind, int ok)
{
	if ((unsigned)kind < METRICS_RELOAD_COUNT)
		atomic_fetch_add_explicit(&m.reloads[kind][ok ? 1 : 0], 1,
					  memory_order_relaxed);
}

void metrics_set_certificate_expiry(int64_t unix_seconds)
{
	atomic_store(&m.certificate_expiry, (long long)unix_seconds);
}

void metrics_add_in_flight(int delta)
{
	atomic_fetch_add(&m.in_flight, delta);
}

long metrics_in_flight(void)
{
	return atomic_load(&m.in_flight);
}

void metrics_set_ready(int ready)
{
	atomic_store(&m.ready, ready ? 1 : 0);
}

void metrics_set_config_hash_mismatch(int mismatch)
{
	atomic_store(&m.config_hash_mismatch, mismatch ? 1 : 0);
}

static unsigned long long load(atomic_ullong *counter)
{
	return atomic_load_explicit(counter, memory_order_relaxed);
}

static int header(struct buf *out, const char *name, const char *type,
		  const char *help)
{
	return buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help,
			  name, type);
}

static int render_requests(struct buf *out)
{
	int rc = header(out, "gpumend_http_requests_total", "counter",
			"HTTP requests answered, by path and status code");

	for (size_t p = 0; !rc && p < METRICS_PATH_COUNT; p++) {
		for (size_t s = 0; !rc && s < N_STATUS; s++) {
			unsigned long long n = load(&m.requests[p][s]);
			char code[16];

			if (!n)
				continue;
			if (s < N_STATUS - 1)
				snprintf(code, sizeof(code), "%d", status_codes[s]);
			else
				snprintf(code, sizeof(code), "other");
			rc = buf_printf(out,
					"gpumend_http_requests_total{path=\"%s\",code=\"%s\"} %llu\n",
					path_labels[p], code, n);
		}
	}
	return rc;
}

static int render_latency(struct buf *out)
{
	unsigned long long cumulative = 0, sum_ns;
	int rc = header(out, "gpumend_admission_duration_seconds", "histogram",
			"Time to answer an admission review, body received to response queued");

	for (size_t b = 0; !rc && b < N_BUCKETS; b++) {
		cumulative += load(&m.buckets[b]);
		rc = buf_printf(out,
				"gpumend_admission_duration_seconds_bucket{le=\"%s\"} %llu\n",
				bucket_labels[b], cumulative);
	}
	cumulative += load(&m.buckets[N_BUCKETS]);
	sum_ns = load(&m.latency_sum_ns);
	if (!rc)
		rc = buf_printf(out,
				"gpumend_admission_duration_seconds_bucket{le=\"+Inf\"} %llu\n"
				"gpumend_admission_duration_seconds_sum %llu.%09llu\n"
				"gpumend_admission_duration_seconds_count %llu\n",
				cumulative, sum_ns / 1000000000ull,
				sum_ns % 1000000000ull, cumulative);
	return rc;
}

static int render_rules(struct buf *out)
{
	int rc = header(out, "gpumend_mutations_total", "counter",
			"Admission reviews whose object a rule changed, by rule");

	for (size_t r = 0; !rc && r < RULE_COUNT; r++)
		rc = buf_printf(out, "gpumend_mutations_total{rule=\"%s\"} %llu\n",
				rule_info_get((enum rule_id)r)->name,
				load(&m.mutations[r]));
	if (!rc)
		rc = header(out, "gpumend_findings_total", "counter",
			    "Findings reported in admission reviews, by rule and severity");
	for (size_t r = 0; !rc && r < RULE_COUNT; r++) {
		for (size_t s = 0; !rc && s < 3; s++) {
			unsigned long long n = load(&m.findings[r][s]);

			if (!n)
				continue;
			rc = buf_printf(out,
					"gpumend_findings_total{rule=\"%s\",severity=\"%s\"} %llu\n",
					rule_info_get((enum rule_id)r)->name,
					severity_name((enum severity)s), n);
		}
	}
	return rc;
}

/* What the process_* metrics say, from /proc. */
struct process_stats {
	double cpu_seconds;
	double start_time;          /* unix seconds */
	unsigned long long virtual_bytes, resident_bytes;
	long long open_fds, max_fds;
};

/* The boot time in unix seconds (btime of /proc/stat); -1 when unknown. */
static long long boot_time(void)
{
	char line[256];
	long long btime = -1;
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %lld", &btime) == 1)
			break;
	fclose(f);
	return btime;
}

/* Descriptors open in this process (not counting the one that reads). */
static long long open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long long n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
			n++;
	closedir(d);
	return n;
}

/*
 * Reads /proc/self/stat (proc(5): after the command in parentheses, which
 * may hold anything, field 3 is the state; 14 and 15 utime and stime, 22
 * starttime in clock ticks since boot, 23 vsize in bytes, 24 rss in
 * pages). 0, or -1 when /proc cannot be read.
 */
static int process_stats_read(struct process_stats *ps)
{
	char text[1024], *p;
	unsigned long long utime, stime, start, vsize;
	long long rss, btime;
	long ticks = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	struct rlimit rl;
	size_t len;
	FILE *f = fopen("/proc/self/stat", "r");

	if (!f)
		return -1;
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	if (!(p = strrchr(text, ')')) || ticks <= 0 || page <= 0 ||
	    sscanf(p + 1,
		   " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu"
		   " %*d %*d %*d %*d %*d %*d %llu %llu %lld",
		   &utime, &stime, &start, &vsize, &rss) != 5 ||
	    (btime = boot_time()) < 0)
		return -1;
	ps->cpu_seconds = (double)(utime + stime) / (double)ticks;
	ps->start_time = (double)btime + (double)start / (double)ticks;
	ps->virtual_bytes = vsize;
	ps->resident_bytes = rss > 0 ? (unsigned long long)rss *
				       (unsigned long long)page : 0;
	ps->open_fds = open_fds();
	ps->max_fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
		      rl.rlim_cur != RLIM_INFINITY ? (long long)rl.rlim_cur : -1;
	return 0;
}

/* The process_* metrics of Prometheus' client libraries, in this order. */
static const struct process_family {
	const char *name, *type, *help;
} process_families[] = {
	{ "process_cpu_seconds_total", "counter",
	  "Total user and system CPU time spent in seconds" },
	{ "process_start_time_seconds", "gauge",
	  "Start time of the process since unix epoch in seconds" },
	{ "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes" },
	{ "process_resident_memory_bytes", "gauge", "Resident memory size in bytes" },
	{ "process_open_fds", "gauge", "Number of open file descriptors" },
	{ "process_max_fds", "gauge", "Maximum number of open file descriptors" },
};
#define N_PROCESS_FAMILIES (sizeof(process_families) / sizeof(process_families[0]))

/* The process_* metrics; none when /proc cannot be read, and no
 * descriptor counts when they are unknown. */
static int render_process(struct buf *out)
{
	char value[N_PROCESS_FAMILIES][32] = { "" };
	struct process_stats ps;
	int rc = 0;

	if (process_stats_read(&ps) != 0)
		return 0;
	snprintf(value[0], sizeof(value[0]), "%.2f", ps.cpu_seconds);
	snprintf(value[1], sizeof(value[1]), "%.2f", ps.start_time);
	snprintf(value[2], sizeof(value[2]), "%llu", ps.virtual_bytes);
	snprintf(value[3], sizeof(value[3]), "%llu", ps.resident_bytes);
	if (ps.open_fds >= 0)
		snprintf(value[4], sizeof(value[4]), "%lld", ps.open_fds);
	if (ps.max_fds >= 0)
		snprintf(value[5], sizeof(value[5]), "%lld", ps.max_fds);
	for (size_t i = 0; !rc && i < N_PROCESS_FAMILIES; i++) {
		const struct process_family *f = &process_families[i];

		if (!value[i][0])
			continue;
		rc = header(out, f->name, f->type, f->help);
		if (!rc)
			rc = buf_printf(out, "%s %s\n", f->name, value[i]);
	}
	return rc;
}

int metrics_render(struct buf *out)
{
	int rc;

	rc = header(out, "gpumend_build_info", "gauge",
		    "Version of the running gpumend-webhook");
	if (!rc)
		rc = buf_printf(out, "gpumend_build_info{version=\"%s\"} 1\n",
				GPUMEND_VERSION);
	if (!rc)
		rc = header(out, "gpumend_start_time_seconds", "gauge",
			    "Start time of the process, in unix seconds");
	if (!rc)
		rc = buf_printf(out, "gpumend_start_time_seconds %lld\n",
				(long long)atomic_load(&m.start_time));
	if (!rc)
		rc = render_requests(out);
	if (!rc)
		rc = render_latency(out);
	if (!rc)
		rc = render_rules(out);
	if (!rc)
		rc = header(out, "gpumend_errors_total", "counter",
			    "Admission reviews that could not be reviewed, by kind");
	for (size_t e = 0; !rc && e < METRICS_ERROR_COUNT; e++)
		rc = buf_printf(out, "gpumend_errors_total{kind=\"%s\"} %llu\n",
				error_labels[e], load(&m.errors[e]));
	if (!rc)
		rc = header(out, "gpumend_reloads_total", "counter",
			    "Reloads of the certificate and the config, by result");
	for (size_t k = 0; !rc && k < METRICS_RELOAD_COUNT; k++)
		rc = buf_printf(out,
				"gpumend_reloads_total{kind=\"%s\",result=\"success\"} %llu\n"
				"gpumend_reloads_total{kind=\"%s\",result=\"failure\"} %llu\n",
				reload_labels[k], load(&m.reloads[k][1]),
				reload_labels[k], load(&m.reloads[k][0]));
	if (!rc)
		rc = header(out, "gpumend_certificate_expiry_timestamp_seconds",
			    "gauge",
			    "notAfter of the serving certificate, in unix seconds");
	if (!rc)
		rc = buf_printf(out,
				"gpumend_certificate_expiry_timestamp_seconds %lld\n",
				(long long)atomic_load(&m.certificate_expiry));
	if (!rc)
		rc = header(out, "gpumend_in_flight_requests", "gauge",
			    "HTTP requests being processed");
	if (!rc)
		rc = buf_printf(out, "gpumend_in_flight_requests %ld\n",
				atomic_load(&m.in_flight));
	if (!rc)
		rc = header(out, "gpumend_ready", "gauge",
			    "1 while the webhook is ready to serve (GET /readyz answers 200)");
	if (!rc)
		rc = buf_printf(out, "gpumend_ready %d\n", atomic_load(&m.ready));
	if (!rc)
		rc = header(out, "gpumend_config_hash_mismatch", "gauge",
			    "1 when the registration's conditions were made for another config (regenerate it with gpumend webhook-config)");
	if (!rc)
		rc = buf_printf(out, "gpumend_config_hash_mismatch %d\n",
				atomic_load(&m.config_hash_mismatch));
	if (!rc)
		rc = render_process(out);
	return rc;
}
