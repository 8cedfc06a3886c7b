/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_conditions.c - the registration's entries: which rules each one is
 * responsible for (rules_entry_config_new()), the CEL quoting of config
 * values, and the service paths the server reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "registration.h"
#include "util.h"

/* Applies the JSON text `json` on top of `cfg`; 0 or -1. */
static int apply(struct config *cfg, const char *json)
{
	struct rules_error err;
	json_t *doc = json_loads(json, 0, NULL);
	int rc = doc ? config_apply(cfg, doc, &err) : -1;

	json_decref(doc);
	return rc;
}

/* The expression of the condition `name` of `entry`, a new string. */
static char *expression_of(const struct config *cfg, enum rules_entry entry,
			   const char *name)
{
	json_t *conditions = rules_conditions_new(cfg, entry), *c;
	char *out = NULL;
	size_t i;

	json_array_foreach(conditions, i, c)
		if (!strcmp(json_string_value(json_object_get(c, "name")), name))
			out = strdup(json_string_value(json_object_get(c,
								       "expression")));
	json_decref(conditions);
	return out;
}

TEST(entry_configs_split_the_rules)
{
	struct config *cfg = config_new_default();
	struct rules_error err;
	struct config *legacy, *advisory, *legacy_update, *advisory_update;

	CHECK(cfg != NULL);
	legacy = rules_entry_config_new(cfg, RULES_ENTRY_LEGACY, 0, &err);
	advisory = rules_entry_config_new(cfg, RULES_ENTRY_ADVISORY, 0, &err);
	legacy_update = rules_entry_config_new(cfg, RULES_ENTRY_LEGACY, 1, &err);
	advisory_update = rules_entry_config_new(cfg, RULES_ENTRY_ADVISORY, 1,
						 &err);
	CHECK(legacy && advisory && legacy_update && advisory_update);
	if (!legacy || !advisory || !legacy_update || !advisory_update)
		goto out;

	/* mutate mode: by the rule's kind */
	CHECK(legacy->mode[RULE_LEGACY_GPU_RESOURCE] == RULE_MODE_MUTATE);
	CHECK(advisory->mode[RULE_LEGACY_GPU_RESOURCE] == RULE_MODE_OFF);
	CHECK(legacy->mode[RULE_CRITICAL_POD_ANNOTATION] == RULE_MODE_OFF);
	CHECK(advisory->mode[RULE_CRITICAL_POD_ANNOTATION] == RULE_MODE_MUTATE);
	/* warn mode (gpu-visibility's default): advisory */
	CHECK(legacy->mode[RULE_GPU_VISIBILITY] == RULE_MODE_OFF);
	CHECK(advisory->mode[RULE_GPU_VISIBILITY] == RULE_MODE_WARN);
	/* gpu-sharing is split: its stale annotations are advisory */
	CHECK(legacy->mode[RULE_GPU_SHARING] == RULE_MODE_MUTATE);
	CHECK(legacy->stale_annotation_prefixes.n == 0);
	CHECK(legacy->n_memory_resources == cfg->n_memory_resources);
	CHECK(advisory->mode[RULE_GPU_SHARING] == RULE_MODE_MUTATE);
	CHECK(advisory->stale_annotation_prefixes.n ==
	      cfg->stale_annotation_prefixes.n);
	CHECK(advisory->n_memory_resources == 0 &&
	      advisory->count_resources.n == 0 &&
	      advisory->share_selectors.n == 0 &&
	      advisory->share_schedulers.n == 0);
	CHECK_STR(advisory->shared_gpu_resource, cfg->gpu_resource);
	/* a Pod UPDATE is the advisory entry's, all of it */
	for (int r = 0; r < RULE_COUNT; r++) {
		CHECK(legacy_update->mode[r] == RULE_MODE_OFF);
		/* the offline rules are no entry's: the webhook never
		 * runs them */
		CHECK(advisory_update->mode[r] ==
		      (rule_info_get((enum rule_id)r)->offline_only ?
		       RULE_MODE_OFF : cfg->mode[r]));
	}
	CHECK(advisory_update->stale_annotation_prefixes.n ==
	      cfg->stale_annotation_prefixes.n);
	CHECK(advisory_update->n_memory_resources == cfg->n_memory_resources);
out:
	config_free(legacy);
	config_free(advisory);
	config_free(legacy_update);
	config_free(advisory_update);
	config_free(cfg);
}

