/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
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

/*
 * Values compared by their canonical text: JSON with sorted keys, equal
 * for values json_equal() finds equal (objects whatever their member
 * order), so that a sort and a binary search find in n log n what a
 * comparison of every pair found in n^2. Reals are the exception: 0.0
 * and -0.0, equal to json_equal(), differ here, which can only make a
 * covered annotation look uncovered (an error finding, nothing changed).
 */
struct canon {
	char **texts;              /* sorted; owned */
	size_t n;
};

static int text_ptr_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void canon_free(struct canon *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->texts[i]);
	free(c->texts);
	c->texts = NULL;
	c->n = 0;
}

/* The canonical text of `value`, new; NULL when out of memory. */
static char *canon_text(json_t *value)
{
	return json_text_new(value, JSON_COMPACT | JSON_SORT_KEYS);
}

/*
 * The sorted canonical texts of the elements of `array`. 0, or -1 when
 * out of memory or over the budget (the failure recorded).
 */
static int canon_of(struct rule_ctx *ctx, json_t *array, struct canon *c)
{
	json_t *item;
	size_t i;

	c->n = 0;
	if (!(c->texts = malloc((json_array_size(array) + 1) *
				sizeof(*c->texts))))
		return rule_add(ctx, "", NULL);
	json_array_foreach(array, i, item) {
		if (rule_spend(ctx, 1))
			return -1;
		if (!(c->texts[c->n] = canon_text(item)))
			return rule_add(ctx, "", NULL);
		c->n++;
	}
	qsort(c->texts, c->n, sizeof(*c->texts), text_ptr_cmp);
	return 0;
}

/* 1 when `text` is one of the sorted texts of `c`. */
static int canon_has(const struct canon *c, const char *text)
{
	return c->n && bsearch(&text, c->texts, c->n, sizeof(*c->texts),
			       text_ptr_cmp) != NULL;
}

/*
 * 1 when each element of the array `part` is in the array `whole`, 0 when
 * not, -1 on a failure (recorded).
 */
static int array_within(struct rule_ctx *ctx, json_t *part, json_t *whole)
{
	struct canon in = { 0 };
	json_t *item;
	size_t i;
	int rc = 1;

	if (!json_is_array(part) || !json_is_array(whole))
		return 0;
	if (canon_of(ctx, whole, &in)) {
		canon_free(&in);
		return -1;
	}
	json_array_foreach(part, i, item) {
		char *text;

		if (rule_spend(ctx, 1) || !(text = canon_text(item))) {
			rc = ctx->failed ? -1 : rule_add(ctx, "", NULL);
			break;
		}
		if (!canon_has(&in, text))
			rc = 0;
		free(text);
		if (rc != 1)
			break;
	}
	canon_free(&in);
	return rc;
}

/*
 * 1 when the node selector term `strict` asks for all `loose` asks for,
 * 0 when not, -1 on a failure.
 */
static int term_implies(struct rule_ctx *ctx, json_t *strict, json_t *loose)
{
	const char *key;
	json_t *value;

	if (!json_is_object(strict) || !json_is_object(loose))
		return 0;
	json_object_foreach(loose, key, value) {
		int rc = array_within(ctx, value, json_member(strict, key));

		if (rc != 1)
			return rc;
	}
	return 1;
}

/*
 * The canonical text of a node selector term as a set: each member's
 * array as its elements' sorted, distinct canonical texts. Two terms with
 * the same text imply each other. NULL when a member is not an array (the
 * term is then compared by term_implies() alone) or out of memory.
 */
static char *term_text(struct rule_ctx *ctx, json_t *term)
{
	json_t *set = json_object(), *value;
	const char *key;
	char *text = NULL;

	if (!set || !json_is_object(term))
		goto out;
	json_object_foreach(term, key, value) {
		struct canon c = { 0 };
		json_t *texts;
		int bad;

		if (!json_is_array(value) || !(texts = json_array()))
			goto out;
		bad = canon_of(ctx, value, &c) != 0;
		for (size_t i = 0; !bad && i < c.n; i++)
			if (!i || strcmp(c.texts[i - 1], c.texts[i]))
				bad = json_array_append_new(texts,
						json_string(c.texts[i])) != 0;
		canon_free(&c);
		if (bad || json_object_set_new(set, key, texts))
			goto out;
	}
	text = canon_text(set);
out:
	json_decref(set);
	return text;
}

/*
 * 1 when some term of `wanted_terms` is implied by `term` (terms are
 * ORed), 0 when none is, -1 on a failure. `sets` are the sorted term
 * texts of `wanted_terms`: a term with the same text is found by a
 * binary search; the others are compared one by one, each comparison
 * spending from the budget.
 */
static int term_covered(struct rule_ctx *ctx, json_t *term,
			json_t *wanted_terms, const struct canon *sets)
{
	char *text = term_text(ctx, term);
	json_t *other;
	size_t j;
	int found = text && canon_has(sets, text);

	free(text);
	if (ctx->failed)
		return -1;
	json_array_foreach(wanted_terms, j, other) {
		if (found)
			break;
		found = term_implies(ctx, term, other);
		if (found < 0)
			return -1;
	}
	return found;
}

