/*
 * legacy_affinity_annotation.c - the alpha annotation
 * scheduler.alpha.kubernetes.io/affinity becomes spec.affinity.
 *
 * Before Kubernetes 1.6 affinity was written as JSON in that pod annotation;
 * the scheduler has long stopped reading it, so such pods are scheduled as
 * if they had no affinity at all. Its content has the shape of
 * spec.affinity, so it moves there, with the GPU name label translated the
 * way legacy-gpu-node-label translates the rest of the pod.
 */
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

#define AFFINITY_ANNOTATION "scheduler.alpha.kubernetes.io/affinity"

static const char *const affinity_kinds[] = {
	"nodeAffinity", "podAffinity", "podAntiAffinity"
};

static int is_affinity_kind(const char *name)
{
	for (size_t i = 0; i < 3; i++)
		if (strcmp(name, affinity_kinds[i]) == 0)
			return 1;
	return 0;
}

/* 1 when each element of the array `part` is in the array `whole`. */
static int array_within(json_t *part, json_t *whole)
{
	json_t *item, *other;
	size_t i, j;

	if (!json_is_array(part) || !json_is_array(whole))
		return 0;
	json_array_foreach(part, i, item) {
		int found = 0;

		json_array_foreach(whole, j, other)
			if (json_equal(item, other))
				found = 1;
		if (!found)
			return 0;
	}
	return 1;
}

/* 1 when the node selector term `strict` asks for all `loose` asks for. */
static int term_implies(json_t *strict, json_t *loose)
{
	const char *key;
	json_t *value;

	if (!json_is_object(strict) || !json_is_object(loose))
		return 0;
	json_object_foreach(loose, key, value)
		if (!array_within(value, json_member(strict, key)))
			return 0;
	return 1;
}

/*
 * 1 when the nodeAffinity `present` already asks for all the nodeAffinity
 * `wanted` does, so that merging `wanted` would change nothing: each
 * required term of `present` implies one of `wanted` (terms are ORed, the
 * expressions of a term ANDed), and each preference of `wanted` is in
 * `present`. That is the case when the annotation comes back next to the
 * spec.affinity it was moved into (a manifest applied again), after the
 * other rules added their expressions to it.
 */
static int node_affinity_covers(json_t *present, json_t *wanted)
{
	static const char *const required =
		"requiredDuringSchedulingIgnoredDuringExecution";
	static const char *const preferred =
		"preferredDuringSchedulingIgnoredDuringExecution";
	const char *key;
	json_t *value, *term;
	size_t i, j;

	if (!json_is_object(present) || !json_is_object(wanted))
		return 0;
	json_object_foreach(wanted, key, value) {
		json_t *mine = json_member(present, key);
		json_t *terms = json_member(mine, "nodeSelectorTerms");
		json_t *wanted_terms = json_member(value, "nodeSelectorTerms");

		if (json_equal(mine, value))
			continue;
		if (!strcmp(key, preferred)) {
			if (!array_within(value, mine))
				return 0;
			continue;
		}
		if (strcmp(key, required) || json_object_size(value) != 1 ||
		    !json_is_array(terms) || !json_array_size(terms) ||
		    !json_is_array(wanted_terms))
			return 0;
		json_array_foreach(terms, i, term) {
			json_t *other;
			int implied = 0;

			json_array_foreach(wanted_terms, j, other)
				if (term_implies(term, other))
					implied = 1;
			if (!implied)
				return 0;
		}
	}
	return 1;
}

/*
 * Checks the parsed annotation against the pod's spec.affinity. Returns 0
 * when it merges, 1 after reporting why it does not, -1 on failure.
 */
static int check_merge(struct rule_ctx *ctx, json_t *parsed, json_t *current,
		       const char *at)
{
	const char *kind;
	json_t *value;

	json_object_foreach(parsed, kind, value) {
		json_t *present;

		if (!is_affinity_kind(kind))
			return rule_report(ctx, SEVERITY_ERROR, at, 0,
					   "annotation '%s' has unknown member '%.24s'",
					   AFFINITY_ANNOTATION, kind) ? -1 : 1;
		present = json_member(current, kind);
		if (present && !json_equal(present, value) &&
		    !(strcmp(kind, "nodeAffinity") == 0 &&
		      node_affinity_covers(present, value)))
			return rule_report(ctx, SEVERITY_ERROR, at, 0,
					   "annotation '%s' conflicts with spec.affinity.%s",
					   AFFINITY_ANNOTATION, kind) ? -1 : 1;
	}
	return 0;
}

/* 1 when `current` already asks for all that `parsed` does. */
static int covers_all(json_t *current, json_t *parsed)
{
	const char *kind;
	json_t *value;

	json_object_foreach(parsed, kind, value) {
		json_t *present = json_member(current, kind);

		if (!present || !(json_equal(present, value) ||
				  (strcmp(kind, "nodeAffinity") == 0 &&
				   node_affinity_covers(present, value))))
			return 0;
	}
	return 1;
}

