/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dra_unsupported.c - under the dra target, the GPU pods that NVIDIA's DRA
 * driver cannot serve as it ships: said, not guessed.
 *
 * Three kinds, each an error, so that `migrate --target dra` leaves the
 * file as it is and the pods stay on the device plugin, which serves them:
 *
 * - A pod that shares a GPU (pod_sharing_source(): a legacy sharing
 *   resource or selector, nvidia.com/gpu.shared, gpumend's sharing
 *   label). Every way the DRA driver shares a GPU is an alpha feature gate
 *   of the driver, off by default: TimeSlicingSettings, MPSSupport and
 *   ConsumableShares (with --consumable-shares, and Kubernetes'
 *   DRAConsumableCapacity for the claims' capacity requests). With
 *   dra.consumableCapacity, a pod whose GPU memory is known is no error:
 *   dra.c asks for that memory as its claims' capacity.
 * - A GPU pod pinned to a Kepler GPU (Tesla K80...) by any source of
 *   model the rules read: the legacy GPU name label, nvidia.com/gpu.product
 *   (in nodeSelector or required node affinity, and in the affinity
 *   annotation), gpumend.io/gpu-models or the namespace policy. The DRA
 *   driver needs NVIDIA driver 565 or later; Kepler's last driver is R470.
 *   A requirement that also accepts newer models only loses its Kepler
 *   ones: a warning.
 * - A MIG device resource (nvidia.com/mig-1g.5gb): under DRA it is a
 *   device of class mig.nvidia.com with the attribute profile, which the
 *   dra target does not write.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

#define AFFINITY_ANNOTATION "scheduler.alpha.kubernetes.io/affinity"
#define STAY "keep it on the device-plugin target"

/* ------------------------------------------------------------------ */
/* Kepler                                                              */

/*
 * The Kepler GPUs of data centres and workstations, as the second word of
 * their name after "Tesla", "GRID" or "Quadro" (lowercase). Every Tesla K
 * is Kepler; Quadro K620, K1200 and K2200 are Maxwell and are not here.
 */
static const char *const kepler_grid[] = { "k1", "k2", "k340", "k520", NULL };
static const char *const kepler_quadro[] = {
	"k420", "k600", "k2000", "k2000d", "k4000", "k4200", "k5000",
	"k5200", "k6000", NULL,
};

static int word_in(const char *word, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(word, *list) == 0)
			return 1;
	return 0;
}

/*
 * 1 when the model `name` is a Kepler GPU, however written: as NVML names
 * it ("Tesla K80", "NVIDIA Tesla K40m"), as GPU Feature Discovery labels it
 * ("Tesla-K80", "Tesla-K80-SHARED"), in any case.
 */
static int model_is_kepler(const char *name)
{
	char words[3][16];
	size_t n = 0;
	const char *p = name;

	while (*p && n < 3) {
		size_t len = 0;

		while (*p == ' ' || *p == '-' || *p == '_')
			p++;
		if (!*p)
			break;
		while (*p && *p != ' ' && *p != '-' && *p != '_') {
			if (len < sizeof(words[n]) - 1)
				words[n][len++] = (char)tolower((unsigned char)*p);
			p++;
		}
		words[n][len] = '\0';
		/* a leading vendor word says nothing */
		if (n == 0 && strcmp(words[0], "nvidia") == 0)
			continue;
		n++;
	}
	if (n < 2)
		return 0;
	if (strcmp(words[0], "tesla") == 0)
		return words[1][0] == 'k' && isdigit((unsigned char)words[1][1]);
	if (strcmp(words[0], "grid") == 0)
		return word_in(words[1], kepler_grid);
	if (strcmp(words[0], "quadro") == 0)
		return word_in(words[1], kepler_quadro);
	return 0;
}

/*
 * Judges the models `values` (a JSON array of strings) that `what` pins
 * the pod to, at `pointer`: all Kepler is an error, some a warning.
 */