TEST(entry_of_a_deny_rule_is_legacy)
{
	struct config *cfg = config_new_default();
	struct rules_error err;
	struct config *legacy = NULL, *advisory = NULL;
	char *opt_out;

	CHECK(cfg && apply(cfg, "{\"rules\": {\"gpu-visibility\": "
			   "{\"mode\": \"deny\"}, \"legacy-gpu-resource\": "
			   "{\"mode\": \"warn\"}}}") == 0);
	legacy = rules_entry_config_new(cfg, RULES_ENTRY_LEGACY, 0, &err);
	advisory = rules_entry_config_new(cfg, RULES_ENTRY_ADVISORY, 0, &err);
	CHECK(legacy && advisory);
	if (legacy && advisory) {
		CHECK(legacy->mode[RULE_GPU_VISIBILITY] == RULE_MODE_DENY);
		CHECK(advisory->mode[RULE_GPU_VISIBILITY] == RULE_MODE_OFF);
		CHECK(legacy->mode[RULE_LEGACY_GPU_RESOURCE] == RULE_MODE_OFF);
		CHECK(advisory->mode[RULE_LEGACY_GPU_RESOURCE] == RULE_MODE_WARN);
	}
	/* no namespace may opt out of a deny rule: the legacy entry has no
	 * opt-out condition; the advisory one keeps its own */
	opt_out = expression_of(cfg, RULES_ENTRY_LEGACY, "not-opted-out");
	CHECK(opt_out == NULL);
	free(opt_out);
	opt_out = expression_of(cfg, RULES_ENTRY_ADVISORY, "not-opted-out");
	CHECK(opt_out != NULL);
	free(opt_out);
	/* with namespaces that may, only theirs */
	CHECK(apply(cfg, "{\"annotations\": {\"denyOptOutNamespaces\": "
		    "[\"sandbox\"]}}") == 0);
	opt_out = expression_of(cfg, RULES_ENTRY_LEGACY, "not-opted-out");
	CHECK(opt_out && strstr(opt_out, "request.namespace in ['sandbox']"));
	free(opt_out);
	config_free(legacy);
	config_free(advisory);
	config_free(cfg);
}

TEST(condition_strings_are_quoted)
{
	struct config *cfg = config_new_default();
	char *expression;

	/* a quote, a control byte and a backslash in config values: the
	 * second pattern's escaped backslash is one literal backslash */
	CHECK(cfg && apply(cfg, "{\"visibility\": {\"images\": "
			   "[\"it's\\todd*\", \"*a\\\\\\\\b*\"]}}") == 0);
	expression = expression_of(cfg, RULES_ENTRY_ADVISORY, "may-act");
	CHECK(expression &&
	      strstr(expression, "c.image.startsWith('it\\'s\\x09odd')"));
	CHECK(expression && strstr(expression, "c.image.contains('a\\\\b')"));
	free(expression);
	config_free(cfg);
}

TEST(conditions_stay_within_the_api_limits)
{
	struct config *cfg = config_new_default();

	CHECK(cfg != NULL);
	for (int e = 0; cfg && e < RULES_ENTRY_COUNT; e++) {
		json_t *conditions = rules_conditions_new(cfg,
							  (enum rules_entry)e), *c;
		size_t i;

		CHECK(conditions && json_array_size(conditions) <= 64);
		json_array_foreach(conditions, i, c) {
			const char *expression = json_string_value(
				json_object_get(c, "expression"));

			CHECK(expression && strlen(expression) < 100000);
			/* the webhook's namespace is never in a condition */
			CHECK(expression && !strstr(expression, "gpumend-system"));
		}
		json_decref(conditions);
	}
	config_free(cfg);
}

TEST(review_paths)
{
	static const struct {
		const char *url;
		int rc;
		enum registration_route route;
		const char *hash;
	} cases[] = {
		{ "/mutate", 0, REGISTRATION_PLAIN, "" },
		{ "/mutate/legacy", 0, REGISTRATION_LEGACY, "" },
		{ "/mutate/advisory", 0, REGISTRATION_ADVISORY, "" },
		{ "/mutate/legacy/0123456789abcdef", 0, REGISTRATION_LEGACY,
		  "0123456789abcdef" },
		{ "/mutate/advisory/fedcba9876543210", 0, REGISTRATION_ADVISORY,
		  "fedcba9876543210" },
		{ "/mutate/", -1, 0, "" },
		{ "/mutate/legacy/", -1, 0, "" },
		{ "/mutate/legacy/0123456789ABCDEF", -1, 0, "" },
		{ "/mutate/legacy/0123456789abcdef0", -1, 0, "" },
		{ "/mutate/legacy/0123456789abcdef/", -1, 0, "" },
		{ "/mutate/legacyx", -1, 0, "" },
		{ "/mutate/other", -1, 0, "" },
		{ "/mutatex", -1, 0, "" },
		{ "/healthz", -1, 0, "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum registration_route route = REGISTRATION_PLAIN;
		char hash[REGISTRATION_HASH_LEN + 1];
		int rc = registration_path_parse(cases[i].url, &route, hash);

		CHECK(rc == cases[i].rc);
		if (rc == 0) {
			CHECK(route == cases[i].route);
			CHECK_STR(hash, cases[i].hash);
		}
	}
}
