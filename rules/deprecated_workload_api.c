/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * deprecated_workload_api.c - workloads on API versions that are no longer
 * served: extensions/v1beta1, apps/v1beta1 and apps/v1beta2 workloads
 * (removed in Kubernetes 1.16), batch/v1beta1 and batch/v2alpha1 CronJobs.
 *
 * Offline only: an API server converts these versions itself, the files do
 * not. apps/v1 requires spec.selector, which the old versions defaulted
 * from the template labels; the rule writes that default down, also in
 * apps/v1 workloads that lack it (copied from an old manifest with only
 * its apiVersion changed: the API server refuses them). Fields that
 * apps/v1 no longer has (spec.rollbackTo, spec.templateGeneration) go.
 */
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

struct api_move {
	const char *kind;
	const char *const *from;   /* NULL-terminated */
	const char *to;
	const char *dropped;       /* spec field apps/v1 does not have, or NULL */
	int needs_selector;
};

static const char *const old_apps[] = {
	"extensions/v1beta1", "apps/v1beta1", "apps/v1beta2", NULL
};

static const char *const old_batch[] = {
	"batch/v1beta1", "batch/v2alpha1", NULL
};

static const struct api_move moves[] = {
	{ "Deployment", old_apps, "apps/v1", "rollbackTo", 1 },
	{ "DaemonSet", old_apps, "apps/v1", "templateGeneration", 1 },
	{ "ReplicaSet", old_apps, "apps/v1", NULL, 1 },
	{ "StatefulSet", old_apps, "apps/v1", NULL, 1 },
	{ "CronJob", old_batch, "batch/v1", NULL, 0 },
};

/* apps/v1 itself: nothing to move, but the selector is required. */
static const char *const apps_v1[] = { "apps/v1", NULL };

static const struct api_move selector_only[] = {
	{ "Deployment", apps_v1, "apps/v1", NULL, 1 },
	{ "DaemonSet", apps_v1, "apps/v1", NULL, 1 },
	{ "ReplicaSet", apps_v1, "apps/v1", NULL, 1 },
	{ "StatefulSet", apps_v1, "apps/v1", NULL, 1 },
};

static const struct api_move *find_in(const struct api_move *table,
				      size_t n, const char *kind,
				      const char *api_version)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(table[i].kind, kind) != 0)
			continue;
		for (size_t v = 0; table[i].from[v]; v++)
			if (strcmp(table[i].from[v], api_version) == 0)
				return &table[i];
	}
	return NULL;
}

static const struct api_move *find_move(const char *kind,
					const char *api_version)
{
	if (!kind || !api_version)
		return NULL;
	return find_in(moves, sizeof(moves) / sizeof(moves[0]), kind,
		       api_version);
}

/* Joins `tokens` (NULL-terminated) to `base`; a new string or NULL. */
static char *pointer_join_all(const char *base, const char *const *tokens)
{
	char *pointer = strdup(base);

	for (size_t i = 0; pointer && tokens[i]; i++) {
		char *longer = json_pointer_join(pointer, tokens[i]);

		free(pointer);
		pointer = longer;
	}
	return pointer;
}

/*
 * The template labels of `spec` a selector may be made of, in *labels (a
 * new reference, NULL when there are none): all but the sharing label that
 * gpu-sharing sets. Its value names a strategy that every sharing workload
 * shares, so it cannot tell this workload's pods from another's; and as
 * gpu-sharing runs after this rule, a selector that took it would come
 * only when migrating the migrated file again. *ours is set when it was
 * there. 0, or -1 when out of memory.
 */
static int selector_labels(struct rule_ctx *ctx, json_t *spec,
			   json_t **labels, int *ours)
{
	const char *own = ctx->cfg->sharing_label;
	json_t *all = json_member(json_member(json_member(spec,
		"template"), "metadata"), "labels");

	*ours = 0;
	*labels = NULL;
	if (!json_is_object(all))
		return 0;
	if (!own || !json_member(all, own)) {
		*labels = json_incref(all);
		return 0;
	}
	*ours = 1;
	if (!(*labels = json_copy(all)))
		return -1;
	return json_object_del(*labels, own) == 0 ? 0 : -1;
}

/*
 * Checks that the template labels can become the selector. Reports an
 * error and returns 1 when they cannot; 0 when they can; -1 on OOM.
 * `ours`: the template held the sharing label, left out of `labels`.
 */
static int check_labels(struct rule_ctx *ctx, const struct api_move *move,
			json_t *labels, int ours)
{
	json_t *spec = json_member(ctx->object, "spec");
	const char *key;
	json_t *value;
	char *at;
	int rc;

	if (json_is_object(labels) && json_object_size(labels) > 0) {
		json_object_foreach(labels, key, value) {
			const char *path[] = {
				"spec", "template", "metadata", "labels", key, NULL
			};

			if (json_is_string(value))
				continue;
			/* a selector of non-string values is invalid */
			at = pointer_join_all(ctx->object_pointer, path);
			if (!at)
				return -1;
			rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
					 "template label '%s' is not a string; it cannot become the spec.selector '%s' requires",
					 key, move->to);
			free(at);
			return rc ? -1 : 1;
		}
		return 0;
	}
	/* point at the template when there is one, else at the version */
	if (json_member(spec, "template")) {
		const char *path[] = { "spec", "template", NULL };

		at = pointer_join_all(ctx->object_pointer, path);
	} else {
		at = json_pointer_join(ctx->object_pointer, "apiVersion");
	}
	if (!at)
		return -1;
	rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
			 "'%s' requires spec.selector, and this %s has no template labels to derive it from%s%s%s",
			 move->to, move->kind,
			 ours ? " ('" : "", ours ? ctx->cfg->sharing_label : "",
			 ours ? "' is gpumend's, shared by every workload of its sharing strategy)" : "");
	free(at);
	return rc ? -1 : 1;
}