static int judge_models(struct rule_ctx *ctx, const char *pointer,
			const char *what, json_t *values)
{
	const char *first = NULL;
	size_t n = 0, kepler = 0, i;
	json_t *item;

	json_array_foreach(values, i, item) {
		const char *name = json_string_value(item);

		if (!name)
			continue;
		n++;
		if (model_is_kepler(name)) {
			kepler++;
			if (!first)
				first = name;
		}
	}
	if (!kepler)
		return 0;
	if (kepler == n)
		return rule_report(ctx, SEVERITY_ERROR, pointer, 0,
				   "%s pins the pod to Kepler GPU '%s', which cannot run under DRA: NVIDIA's DRA driver needs driver 565+, Kepler stops at R470; " STAY,
				   what, first);
	return rule_report(ctx, SEVERITY_WARNING, pointer, 0,
			   "%s accepts Kepler GPU '%s', which cannot run under DRA (NVIDIA's DRA driver needs driver 565+, Kepler stops at R470)",
			   what, first);
}

/* What judge_requirement() needs. */
struct requirement_judge {
	struct rule_ctx *ctx;
	const char *what;       /* the label, for messages */
	const char *at;         /* where to report instead, or NULL */
};

/* A required node selector requirement on a model label: In only. */
static int judge_requirement(json_t *requirement, const char *pointer,
			     void *arg)
{
	struct requirement_judge *j = arg;
	const char *op = json_string_value(json_member(requirement,
						       "operator"));
	json_t *values = json_member(requirement, "values");
	char what[160];

	if (!op || strcmp(op, "In") != 0 || !json_is_array(values))
		return 0;
	snprintf(what, sizeof(what), "node affinity on '%s'", j->what);
	return judge_models(j->ctx, j->at ? j->at : pointer, what, values) ?
		-1 : 0;
}

/*
 * The required terms of the node affinity in `affinity` (at `pointer`)
 * on each model label; findings at `at` when not NULL (an annotation,
 * whose inside has no place of its own).
 */
static int judge_affinity(struct rule_ctx *ctx, json_t *affinity,
			  const char *pointer, const char *at)
{
	const char *labels[] = { ctx->cfg->legacy_gpu_name_label,
				 ctx->cfg->gpu_product_label };
	json_t *required = json_member(json_member(affinity, "nodeAffinity"),
				       "requiredDuringSchedulingIgnoredDuringExecution");
	char *p_node, *p_required;
	int rc = 0;

	if (!json_is_object(required))
		return 0;
	/* only the required terms pin a pod: preferred ones are wishes */
	p_node = json_pointer_join(pointer, "nodeAffinity");
	p_required = p_node ? json_pointer_join(p_node,
			"requiredDuringSchedulingIgnoredDuringExecution") : NULL;
	free(p_node);
	if (!p_required)
		return -1;
	for (size_t l = 0; l < 2 && rc == 0; l++) {
		json_t *terms = json_member(required, "nodeSelectorTerms"), *term;
		struct requirement_judge j = { ctx, labels[l], at };
		size_t t;

		if (!labels[l])
			continue;
		json_array_foreach(terms, t, term) {
			json_t *exprs = json_member(term, "matchExpressions"), *e;
			size_t k;

			json_array_foreach(exprs, k, e) {
				const char *key = json_string_value(json_member(e, "key"));
				char *p_terms, *p_term, *p_exprs, *p_e;

				if (!key || strcmp(key, labels[l]) != 0)
					continue;
				p_terms = json_pointer_join(p_required, "nodeSelectorTerms");
				p_term = p_terms ? json_pointer_join_index(p_terms, t) : NULL;
				p_exprs = p_term ? json_pointer_join(p_term, "matchExpressions") : NULL;
				p_e = p_exprs ? json_pointer_join_index(p_exprs, k) : NULL;
				rc = p_e ? judge_requirement(e, p_e, &j) : -1;
				free(p_e);
				free(p_exprs);
				free(p_term);
				free(p_terms);
				if (rc)
					goto out;
			}
		}
	}
out:
	free(p_required);
	return rc;
}

