/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * util.h - helpers for the engine's unit tests.
 */
#ifndef GPUMEND_TEST_UTIL_H
#define GPUMEND_TEST_UTIL_H

#include <jansson.h>

#include "admission.h"
#include "rules.h"

/*
 * Parses `json_text` (an object), runs the rules over it with `cfg` (the
 * defaults when NULL) and `opts` (offline when NULL), and returns the
 * migrated object (a new reference); `res` receives operations and
 * findings. Also checks that applying the recorded patch to a fresh parse
 * of the input gives the same object, and that a second run changes
 * nothing (idempotence); *failures is incremented when either does not hold.
 * Returns NULL on a parse or engine failure (also counted as a failure).
 */
json_t *test_migrate(const char *json_text, const struct config *cfg,
		     const struct rules_options *opts,
		     struct rules_result *res, int *failures);

/*
 * 1 when rules_triggers(cfg) has no finite set or one of its triggers is
 * a substring of some key or string value of `input` (walked through
 * every mapping and sequence); 0 when none is; -1 when out of memory.
 * test_migrate() checks, with it, that every input the rules report on or
 * change holds a trigger (the webhook's prefilter relies on it), and so
 * does its second, idempotence run on the migrated object.
 */
int test_triggers_cover(const struct config *cfg, json_t *input);

/*
 * A new config (free with config_free()) with every rule off except `rule`,
 * which is in `mode`; NULL when out of memory.
 */
struct config *test_config_only(enum rule_id rule, enum rule_mode mode);

/*
 * test_migrate() on `squoted`, JSON written with ' for " to keep test
 * inputs readable: every ' is turned into " first. Also checks that each
 * finding's message is non-empty and at most 100 characters (findings
 * become admission warnings, capped at 120), incrementing *failures for
 * each that is not. Returns what test_migrate() returns; `res` is always
 * initialised, so rules_result_clear() on it is safe even after NULL.
 */
json_t *test_run_squoted(const char *squoted, const struct config *cfg,
			 const struct rules_options *opts,
			 struct rules_result *res, int *failures);

/*
 * test_run_squoted() without the 100-character cap on finding messages
 * (they are still checked to be non-empty), for inputs whose findings are
 * known to carry longer messages.
 */
json_t *test_run_squoted_any_length(const char *squoted,
				    const struct config *cfg,
				    const struct rules_options *opts,
				    struct rules_result *res, int *failures);

/* The first finding of `rule` whose pointer equals `pointer`, or NULL. */
const struct finding *test_finding_at(const struct rules_result *res,
				      enum rule_id rule, const char *pointer);

/* Number of recorded operations emitted by `rule`. */
size_t test_ops_of(const struct rules_result *res, enum rule_id rule);

/* Number of findings of `rule` whose pointer equals `pointer` (any pointer
 * when NULL). */
int test_count_findings(const struct rules_result *res, enum rule_id rule,
			const char *pointer);

/* The string at `pointer` in `root`, or NULL. */
const char *test_string_at(json_t *root, const char *pointer);

/*
 * An AdmissionReview (admission.k8s.io/VERSION) of a request with uid
 * u-1, `operation`, namespace ml and `object` (JSON text), followed by
 * `extra` (",\"oldObject\":{...}", say; may be NULL). A new string.
 */
char *test_review_text(const char *version, const char *operation,
		       const char *object, const char *extra);

/*
 * Reviews `text` with admission_review() into `out` (initialised here)
 * and returns the parsed response body (NULL if not JSON). The review is
 * also done through the prefilter, which must give the same outcome byte
 * for byte (a failure is counted when it does not).
 */
json_t *test_review(const struct config *cfg, const char *text,
		    struct admission_outcome *out, int *failures);

/* The response's patch, decoded and parsed; NULL when there is none. */
json_t *test_response_patch(json_t *review);

/* Applies the JSON Patch `patch` (a parsed array) to `root`; 0 or -1. */
int test_apply_patch(json_t *root, json_t *patch);

/* What test_each_document() calls for each document. */
typedef void (*test_document_fn)(const struct config *cfg, json_t *doc,
				 const char *path, void *arg);

/*
 * Calls `fn` on each document of each golden input
 * (tests/golden/NAME/input.*) with the case's config.yaml (the defaults
 * when it has none; a case whose config does not load is skipped), then
 * of each file of the folder `examples` (NULL: none) with the defaults.
 * Paths are relative to the top of the tree, where `make test` runs.
 * Returns the number of files read.
 */
int test_each_document(const char *examples, test_document_fn fn, void *arg,
		       int *failures);

#endif
