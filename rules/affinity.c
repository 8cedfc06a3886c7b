/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * affinity.c - node affinity helpers shared by the rules that place pods.
 */
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

#define REQUIRED "requiredDuringSchedulingIgnoredDuringExecution"

int pod_constrains_node_label(struct pod_spec *pod, const char *key)
{
	json_t *selector = json_member(pod->place, "nodeSelector");
	json_t *terms, *term, *expr;
	size_t i, j;

	if (json_member(selector, key))
		return 1;
	terms = json_member(
		json_member(json_member(json_member(pod->place,
						    "affinity"),
						"nodeAffinity"),
				REQUIRED),
		"nodeSelectorTerms");
	json_array_foreach(terms, i, term) {
		json_array_foreach(json_member(term, "matchExpressions"), j,
				   expr) {
			const char *k = json_string_value(
				json_member(expr, "key"));

			if (k && strcmp(k, key) == 0)
				return 1;
		}
	}
	return 0;
}

/* Wraps `inner_new` as {name: inner_new}; steals it. */
static json_t *wrap(const char *name, json_t *inner_new)
{
	json_t *outer = json_object();

	if (!outer || !inner_new ||
	    json_object_set_new(outer, name, inner_new) != 0) {
		json_decref(outer);
		return NULL;
	}
	return outer;
}


/* 1 when the array `list` holds a value equal to `value`. */
static int array_holds(struct rule_ctx *ctx, json_t *list, json_t *value)
{
	json_t *item;
	size_t i;

	json_array_foreach(list, i, item)
		if (rule_spend(ctx, 1) == 0 && json_equal(item, value))
			return 1;
	return 0;
}

/* Appends `p` + "/" + key and returns a new string. */
static char *child(const char *p, const char *key)
{
	return json_pointer_join(p, key);
}

int pod_require_node_label(struct rule_ctx *ctx, struct pod_spec *pod,
			   const char *key, json_t *values_new)
{
	json_t *expr = json_pack("{s:s, s:s, s:o}", "key", key, "operator",
				 "In", "values", values_new);
	json_t *affinity, *node_affinity, *required, *terms, *term;
	char *p_aff = NULL, *p_node = NULL, *p_req = NULL, *p_terms = NULL;
	int rc = -1;
	size_t i;

	if (!expr)
		return rule_add(ctx, pod->pointer, NULL);
	if ((rc = pod_place_make(ctx, pod)) != 0) {
		/* no placement to write into: say what it would have been */
		if (rc == 1)
			rc = rule_report(ctx, SEVERITY_WARNING, pod->pointer, 0,
					 "a %s has no placement: node label '%s' cannot be required here; require it in the podTemplate of what runs it",
					 pod->form->name, key);
		json_decref(expr);
		return rc;
	}
	rc = -1;
	affinity = json_member(pod->place, "affinity");
	node_affinity = json_member(affinity, "nodeAffinity");
	required = json_member(node_affinity, REQUIRED);
	terms = json_member(required, "nodeSelectorTerms");

	if (!(p_aff = child(pod->place_pointer, "affinity")) ||
	    !(p_node = child(p_aff, "nodeAffinity")) ||
	    !(p_req = child(p_node, REQUIRED)) ||
	    !(p_terms = child(p_req, "nodeSelectorTerms")))
		goto out;

	if (json_is_array(terms) && json_array_size(terms) > 0) {
		/* terms are ORed: the requirement goes into every one */
		json_array_foreach(terms, i, term) {
			char *p_term = json_pointer_join_index(p_terms, i);
			char *p_exprs = p_term ? child(p_term, "matchExpressions")
					       : NULL;
			json_t *exprs = json_member(term, "matchExpressions");
			int r;

			if (!p_exprs) {
				free(p_term);
				goto out;
			}
			if (json_is_array(exprs)) {
				char *p_end = child(p_exprs, "-");

				/* a term that asks for it already is left as
				 * it is: an update that re-applies the legacy
				 * key next to it then converges */
				r = p_end ? (array_holds(ctx, exprs, expr) ? 0 :
					     rule_add(ctx, p_end,
						      json_deep_copy(expr)))
					  : -1;
				free(p_end);
			} else {
				r = rule_add(ctx, p_exprs,
					     json_pack("[O]", expr));
			}
			free(p_term);
			free(p_exprs);
			if (r)
				goto out;
			terms = json_pointer_get(ctx->root, p_terms);
		}
		rc = 0;
		goto out;
	}

	{
		json_t *value = json_pack("[{s:[O]}]", "matchExpressions", expr);
		const char *at = p_terms;

		if (!json_is_object(required)) {
			value = wrap("nodeSelectorTerms", value);
			at = p_req;
			if (!json_is_object(node_affinity)) {
				value = wrap(REQUIRED, value);
				at = p_node;
				if (!json_is_object(affinity)) {
					value = wrap("nodeAffinity", value);
					at = p_aff;
				}
			}
		}
		rc = json_pointer_get(ctx->root, at) ? rule_replace(ctx, at, value)
						     : rule_add(ctx, at, value);
	}
out:
	json_decref(expr);
	free(p_aff);
	free(p_node);
	free(p_req);
	free(p_terms);
	return rc;
}