/* A nodeSelector on a model label. */
static int judge_node_selector(struct rule_ctx *ctx, struct pod_spec *pod)
{
	const char *labels[] = { ctx->cfg->legacy_gpu_name_label,
				 ctx->cfg->gpu_product_label };
	json_t *selector = json_member(pod->spec, "nodeSelector");
	int rc = 0;

	for (size_t l = 0; l < 2 && rc == 0; l++) {
		json_t *value = labels[l] ? json_member(selector, labels[l]) : NULL;
		json_t *values;
		char *p_selector, *p;
		char what[160];

		if (!json_is_string(value))
			continue;
		p_selector = json_pointer_join(pod->pointer, "nodeSelector");
		p = p_selector ? json_pointer_join(p_selector, labels[l]) : NULL;
		values = json_pack("[O]", value);
		snprintf(what, sizeof(what), "nodeSelector '%s'", labels[l]);
		rc = p && values ? judge_models(ctx, p, what, values) : -1;
		json_decref(values);
		free(p);
		free(p_selector);
	}
	return rc;
}

/* The models annotation, or else the namespace policy. */
static int judge_model_names(struct rule_ctx *ctx, struct pod_spec *pod)
{
	const struct config *cfg = ctx->cfg;
	json_t *annotation, *values = NULL;
	char *pointer = NULL, what[160];
	int rc = -1;

	if (pod_annotation_find(ctx, pod, cfg->models_annotation, &annotation,
				&pointer) != 0)
		return -1;
	if (json_is_string(annotation)) {
		const char *p = json_string_value(annotation);

		/* comma-separated, as gpu-model-affinity reads it */
		values = json_array();
		while (values && *p) {
			size_t len = strcspn(p, ",");
			const char *start = p;

			while (len && (*start == ' ' || *start == '\t'))
				start++, len--;
			if (len && json_array_append_new(values,
					json_stringn(start, len)) != 0) {
				json_decref(values);
				values = NULL;
				break;
			}
			p += strcspn(p, ",");
			if (*p == ',')
				p++;
		}
		if (!values)
			goto out;
		snprintf(what, sizeof(what), "annotation '%s'",
			 cfg->models_annotation);
		rc = judge_models(ctx, pointer, what, values);
		goto out;
	}
	rc = 0;
	if (annotation || !ctx->namespace_name)
		goto out;
	for (size_t i = 0; i < cfg->n_namespace_models; i++) {
		const struct namespace_models *policy = &cfg->namespace_models[i];

		if (strcmp(policy->namespace_name, ctx->namespace_name) != 0)
			continue;
		values = json_array();
		for (size_t m = 0; values && m < policy->models.n; m++)
			if (json_array_append_new(values,
					json_text(policy->models.items[m])) != 0) {
				json_decref(values);
				values = NULL;
			}
		if (!values) {
			rc = -1;
			goto out;
		}
		snprintf(what, sizeof(what),
			 "the model policy of namespace '%s'",
			 policy->namespace_name);
		rc = judge_models(ctx, pod->pointer, what, values);
		break;
	}
out:
	json_decref(values);
	free(pointer);
	return rc;
}

/* The legacy affinity annotation, read as legacy-affinity-annotation
 * reads it; text that is no JSON is that rule's to report. */
static int judge_affinity_annotation(struct rule_ctx *ctx,
				     struct pod_spec *pod)
{
	json_t *annotation, *affinity;
	json_error_t jerr;
	char *pointer = NULL;
	int rc;

	if (pod_annotation_find(ctx, pod, AFFINITY_ANNOTATION, &annotation,
				&pointer) != 0)
		return -1;
	if (!json_is_string(annotation)) {
		free(pointer);
		return 0;
	}
	affinity = rule_json_read(ctx, json_string_value(annotation), &jerr);
	rc = affinity ? judge_affinity(ctx, affinity, "", pointer) : 0;
	json_decref(affinity);
	free(pointer);
	return rc;
}

