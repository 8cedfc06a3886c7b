/*
 * util.h - helpers for the engine's unit tests.
 */
#ifndef GPUMEND_TEST_UTIL_H
#define GPUMEND_TEST_UTIL_H

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

/* Number of findings of `rule` whose pointer equals `pointer` (any pointer
 * when NULL). */
int test_count_findings(const struct rules_result *res, enum rule_id rule,
			const char *pointer);

/* The string at `pointer` in `root`, or NULL. */
const char *test_string_at(json_t *root, const char *pointer);

#endif
