/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gating.c - the webhook's gating of rules after a change: a rule
 * skipped for want of a trigger runs once an operation added one
 * (rules_options.triggers_in), and only then.
 */
#define _GNU_SOURCE
#include <string.h>

#include "harness.h"
#include "rules.h"

/* A search that finds gpu-visibility's trigger in "nvidia.com/gpu". */
static unsigned visibility_in(const void *arg, const char *text, size_t len)
{
	const char *needle = arg;

	return memmem(text, len, needle, strlen(needle)) ?
	       1u << RULE_GPU_VISIBILITY : 0;
}

/* The findings of gpu-visibility with the rules gated so. */
static size_t visibility_findings(const char *needle, int searched)
{
	static const char pod[] =
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},"
		"\"spec\":{\"containers\":["
		"{\"name\":\"train\",\"image\":\"busybox\",\"resources\":{\"limits\":"
		"{\"alpha.kubernetes.io/nvidia-gpu\":1}}},"
		"{\"name\":\"tools\",\"image\":\"nvidia/cuda:12.2.0-base\"}]}}";
	struct config *cfg = config_new_default();
	struct rules_options opts = {
		/* as if only legacy-gpu-resource had a trigger in the body */
		.skip_rules = ~(1u << RULE_LEGACY_GPU_RESOURCE),
		.triggers_in = searched ? visibility_in : NULL,
		.triggers_arg = needle,
	};
	struct rules_result res;
	struct rules_error err;
	json_t *object = json_loads(pod, 0, NULL);
	size_t n = 0;

	rules_result_init(&res);
	if (cfg && object && rules_apply(cfg, &opts, object, &res, &err) == 0)
		for (size_t i = 0; i < res.n_findings; i++)
			n += res.findings[i].rule == RULE_GPU_VISIBILITY;
	rules_result_clear(&res);
	json_decref(object);
	config_free(cfg);
	return n;
}

TEST(gating_runs_a_rule_whose_trigger_an_operation_added)
{
	/* without a search, every rule runs after the rename */
	CHECK(visibility_findings("nvidia.com/gpu", 0) == 1);
	/* the rename added the key "nvidia.com/gpu": the rule runs */
	CHECK(visibility_findings("nvidia.com/gpu", 1) == 1);
	/* nothing the operations added holds this: the rule is skipped */
	CHECK(visibility_findings("no-such-trigger", 1) == 0);
}