/*
 * 1 when the nodeAffinity `present` already asks for all the nodeAffinity
 * `wanted` does, so that merging `wanted` would change nothing: each
 * required term of `present` implies one of `wanted` (terms are ORed, the
 * expressions of a term ANDed), and each preference of `wanted` is in
 * `present`. That is the case when the annotation comes back next to the
 * spec.affinity it was moved into (a manifest applied again), after the
 * other rules added their expressions to it. 0 when not, -1 on a failure.
 */
static int node_affinity_covers(struct rule_ctx *ctx, json_t *present,
				json_t *wanted)
{
	static const char *const required =
		"requiredDuringSchedulingIgnoredDuringExecution";
	static const char *const preferred =
		"preferredDuringSchedulingIgnoredDuringExecution";
	const char *key;
	json_t *value, *term;
	size_t i;

	if (!json_is_object(present) || !json_is_object(wanted))
		return 0;
	json_object_foreach(wanted, key, value) {
		json_t *mine = json_member(present, key);
		json_t *terms = json_member(mine, "nodeSelectorTerms");
		json_t *wanted_terms = json_member(value, "nodeSelectorTerms");
		struct canon sets = { 0 };
		int rc = 1;

		if (json_equal(mine, value))
			continue;
		if (!strcmp(key, preferred)) {
			rc = array_within(ctx, value, mine);
			if (rc != 1)
				return rc;
			continue;
		}
		if (strcmp(key, required) || json_object_size(value) != 1 ||
		    !json_is_array(terms) || !json_array_size(terms) ||
		    !json_is_array(wanted_terms))
			return 0;
		if (!(sets.texts = malloc((json_array_size(wanted_terms) + 1) *
					  sizeof(*sets.texts))))
			return rule_add(ctx, "", NULL);
		json_array_foreach(wanted_terms, i, term) {
			char *text = term_text(ctx, term);

			if (text)
				sets.texts[sets.n++] = text;
			else if (ctx->failed)
				rc = -1;
		}
		qsort(sets.texts, sets.n, sizeof(*sets.texts), text_ptr_cmp);
		json_array_foreach(terms, i, term) {
			if (rc != 1)
				break;
			rc = term_covered(ctx, term, wanted_terms, &sets);
		}
		canon_free(&sets);
		if (rc != 1)
			return rc;
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
		int covers;

		if (!is_affinity_kind(kind))
			return rule_report(ctx, SEVERITY_ERROR, at, 0,
					   "annotation '%s' has unknown member '%.24s'",
					   AFFINITY_ANNOTATION, kind) ? -1 : 1;
		present = json_member(current, kind);
		covers = present && !json_equal(present, value) &&
			 strcmp(kind, "nodeAffinity") == 0 ?
			 node_affinity_covers(ctx, present, value) : 0;
		if (covers < 0)
			return -1;
		if (present && !json_equal(present, value) && !covers)
			return rule_report(ctx, SEVERITY_ERROR, at, 0,
					   "annotation '%s' conflicts with spec.affinity.%s",
					   AFFINITY_ANNOTATION, kind) ? -1 : 1;
	}
	return 0;
}

/* 1 when `current` already asks for all that `parsed` does, 0 when not,
 * -1 on a failure (the review's budget spent). */
static int covers_all(struct rule_ctx *ctx, json_t *current, json_t *parsed)
{
	const char *kind;
	json_t *value;

	json_object_foreach(parsed, kind, value) {
		json_t *present = json_member(current, kind);
		int covers = 0;

		if (!present)
			return 0;
		if (json_equal(present, value))
			continue;
		if (strcmp(kind, "nodeAffinity") == 0 &&
		    (covers = node_affinity_covers(ctx, present, value)) < 0)
			return -1;
		if (!covers)
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
	    covers_all(ctx, current, parsed) == 1)
		return parsed;
	json_decref(parsed);
	return NULL;
}

/* Adds what spec.affinity lacks of `parsed`. */
static int merge(struct rule_ctx *ctx, struct pod_spec *pod, json_t *parsed)
{
	json_t *current = json_member(pod->place, "affinity");
	const char *kind;
	json_t *value;
	char *p_affinity = json_pointer_join(pod->place_pointer, "affinity");
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
	current = json_member(pod->place, "affinity");
	if (t.shares && covers_all(ctx, current, parsed) != 1) {
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

	/* a pod without placement (a Tekton task spec) is only told */
	if (!rule_mutates(ctx) || !pod->place_pointer) {
		rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
				 "annotation '%s' is ignored by the scheduler; use spec.affinity",
				 AFFINITY_ANNOTATION);
		goto out;
	}
	rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
			 "moved annotation '%s' into spec.affinity",
			 AFFINITY_ANNOTATION);
	if (!rc && (rc = pod_place_make(ctx, pod)) == 1)
		rc = -1;
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