/* Sets spec.selector to {matchLabels: a copy of the template labels}. */
static int add_selector(struct rule_ctx *ctx, const char *spec_pointer,
			json_t *selector, json_t *labels)
{
	/* a copy: later rules may add pod labels the selector must not get */
	json_t *value = json_pack("{s:o}", "matchLabels",
				  json_deep_copy(labels));
	char *p = json_pointer_join(spec_pointer, "selector");
	int rc;

	if (!p) {
		json_decref(value);
		return -1;
	}
	/* `selector:` left empty in YAML is a null, replaced in place */
	if (selector)
		rc = rule_replace(ctx, p, value);
	else
		rc = rule_add(ctx, p, value);
	free(p);
	return rc;
}

/*
 * The missing selector of an apps/v1 workload's spec (absent or null) and
 * nothing else to do.
 */
static int add_missing_selector(struct rule_ctx *ctx,
				const struct api_move *move)
{
	json_t *spec = json_member(ctx->object, "spec");
	json_t *selector = json_member(spec, "selector");
	json_t *labels;
	char *spec_pointer = NULL, *at = NULL;
	int rc = -1, bad, ours;

	if (!json_is_object(spec) || (selector && !json_is_null(selector)))
		return 0;
	if (selector_labels(ctx, spec, &labels, &ours))
		goto out;
	bad = check_labels(ctx, move, labels, ours);
	if (bad) {
		rc = bad < 0 ? -1 : 0;
		goto out;
	}
	spec_pointer = json_pointer_join(ctx->object_pointer, "spec");
	at = json_pointer_join(ctx->object_pointer, "apiVersion");
	if (!spec_pointer || !at)
		goto out;
	if (!rule_mutates(ctx)) {
		rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
				 "'apps/v1' %s has no spec.selector, which apps/v1 requires",
				 move->kind);
		goto out;
	}
	rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
			 "added the spec.selector that 'apps/v1' requires, from the template labels");
	if (!rc)
		rc = add_selector(ctx, spec_pointer, selector, labels);
out:
	json_decref(labels);
	free(spec_pointer);
	free(at);
	return rc;
}

int rule_run_deprecated_workload_api(struct rule_ctx *ctx)
{
	json_t *object = ctx->object;
	const char *kind = json_string_value(json_member(object, "kind"));
	const char *api_version = json_string_value(json_member(object,
								"apiVersion"));
	const struct api_move *move = find_move(kind, api_version);
	json_t *spec, *selector, *labels = NULL;
	char *version_pointer, *spec_pointer = NULL, *old_version = NULL;
	int needs_selector = 0, rc = -1, bad, ours;

	if (!move) {
		if (kind && api_version &&
		    (move = find_in(selector_only,
				    sizeof(selector_only) / sizeof(selector_only[0]),
				    kind, api_version)))
			return add_missing_selector(ctx, move);
		return 0;
	}
	spec = json_member(object, "spec");
	selector = json_member(spec, "selector");
	if (move->needs_selector && (!selector || json_is_null(selector))) {
		needs_selector = 1;
		if (selector_labels(ctx, spec, &labels, &ours))
			return -1;
		bad = check_labels(ctx, move, labels, ours);
		if (bad) {
			json_decref(labels);
			return bad < 0 ? -1 : 0;
		}
	}

	version_pointer = json_pointer_join(ctx->object_pointer, "apiVersion");
	spec_pointer = json_pointer_join(ctx->object_pointer, "spec");
	/* the object is rewritten below: keep the old version for messages */
	old_version = strdup(api_version);
	if (!version_pointer || !spec_pointer || !old_version)
		goto out_free;
	if (!rule_mutates(ctx)) {
		rc = rule_report(ctx, SEVERITY_WARNING, version_pointer, 1,
				 "'%s' %s is no longer served; use '%s'",
				 old_version, move->kind, move->to);
		goto out_free;
	}
	rc = rule_report(ctx, SEVERITY_WARNING, version_pointer, 1,
			 "moved %s from '%s' to '%s'%s", move->kind,
			 old_version, move->to,
			 needs_selector ?
			 ", selector taken from the template labels" : "");
	if (!rc)
		rc = rule_replace(ctx, version_pointer, json_text(move->to));
	if (!rc && needs_selector)
		rc = add_selector(ctx, spec_pointer, selector, labels);
	if (!rc && move->dropped && json_member(spec, move->dropped)) {
		char *p = json_pointer_join(spec_pointer, move->dropped);

		rc = p ? rule_remove(ctx, p) : -1;
		free(p);
	}
out_free:
	json_decref(labels);
	free(old_version);
	free(spec_pointer);
	free(version_pointer);
	return rc;
}