#define PREFERRED "preferredDuringSchedulingIgnoredDuringExecution"

/* Calls `fn` for the requirements on `label` in one matchExpressions list. */
static int visit_expressions(json_t *holder, const char *holder_pointer,
			     const char *label, node_requirement_fn fn,
			     void *arg)
{
	json_t *exprs = json_member(holder, "matchExpressions"), *expr;
	char *p_exprs;
	size_t i;
	int rc = 0;

	if (!json_is_array(exprs))
		return 0;
	if (!(p_exprs = child(holder_pointer, "matchExpressions")))
		return -1;
	json_array_foreach(exprs, i, expr) {
		const char *key = json_string_value(json_member(expr, "key"));
		char *p_expr;

		if (!json_is_object(expr) || !key || strcmp(key, label) != 0)
			continue;
		if (!(p_expr = json_pointer_join_index(p_exprs, i))) {
			rc = -1;
			break;
		}
		rc = fn(expr, p_expr, arg);
		free(p_expr);
		if (rc)
			break;
	}
	free(p_exprs);
	return rc;
}

int affinity_for_each_node_requirement(json_t *affinity, const char *pointer,
				       const char *label,
				       node_requirement_fn fn, void *arg)
{
	json_t *node_affinity = json_member(affinity, "nodeAffinity");
	json_t *terms, *term;
	char *p_node, *p_terms = NULL, *p_pref = NULL;
	size_t i;
	int rc = 0;

	if (!json_is_object(node_affinity))
		return 0;
	if (!(p_node = child(pointer, "nodeAffinity")))
		return -1;

	terms = json_member(json_member(node_affinity, REQUIRED),
			    "nodeSelectorTerms");
	if (json_is_array(terms)) {
		char *p_req = child(p_node, REQUIRED);

		p_terms = p_req ? child(p_req, "nodeSelectorTerms") : NULL;
		free(p_req);
		if (!p_terms) {
			rc = -1;
			goto out;
		}
		json_array_foreach(terms, i, term) {
			char *p_term = json_pointer_join_index(p_terms, i);

			rc = p_term ? visit_expressions(term, p_term, label, fn,
							arg)
				    : -1;
			free(p_term);
			if (rc)
				goto out;
		}
	}

	terms = json_member(node_affinity, PREFERRED);
	if (json_is_array(terms)) {
		if (!(p_pref = child(p_node, PREFERRED))) {
			rc = -1;
			goto out;
		}
		json_array_foreach(terms, i, term) {
			char *p_term = json_pointer_join_index(p_pref, i);
			char *p_preference = p_term ? child(p_term, "preference")
						    : NULL;

			rc = p_preference
				? visit_expressions(json_member(term,
								"preference"),
						    p_preference, label, fn, arg)
				: -1;
			free(p_term);
			free(p_preference);
			if (rc)
				goto out;
		}
	}
out:
	free(p_node);
	free(p_terms);
	free(p_pref);
	return rc;
}