static int judge_kepler(struct rule_ctx *ctx, struct pod_spec *pod)
{
	char *p_affinity;
	int rc;

	if (!pod_requests_gpu(ctx->cfg, pod))
		return 0;
	if (judge_node_selector(ctx, pod) || judge_model_names(ctx, pod) ||
	    judge_affinity_annotation(ctx, pod))
		return -1;
	if (!(p_affinity = json_pointer_join(pod->pointer, "affinity")))
		return -1;
	rc = judge_affinity(ctx, json_member(pod->spec, "affinity"),
			    p_affinity, NULL);
	free(p_affinity);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Sharing                                                             */

static int judge_sharing(struct rule_ctx *ctx, struct pod_spec *pod)
{
	struct sharing_source src;
	const char *what, *key;
	char *p_map = NULL, *p = NULL;
	int rc;

	if (!pod_sharing_source(ctx->cfg, pod, &src))
		return 0;
	/* opted in: its memory becomes the claim's capacity request */
	if (ctx->cfg->dra_consumable_capacity &&
	    pod_memory_known(ctx->cfg, pod))
		return 0;
	if (src.resource) {
		struct container c = { 0 };

		what = "resource";
		key = src.resource;
		c.pointer = p_map = container_pointer_new(pod, src.member,
							  src.index);
		if (c.pointer)
			p = container_resource_pointer_new(&c, src.section, key);
	} else {
		what = src.label ? "label" : "nodeSelector";
		key = src.label ? src.label : src.selector;
		p_map = src.label ?
			json_pointer_join(pod->metadata_pointer, "labels") :
			json_pointer_join(pod->pointer, "nodeSelector");
		if (p_map)
			p = json_pointer_join(p_map, key);
	}
	rc = p ? rule_report(ctx, SEVERITY_ERROR, p, 0,
			     "%s '%s' shares a GPU; NVIDIA's DRA driver shares GPUs only behind its alpha gates TimeSlicingSettings, MPSSupport or ConsumableShares (--consumable-shares, with Kubernetes' DRAConsumableCapacity), off by default: " STAY "%s",
			     what, key,
			     !ctx->cfg->dra_consumable_capacity ? "" :
			     ctx->cfg->strategy == SHARING_KEEP ?
			     " (dra.consumableCapacity translates nothing under sharing strategy keep)" :
			     " (dra.consumableCapacity cannot translate it: a container shares its GPU by count, with no GPU memory known)")
		 : -1;
	free(p);
	free(p_map);
	return rc;
}

/* ------------------------------------------------------------------ */
/* MIG                                                                 */

static int judge_mig_resource(struct rule_ctx *ctx, struct container *c,
			      const char *section, const char *name,
			      json_t *value, void *arg)
{
	json_t *limits = json_member(container_resources(c->container),
				     "limits");
	char *p;
	int rc;

	(void)value;
	(void)arg;
	/* one finding per resource: at its limit, if any */
	if (!is_mig_resource(name) ||
	    (strcmp(section, "requests") == 0 && json_member(limits, name)))
		return 0;
	if (!(p = container_resource_pointer_new(c, section, name)))
		return -1;
	rc = rule_report(ctx, SEVERITY_ERROR, p, 0,
			 "MIG device '%s' is, under DRA, a 'mig.nvidia.com' device with device.attributes[\"gpu.nvidia.com\"].profile == \"%s\", a claim --target dra does not write: write it by hand or " STAY,
			 name, name + strlen(MIG_RESOURCE_PREFIX));
	free(p);
	return rc;
}

static int judge_mig(struct rule_ctx *ctx, struct pod_spec *pod,
		     struct container *c, void *arg)
{
	(void)pod;
	return container_for_each_resource(ctx, c, judge_mig_resource, arg) ?
		-1 : 0;
}

static int check_pod(struct rule_ctx *ctx, struct pod_spec *pod, void *arg)
{
	(void)arg;
	/* a legacy stack's own component is obsolete-gpu-component's */
	if (pod_obsolete_component(ctx->cfg, pod, NULL))
		return 0;
	if (judge_sharing(ctx, pod) || judge_kepler(ctx, pod))
		return -1;
	return pod_for_each_container(ctx, pod, judge_mig, NULL);
}

int rule_run_dra_unsupported(struct rule_ctx *ctx)
{
	if (ctx->cfg->target != RULES_TARGET_DRA)
		return 0;
	return rule_for_each_pod_spec(ctx, check_pod, NULL);
}