/*
 * The annotation `text` translated without the shared spellings of the
 * models when that is what `current` already holds: gpumend's own output
 * from when shared GPUs were asked for under a renamed resource, whose
 * models have the plain spelling only (gpu-sharing adds the other). A new
 * reference, or NULL when it does not apply.
 */
static json_t *covered_unshared_new(struct rule_ctx *ctx, json_t *text,
				    json_t *current)
{
	struct affinity_translation plain = { .cfg = ctx->cfg };
	json_error_t jerr;
	json_t *parsed;

	if (!json_is_object(current))
		return NULL;
	parsed = rule_json_read(ctx, json_string_value(text), &jerr);
	if (parsed && json_is_object(parsed) &&
	    affinity_translate_gpu_name(parsed, &plain) == 0 && !plain.bad &&
	    covers_all(current, parsed))
		return parsed;
	json_decref(parsed);
	return NULL;
}

/* Adds what spec.affinity lacks of `parsed`. */
static int merge(struct rule_ctx *ctx, struct pod_spec *pod, json_t *parsed)
{
	json_t *current = json_member(pod->spec, "affinity");
	const char *kind;
	json_t *value;
	char *p_affinity = json_pointer_join(pod->pointer, "affinity");
	int rc = 0;

	if (!p_affinity)
		return -1;
	if (!json_is_object(current)) {
		if (json_object_size(parsed) == 0)
			goto out;
		/* `affinity:` left empty in YAML is a null to replace */
		rc = current ? rule_replace(ctx, p_affinity, json_incref(parsed))
			     : rule_add(ctx, p_affinity, json_incref(parsed));
		goto out;
	}
	json_object_foreach(parsed, kind, value) {
		char *p_kind;

		if (json_member(current, kind))
			continue;
		if (!(p_kind = json_pointer_join(p_affinity, kind))) {
			rc = -1;
			break;
		}
		rc = rule_add(ctx, p_kind, json_incref(value));
		free(p_kind);
		if (rc)
			break;
		current = json_pointer_get(ctx->root, p_affinity);
	}
out:
	free(p_affinity);
	return rc;
}

static int check_pod(struct rule_ctx *ctx, struct pod_spec *pod, void *arg)
{
	const struct config *cfg = ctx->cfg;
	struct affinity_translation t = { .cfg = cfg };
	json_t *annotations, *text, *parsed = NULL, *current;
	char *p_annotations = NULL, *at = NULL;
	json_error_t jerr;
	int rc = -1, bad;

	(void)arg;
	if (!pod->metadata)
		return 0;
	annotations = json_member(pod->metadata, "annotations");
	text = json_member(annotations, AFFINITY_ANNOTATION);
	if (!text)
		return 0;
	t.shares = pod_shares_gpu(cfg, pod);
	if (!(p_annotations = json_pointer_join(pod->metadata_pointer,
						"annotations")) ||
	    !(at = json_pointer_join(p_annotations, AFFINITY_ANNOTATION)))
		goto out;

	if (!json_is_string(text)) {
		rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
				 "annotation '%s' must be a string",
				 AFFINITY_ANNOTATION);
		goto out;
	}
	parsed = rule_json_read(ctx, json_string_value(text), &jerr);
	if (!parsed) {
		rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
				 "annotation '%s' is not valid JSON (line %d, column %d)",
				 AFFINITY_ANNOTATION, jerr.line, jerr.column);
		goto out;
	}
	if (!json_is_object(parsed)) {
		rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
				 "annotation '%s' must hold a JSON object",
				 AFFINITY_ANNOTATION);
		goto out;
	}
	if (affinity_translate_gpu_name(parsed, &t) != 0)
		goto out;
	if (t.bad) {
		rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
				 "annotation '%s' has non-string GPU model names",
				 AFFINITY_ANNOTATION);
		goto out;
	}
	current = json_member(pod->spec, "affinity");
	if (t.shares && !covers_all(current, parsed)) {
		json_t *plain = covered_unshared_new(ctx, text, current);

		if (plain) {
			json_decref(parsed);
			parsed = plain;
		}
	}
	if (current && !json_is_object(current) && !json_is_null(current)) {
		rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
				 "annotation '%s' cannot merge: spec.affinity is not a mapping",
				 AFFINITY_ANNOTATION);
		goto out;
	}
	bad = check_merge(ctx, parsed, json_is_object(current) ? current : NULL,
			  at);
	if (bad) {
		rc = bad < 0 ? -1 : 0;
		goto out;
	}

	if (!rule_mutates(ctx)) {
		rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
				 "annotation '%s' is ignored by the scheduler; use spec.affinity",
				 AFFINITY_ANNOTATION);
		goto out;
	}
	rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
			 "moved annotation '%s' into spec.affinity",
			 AFFINITY_ANNOTATION);
	if (!rc)
		rc = merge(ctx, pod, parsed);
	if (!rc)
		rc = rule_remove_key_pruned(ctx, p_annotations,
					    AFFINITY_ANNOTATION);
out:
	json_decref(parsed);
	free(p_annotations);
	free(at);
	return rc;
}

int rule_run_legacy_affinity_annotation(struct rule_ctx *ctx)
{
	return rule_for_each_pod_spec(ctx, check_pod, NULL);
}