int product_label_drifts(const struct config *cfg, int shares)
{
	return shares && (cfg->strategy == SHARING_TIME_SLICING ||
		cfg->strategy == SHARING_MPS) &&
	       strcmp(cfg->shared_gpu_resource, cfg->gpu_resource) == 0;
}

/* The longest label value Kubernetes takes. */
#define LABEL_VALUE_MAX 63

int product_values_add_shared(const struct config *cfg, int shares,
			      json_t *values)
{
	size_t n = json_array_size(values), suffix = strlen(cfg->shared_product_suffix);

	if (!product_label_drifts(cfg, shares))
		return 0;
	for (size_t i = 0; i < n; i++) {
		const char *name = json_string_value(json_array_get(values, i));
		size_t len = name ? strlen(name) : 0;
		char *shared;
		int there = 0, rc;
		json_t *item;
		size_t k;

		/* one already shared, or too long a label with the suffix */
		if (!len || len + suffix > LABEL_VALUE_MAX ||
		    (len >= suffix &&
		     strcmp(name + len - suffix, cfg->shared_product_suffix) == 0))
			continue;
		if (!(shared = malloc(len + suffix + 1)))
			return -1;
		memcpy(shared, name, len);
		memcpy(shared + len, cfg->shared_product_suffix, suffix + 1);
		json_array_foreach(values, k, item)
			there |= json_is_string(item) &&
				 strcmp(json_string_value(item), shared) == 0;
		rc = there ? 0 : json_array_append_new(values, json_text(shared));
		free(shared);
		if (rc)
			return -1;
	}
	return 0;
}

/* 1 when `values` of a requirement (NULL when it has none) can be
 * translated: an array of strings. */
static int values_translatable(json_t *values)
{
	json_t *value;
	size_t i;

	if (values && !json_is_array(values))
		return 0;
	json_array_foreach(values, i, value)
		if (!json_is_string(value))
			return 0;
	return 1;
}

/*
 * Translates `requirement`, whose values are translatable, in place: the
 * key, then the values, made anew. 0, or -1 when out of memory (then it
 * may be half done).
 */
static int requirement_translate(const struct config *cfg, int shares,
				 json_t *requirement)
{
	json_t *values = json_incref(json_member(requirement, "values"));
	json_t *value, *fresh_values;
	size_t i;
	int rc = -1;

	if (json_object_set_new(requirement, "key",
				json_text(cfg->gpu_product_label)) != 0)
		goto out;
	rc = 0;
	if (!values)
		goto out;
	rc = -1;
	if (!(fresh_values = json_array()) ||
	    json_object_set_new(requirement, "values", fresh_values) != 0)
		goto out;
	json_array_foreach(values, i, value) {
		char *name = gpu_name_normalize(json_string_value(value));

		if (!name || json_array_append_new(fresh_values,
						   json_text(name)) != 0) {
			free(name);
			goto out;
		}
		free(name);
	}
	/* GPU Feature Discovery spells shared nodes' models otherwise */
	rc = product_values_add_shared(cfg, shares, fresh_values);
out:
	json_decref(values);
	return rc;
}

json_t *node_requirement_translate_new(const struct config *cfg, int shares,
				       json_t *requirement, int *bad)
{
	json_t *copy;

	*bad = !values_translatable(json_member(requirement, "values"));
	if (*bad)
		return NULL;
	copy = json_deep_copy(requirement);
	if (copy && requirement_translate(cfg, shares, copy) != 0) {
		json_decref(copy);
		return NULL;
	}
	return copy;
}

/* Replaces one requirement of a detached affinity value by its translation. */
static int translate_in_place(json_t *requirement, const char *pointer,
			      void *arg)
{
	struct affinity_translation *t = arg;

	(void)pointer;
	if (!values_translatable(json_member(requirement, "values"))) {
		t->bad++;
		return 0;
	}
	t->translated++;
	/* the visitor still holds the requirement: translated in place */
	return requirement_translate(t->cfg, t->shares, requirement);
}

