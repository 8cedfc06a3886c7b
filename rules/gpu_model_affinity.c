/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpu_model_affinity.c - GPU pods that ask for GPU models get required node
 * affinity on GPU Feature Discovery's nvidia.com/gpu.product label.
 *
 * The models come from the pod's annotation gpumend.io/gpu-models (a
 * comma-separated list, gpumend's own, so it is kept) or, failing that,
 * from the configured policy of the pod's namespace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

/* Where the models come from. */
struct model_source {
	json_t *annotation;   /* the annotation's value, borrowed, or NULL */
	char *pointer;        /* the annotation's pointer, or NULL */
	const struct namespace_models *policy;
};

/* Adds the normalised form of `name` to `values` unless empty or there. */
static int add_model(json_t *values, const char *name, size_t len)
{
	char *copy = strndup(name, len), *norm;
	json_t *item;
	size_t i;
	int rc = 0;

	if (!copy)
		return -1;
	norm = gpu_name_normalize(copy);
	free(copy);
	if (!norm)
		return -1;
	if (!*norm)
		goto out;
	json_array_foreach(values, i, item)
		if (strcmp(json_string_value(item), norm) == 0)
			goto out;
	rc = json_array_append_new(values, json_text(norm));
out:
	free(norm);
	return rc;
}

/* The most GPU models one pod may ask for. */
#define MAX_MODELS 256

/* 1 when the comma-separated list has more than MAX_MODELS entries. */
static int too_many_models(const char *text)
{
	int n = 1;

	for (; text && *text; text++)
		if (*text == ',' && ++n > MAX_MODELS)
			return 1;
	return 0;
}

/* The models of a comma-separated list, as a new array (maybe empty). */
static json_t *models_from_text(const char *text)
{
	json_t *values = json_array();
	const char *p = text;

	while (values && *p) {
		size_t len = strcspn(p, ",");

		if (add_model(values, p, len) != 0) {
			json_decref(values);
			return NULL;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return values;
}

static json_t *models_from_policy(const struct namespace_models *policy)
{
	json_t *values = json_array();

	for (size_t i = 0; values && i < policy->models.n; i++) {
		const char *name = policy->models.items[i];

		if (add_model(values, name, strlen(name)) != 0) {
			json_decref(values);
			return NULL;
		}
	}
	return values;
}

/* Joins the model names for a message, cut to fit in `size` bytes. */
static void models_text(json_t *values, char *out, size_t size)
{
	size_t used = 0, i;
	json_t *item;

	out[0] = '\0';
	json_array_foreach(values, i, item) {
		int n = snprintf(out + used, size - used, "%s%s", i ? ", " : "",
				 json_string_value(item));

		if (n < 0 || (size_t)n >= size - used) {
			/* too long: end with an ellipsis */
			if (size > 4)
				strcpy(out + size - 4, "...");
			return;
		}
		used += (size_t)n;
	}
}

static int check_pod(struct rule_ctx *ctx, struct pod_spec *pod, void *arg)
{
	const struct config *cfg = ctx->cfg;
	struct model_source src = { 0 };
	enum gpu_request_kind request;
	json_t *values = NULL;
	const char *at;
	char names[48];
	int rc = -1;

	(void)arg;
	request = pod_gpu_request_kind(cfg, pod);
	/*
	 * Under the dra target, a pod that asks through claims alone has its
	 * model in its claims' selector (the dra target writes it there when
	 * it converts the pod), and a DRA-only node may carry no GPU Feature
	 * Discovery label: node affinity is not for it.
	 */
	if (request == GPU_REQUEST_NONE ||
	    (request == GPU_REQUEST_CLAIM && cfg->target == RULES_TARGET_DRA))
		return 0;
	if (pod_annotation_find(ctx, pod, ctx->cfg->models_annotation,
				&src.annotation, &src.pointer) != 0)
		goto out;
	if (!src.annotation && ctx->namespace_name) {
		for (size_t i = 0; i < cfg->n_namespace_models; i++)
			if (strcmp(cfg->namespace_models[i].namespace_name,
				   ctx->namespace_name) == 0) {
				src.policy = &cfg->namespace_models[i];
				break;
			}
	}
	rc = 0;
	if (!src.annotation && !src.policy)
		goto out;
	at = src.pointer ? src.pointer : pod->pointer;

	if (src.annotation && !json_is_string(src.annotation)) {
		rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
				 "annotation '%s' must be a string of GPU model names",
				 cfg->models_annotation);
		goto out;
	}
	if (src.annotation && too_many_models(json_string_value(src.annotation))) {
		/* a node affinity term of thousands of values is no placement,
		 * and deduplicating them would cost quadratic time */
		rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
				 "annotation '%s' names more than %d GPU models",
				 cfg->models_annotation, MAX_MODELS);
		goto out;
	}
	values = src.annotation
		? models_from_text(json_string_value(src.annotation))
		: models_from_policy(src.policy);
	if (!values) {
		rc = -1;
		goto out;
	}
	if (json_array_size(values) == 0) {
		if (src.annotation)
			rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
					 "annotation '%s' names no GPU model",
					 cfg->models_annotation);
		else
			rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
					 "GPU model policy of namespace '%.40s' names no GPU model",
					 ctx->namespace_name);
		goto out;
	}
	if (pod_constrains_node_label(pod, cfg->gpu_product_label))
		goto out;

	models_text(values, names, sizeof(names));
	/* no placement to require them in (a Tekton task spec): it says so */
	if (rule_mutates(ctx) && !pod->place_pointer) {
		rc = pod_require_node_label(ctx, pod, cfg->gpu_product_label,
					    values);
		values = NULL;
		goto out;
	}
	if (!rule_mutates(ctx)) {
		rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
				 "GPU models [%s] are not required by node affinity on '%s'",
				 names, cfg->gpu_product_label);
		goto out;
	}
	rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
			 "required node label '%s' in [%s]",
			 cfg->gpu_product_label, names);
	/* and the shared spellings, where GPU Feature Discovery uses them */
	if (!rc && product_values_add_shared(cfg, pod_shares_gpu(cfg, pod),
					     values))
		rc = -1;
	if (!rc) {
		rc = pod_require_node_label(ctx, pod, cfg->gpu_product_label,
					    values);
		values = NULL;
	}
out:
	json_decref(values);
	free(src.pointer);
	return rc;
}

int rule_run_gpu_model_affinity(struct rule_ctx *ctx)
{
	return rule_for_each_pod_spec(ctx, check_pod, NULL);
}
