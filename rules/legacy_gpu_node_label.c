/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * legacy_gpu_node_label.c - the node label alpha.kubernetes.io/nvidia-gpu-name
 * of Kubernetes <= 1.9 becomes GPU Feature Discovery's nvidia.com/gpu.product.
 *
 * Nothing sets the old label any more, so a pod that selects on it stays
 * Pending forever. GPU Feature Discovery also spells model names its own way
 * ("Tesla K80" is labelled "Tesla-K80"), so each value is normalised too.
 * On nodes that share GPUs without renaming them, it appends "-SHARED" to
 * the model ("Tesla-K80-SHARED"): the requirement then names both, and a
 * nodeSelector, which holds one value, becomes required node affinity.
 */
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

/* Reports one legacy label use found at `at`, in warn or mutate style. */
static int report_legacy(struct rule_ctx *ctx, const char *at)
{
	const struct config *cfg = ctx->cfg;

	if (!rule_mutates(ctx))
		return rule_report(ctx, SEVERITY_WARNING, at, 0,
				   "node label '%s' is no longer set; use '%s'",
				   cfg->legacy_gpu_name_label,
				   cfg->gpu_product_label);
	return rule_report(ctx, SEVERITY_WARNING, at, 1,
			   "renamed node label '%s' to '%s'",
			   cfg->legacy_gpu_name_label, cfg->gpu_product_label);
}

static int fix_node_selector(struct rule_ctx *ctx, struct pod_spec *pod)
{
	const struct config *cfg = ctx->cfg;
	json_t *selector = json_member(pod->place, "nodeSelector");
	json_t *legacy = json_member(selector, cfg->legacy_gpu_name_label);
	json_t *product = json_member(selector, cfg->gpu_product_label);
	char *map = NULL, *at = NULL, *name = NULL, *other = NULL, *target;
	int rc = -1;

	if (!json_is_object(selector) || !legacy)
		return 0;
	if (!(map = json_pointer_join(pod->place_pointer, "nodeSelector")) ||
	    !(at = json_pointer_join(map, cfg->legacy_gpu_name_label)))
		goto out;
	if (!json_is_string(legacy)) {
		rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
				 "node selector '%s' must be a string",
				 cfg->legacy_gpu_name_label);
		goto out;
	}
	if (!(name = gpu_name_normalize(json_string_value(legacy))))
		goto out;

	if (product) {
		if (json_is_string(product) &&
		    !(other = gpu_name_normalize(json_string_value(product))))
			goto out;
		if (!other || strcmp(name, other) != 0) {
			rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
					 "node selector '%s' conflicts with '%s'",
					 cfg->legacy_gpu_name_label,
					 cfg->gpu_product_label);
			goto out;
		}
		if (!rule_mutates(ctx)) {
			rc = report_legacy(ctx, at);
			goto out;
		}
		/* the same model twice: the legacy spelling is redundant */
		rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
				 "removed node label '%s' (same as '%s')",
				 cfg->legacy_gpu_name_label,
				 cfg->gpu_product_label);
		if (!rc)
			rc = rule_remove(ctx, at);
		goto out;
	}

	if (rule_mutates(ctx) &&
	    product_label_drifts(cfg, pod_shares_gpu(cfg, pod))) {
		/* one selector value cannot match both spellings of the
		 * model: a required node affinity term can */
		json_t *values = json_pack("[s]", name);

		rc = !values || product_values_add_shared(cfg, 1, values) ||
		     rule_report(ctx, SEVERITY_WARNING, at, 1,
				 "moved the GPU model selector to affinity on '%s', with '%s' models too",
				 cfg->gpu_product_label,
				 cfg->shared_product_suffix) ||
		     rule_remove_key_pruned(ctx, map, cfg->legacy_gpu_name_label)
			? -1 : 0;
		if (rc)
			json_decref(values);
		else
			rc = pod_require_node_label(ctx, pod,
						    cfg->gpu_product_label, values);
		goto out;
	}
	rc = report_legacy(ctx, at);
	if (rc || !rule_mutates(ctx))
		goto out;
	rc = rule_rename(ctx, map, cfg->legacy_gpu_name_label,
			 cfg->gpu_product_label);
	if (rc || strcmp(name, json_string_value(legacy)) == 0)
		goto out;
	target = json_pointer_join(map, cfg->gpu_product_label);
	rc = target ? rule_replace(ctx, target, json_text(name)) : -1;
	free(target);