int affinity_translate_gpu_name(json_t *affinity,
				struct affinity_translation *t)
{
	t->translated = 0;
	t->bad = 0;
	return affinity_for_each_node_requirement(affinity, "",
						  t->cfg->legacy_gpu_name_label,
						  translate_in_place, t);
}

/* Adds the shared spellings to one requirement on the model label. */
static int requirement_add_shared(json_t *requirement, const char *pointer,
				  void *arg)
{
	struct rule_ctx *ctx = arg;
	const char *op = json_string_value(json_member(requirement,
						       "operator"));
	json_t *values = json_member(requirement, "values"), *fresh;
	char *p_values = NULL, *p_end = NULL;
	size_t n = json_array_size(values);
	int rc = -1;

	if (!op || (strcmp(op, "In") != 0 && strcmp(op, "NotIn") != 0) ||
	    n == 0 || !values_translatable(values))
		return 0;
	if (!(fresh = json_copy(values)) ||
	    product_values_add_shared(ctx->cfg, 1, fresh) != 0)
		goto out;
	rc = 0;
	if (json_array_size(fresh) == n)
		goto out;
	rc = -1;
	if (!(p_values = json_pointer_join(pointer, "values")) ||
	    !(p_end = json_pointer_join(p_values, "-")))
		goto out;
	rc = rule_report(ctx, SEVERITY_WARNING, p_values, 1,
			 "added the '%s' spellings of the GPU models, as shared nodes are labelled",
			 ctx->cfg->shared_product_suffix);
	for (size_t i = n; !rc && i < json_array_size(fresh); i++)
		rc = rule_add(ctx, p_end, json_incref(json_array_get(fresh, i)));
out:
	json_decref(fresh);
	free(p_values);
	free(p_end);
	return rc;
}

int pod_product_add_shared(struct rule_ctx *ctx, struct pod_spec *pod)
{
	const struct config *cfg = ctx->cfg;
	json_t *selector, *values;
	char *map = NULL, *at = NULL, *p_affinity = NULL;
	const char *model;
	int rc = -1;

	if (!product_label_drifts(cfg, 1))
		return 0;
	if (!pod->place)
		return 0;
	pod->place = json_pointer_get(ctx->root, pod->place_pointer);
	if (!(p_affinity = json_pointer_join(pod->place_pointer, "affinity")))
		return -1;
	if (affinity_for_each_node_requirement(
		    json_member(pod->place, "affinity"), p_affinity,
		    cfg->gpu_product_label, requirement_add_shared, ctx) != 0)
		goto out;
	/* a nodeSelector holds one value: required affinity holds both */
	pod->place = json_pointer_get(ctx->root, pod->place_pointer);
	selector = json_member(pod->place, "nodeSelector");
	model = json_string_value(json_member(selector,
					      cfg->gpu_product_label));
	rc = 0;
	if (!model || !(values = json_pack("[s]", model)))
		goto out;
	rc = -1;
	if (product_values_add_shared(cfg, 1, values) != 0 ||
	    json_array_size(values) == 1) {
		rc = json_array_size(values) == 1 ? 0 : -1;
		json_decref(values);
		goto out;
	}
	if (!(map = json_pointer_join(pod->place_pointer, "nodeSelector")) ||
	    !(at = json_pointer_join(map, cfg->gpu_product_label)) ||
	    rule_report(ctx, SEVERITY_WARNING, at, 1,
			"moved the GPU model selector to affinity on '%s', with '%s' models too",
			cfg->gpu_product_label, cfg->shared_product_suffix) ||
	    rule_remove_key_pruned(ctx, map, cfg->gpu_product_label)) {
		json_decref(values);
		goto out;
	}
	rc = pod_require_node_label(ctx, pod, cfg->gpu_product_label, values);
out:
	free(map);
	free(at);
	free(p_affinity);
	return rc;
}
