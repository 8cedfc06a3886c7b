/*
 * affinity.c - node affinity helpers shared by the rules that place pods.
 */
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

#define REQUIRED "requiredDuringSchedulingIgnoredDuringExecution"

int pod_constrains_node_label(struct pod_spec *pod, const char *key)
{
	json_t *selector = json_object_get(pod->spec, "nodeSelector");
	json_t *terms, *term, *expr;
	size_t i, j;

	if (json_object_get(selector, key))
		return 1;
	terms = json_object_get(
		json_object_get(json_object_get(json_object_get(pod->spec,
								"affinity"),
						"nodeAffinity"),
				REQUIRED),
		"nodeSelectorTerms");
	json_array_foreach(terms, i, term) {
		json_array_foreach(json_object_get(term, "matchExpressions"), j,
				   expr) {
			const char *k = json_string_value(
				json_object_get(expr, "key"));

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
	pod->spec = json_pointer_get(ctx->root, pod->pointer);
	affinity = json_object_get(pod->spec, "affinity");
	node_affinity = json_object_get(affinity, "nodeAffinity");
	required = json_object_get(node_affinity, REQUIRED);
	terms = json_object_get(required, "nodeSelectorTerms");

	if (!(p_aff = child(pod->pointer, "affinity")) ||
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
			json_t *exprs = json_object_get(term, "matchExpressions");
			int r;

			if (!p_exprs) {
				free(p_term);
				goto out;
			}
			if (json_is_array(exprs)) {
				char *p_end = child(p_exprs, "-");

				r = p_end ? rule_add(ctx, p_end, json_deep_copy(expr))
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
