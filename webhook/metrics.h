/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metrics.h - the webhook's counters, exported at GET /metrics in the
 * Prometheus text format 0.0.4.
 *
 * All counters are process-wide atomics: recording never blocks or
 * allocates, so it is safe from any server thread. Label sets are fixed and
 * small (paths, status codes, rules), so the output is bounded.
 */
#ifndef GPUMEND_WEBHOOK_METRICS_H
#define GPUMEND_WEBHOOK_METRICS_H

#include <stdint.h>

#include "buf.h"
#include "rules.h"

/* The paths requests are counted by; anything else is "other". */
enum metrics_path {
	METRICS_PATH_MUTATE,
	METRICS_PATH_HEALTHZ,
	METRICS_PATH_READYZ,
	METRICS_PATH_METRICS,
	METRICS_PATH_OTHER,
	METRICS_PATH_COUNT
};

enum metrics_error {
	METRICS_ERROR_BAD_REQUEST,   /* unreadable review, wrong types */
	METRICS_ERROR_INTERNAL,      /* engine failure, out of memory */
	METRICS_ERROR_TIMEOUT,       /* request too slow: connection closed */
	METRICS_ERROR_EVICTED,       /* over the connection limit: an idle one closed */
	METRICS_ERROR_OVERLOADED,    /* no memory budget for a review in time */
	METRICS_ERROR_COUNT
};

enum metrics_reload {
	METRICS_RELOAD_CERTIFICATE,
	METRICS_RELOAD_CONFIG,
	METRICS_RELOAD_COUNT
};

/* The label of `path`: "/mutate", ..., "other". */
const char *metrics_path_name(enum metrics_path path);

/* Sets every counter to zero and the start time to now. */
void metrics_reset(void);

/* One HTTP request answered with `status` (any code; unusual ones are
 * counted as "other"). */
void metrics_count_request(enum metrics_path path, int status);
/* The time one admission review took, in nanoseconds. */
void metrics_observe_admission(uint64_t nanoseconds);
/* One review that `rule` changed (mutated) the object of. */
void metrics_count_mutation(enum rule_id rule);
/* One finding of `rule` with `severity`. */
void metrics_count_finding(enum rule_id rule, enum severity severity);
void metrics_count_error(enum metrics_error kind);
/* One reload attempt of `kind`; ok is 1 for success, 0 for a refusal. */
void metrics_count_reload(enum metrics_reload kind, int ok);
/* The serving certificate's notAfter, in unix seconds. */
void metrics_set_certificate_expiry(int64_t unix_seconds);
/* +1 when a request starts, -1 when it completes. */
void metrics_add_in_flight(int delta);
/* The current number of requests in flight. */
long metrics_in_flight(void);
/* 1 while /readyz answers 200. */
void metrics_set_ready(int ready);
/* 1 when the last review that named a registration hash named another
 * than the config's (gpumend_config_hash_mismatch), else 0. */
void metrics_set_config_hash_mismatch(int mismatch);

/*
 * Appends every metric to `out` in the text format. Returns 0, or -1 when
 * `out` is full or out of memory.
 */
int metrics_render(struct buf *out);

#endif