out:
	free(map);
	free(at);
	free(name);
	free(other);
	return rc;
}

/* What fix_requirement() works for. */
struct requirement_fix {
	struct rule_ctx *ctx;
	int shares;             /* the pod shares GPUs: pod_shares_gpu() */
};

/* Translates one matchExpression on the legacy label, in the document. */
static int fix_requirement(json_t *requirement, const char *pointer,
			   void *arg)
{
	struct requirement_fix *fix = arg;
	struct rule_ctx *ctx = fix->ctx;
	const struct config *cfg = ctx->cfg;
	json_t *fresh, *values, *fresh_values;
	char *at, *p_values = NULL;
	size_t i;
	int bad, rc = -1;

	if (!(at = json_pointer_join(pointer, "key")))
		return -1;
	fresh = node_requirement_translate_new(cfg, fix->shares, requirement,
					       &bad);
	if (!fresh) {
		if (bad)
			rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
					 "values of node label '%s' must be a list of strings",
					 cfg->legacy_gpu_name_label);
		goto out;
	}
	rc = report_legacy(ctx, at);
	if (rc || !rule_mutates(ctx))
		goto out;
	rc = rule_replace(ctx, at, json_text(cfg->gpu_product_label));

	/* values one by one, so that untouched ones keep their spelling;
	 * then the shared spellings, if any, at the end */
	values = json_member(requirement, "values");
	fresh_values = json_member(fresh, "values");
	if (!rc && json_is_array(values) &&
	    !(p_values = json_pointer_join(pointer, "values")))
		rc = -1;
	for (i = 0; !rc && json_is_array(values) &&
		    i < json_array_size(fresh_values); i++) {
		json_t *name = json_array_get(fresh_values, i);
		int added = i >= json_array_size(
			json_member(requirement, "values"));
		char *p_value;

		if (!added && json_equal(name, json_array_get(values, i)))
			continue;
		p_value = added ? json_pointer_join(p_values, "-")
				: json_pointer_join_index(p_values, i);
		if (!p_value) {
			rc = -1;
			break;
		}
		rc = added ? rule_add(ctx, p_value, json_incref(name))
			   : rule_replace(ctx, p_value, json_incref(name));
		free(p_value);
	}
out:
	json_decref(fresh);
	free(at);
	free(p_values);
	return rc;
}

static int check_pod(struct rule_ctx *ctx, struct pod_spec *pod, void *arg)
{
	struct requirement_fix fix = { ctx, 0 };
	char *p_affinity;
	int rc;

	(void)arg;
	if (fix_node_selector(ctx, pod) != 0)
		return -1;
	if (!pod->place)
		return 0;
	pod->spec = json_pointer_get(ctx->root, pod->pointer);
	pod->place = json_pointer_get(ctx->root, pod->place_pointer);
	fix.shares = pod_shares_gpu(ctx->cfg, pod);
	if (!(p_affinity = json_pointer_join(pod->place_pointer, "affinity")))
		return -1;
	rc = affinity_for_each_node_requirement(
		json_member(pod->place, "affinity"), p_affinity,
		ctx->cfg->legacy_gpu_name_label, fix_requirement, &fix);
	free(p_affinity);
	return rc ? -1 : 0;
}

int rule_run_legacy_gpu_node_label(struct rule_ctx *ctx)
{
	return rule_for_each_pod_spec(ctx, check_pod, NULL);
}
