/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * legacy_gpu_resource.c - alpha.kubernetes.io/nvidia-gpu becomes the device
 * plugin's nvidia.com/gpu, and so do the vendor forks' resources that count
 * whole GPUs (aliyun.com/gpu, Alibaba Cloud's topology-aware scheduling).
 *
 * An extended resource must have a limit, and a request, if any, equal to
 * it (Kubernetes does not overcommit them), so the result is made valid in
 * that sense; anything ambiguous is reported as an error and left as it is.
 * Every occurrence (in limits and in requests) is reported where it is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

struct section {
	const char *name;      /* "limits" or "requests" */
	const char *legacy_name; /* the legacy resource looked for */
	const char *container;   /* the container's pointer */
	const char *resources;   /* its resources member */
	char *pointer;         /* of the map, made when needed
				  (section_pointer()) */
	json_t *map;
	json_t *legacy, *target;
	long long legacy_count, target_count;
};

static void section_free(struct section *s)
{
	free(s->pointer);
}

/*
 * The pointer of the section's map, made the first time it is asked for:
 * most containers hold no legacy resource. NULL when out of memory.
 */
static const char *section_pointer(struct section *s)
{
	char *resources;

	if (!s->pointer &&
	    (resources = json_pointer_join(s->container, s->resources))) {
		s->pointer = json_pointer_join(resources, s->name);
		free(resources);
	}
	return s->pointer;
}

/*
 * Reads one section, whose map (NULL when none) is `map`; reports and
 * returns 1 when a value is unusable.
 */
static int section_read(struct rule_ctx *ctx, struct container *c,
			struct section *s, const char *name, json_t *map,
			const char *legacy_name)
{
	const struct config *cfg = ctx->cfg;
	int bad = 0;

	s->name = name;
	s->legacy_name = legacy_name;
	s->container = c->pointer;
	s->resources = c->resources;
	s->map = map;
	if (!json_is_object(s->map)) {
		s->map = NULL;
		return 0;
	}
	s->legacy = json_member(s->map, legacy_name);
	s->target = json_member(s->map, cfg->gpu_resource);
	if (!s->legacy)
		return 0;
	if (!section_pointer(s))
		return -1;
	if (resource_count(s->legacy, &s->legacy_count) != 0) {
		char *at = json_pointer_join(s->pointer, legacy_name);
		char *text = json_text_new(s->legacy, JSON_ENCODE_ANY);

		bad = rule_report(ctx, SEVERITY_ERROR, at, 0,
				  "'%s' must be a whole, non-negative number of GPUs, not %s",
				  legacy_name, text ? text : "this value") ? -1 : 1;
		free(at);
		free(text);
		return bad;
	}
	if (s->target && (resource_count(s->target, &s->target_count) != 0 ||
			  s->target_count != s->legacy_count)) {
		char *at = json_pointer_join(s->pointer, legacy_name);

		bad = rule_report(ctx, SEVERITY_ERROR, at, 0,
				  "%s has both '%s' and '%s' with different counts",
				  name, legacy_name, cfg->gpu_resource) ? -1 : 1;
		free(at);
	}
	return bad;
}

/* Renames (or, when the target is already there, drops) the legacy key. */
static int section_fix(struct rule_ctx *ctx, struct section *s, int drop)
{
	const struct config *cfg = ctx->cfg;

	if (!s->legacy)
		return 0;
	if (drop || s->target)
		return rule_remove_key_pruned(ctx, s->pointer, s->legacy_name);
	return rule_rename(ctx, s->pointer, s->legacy_name, cfg->gpu_resource);
}

/*
 * Reports one finding at each occurrence of the legacy key (limits, then
 * requests): lint shows every line a user has to change.
 */
static int report_each(struct rule_ctx *ctx, struct section *lim,
		       struct section *req, enum severity severity, int fixed,
		       const char *message)
{
	struct section *sections[] = { lim, req };

	for (size_t i = 0; i < 2; i++) {
		char *at;
		int rc;

		if (!sections[i]->legacy)
			continue;
		at = json_pointer_join(sections[i]->pointer,
				       sections[i]->legacy_name);
		rc = at ? rule_report(ctx, severity, at, fixed, "%s", message)
			: -1;
		free(at);
		if (rc)
			return -1;
	}
	return 0;
}

/* Adds the limit an extended resource needs when only a request was given. */
static int add_limit(struct rule_ctx *ctx, struct section *lim,
		     struct section *req)
{
	const struct config *cfg = ctx->cfg;
	json_t *value = json_deep_copy(req->legacy);
	int rc;

	if (lim->map) {
		char *p = json_pointer_join(lim->pointer, cfg->gpu_resource);

		rc = p ? rule_add(ctx, p, value) : (json_decref(value), -1);
		free(p);
		return rc;
	}
	{
		json_t *map = json_object();

		if (!map || !value ||
		    json_object_set_new(map, cfg->gpu_resource, value)) {
			json_decref(map);
			return -1;
		}
		return rule_add(ctx, lim->pointer, map);
	}
}

/* Checks and rewrites the legacy resource `name` in one container. */
static int check_name(struct rule_ctx *ctx, struct container *c,
		      const char *name)
{
	const struct config *cfg = ctx->cfg;
	struct section lim = { 0 }, req = { 0 };
	long long limit = -1, request = -1, count;
	char *at = NULL, message[256];
	int rc = -1, bad;
	/* looked up for each name: the one before may have pruned them */
	json_t *resources = json_member(c->container, c->resources);
	json_t *limits = json_member(resources, "limits");
	json_t *requests = json_member(resources, "requests");

	/* most containers hold none of the names */
	if (!json_member(limits, name) && !json_member(requests, name))
		return 0;
	bad = section_read(ctx, c, &lim, "limits", limits, name);
	if (bad >= 0) {
		int bad_req = section_read(ctx, c, &req, "requests", requests,
					   name);

		bad = bad_req < 0 ? -1 : bad | bad_req;
	}
	if (bad < 0)
		goto out;
	rc = 0;
	if (bad || (!lim.legacy && !req.legacy))
		goto out;
	/* what follows writes at both */
	rc = -1;
	if (!section_pointer(&lim) || !section_pointer(&req))
		goto out;
	rc = 0;

	if (lim.legacy)
		limit = lim.legacy_count;
	else if (lim.target && resource_count(lim.target, &count) == 0)
		limit = count;
	if (req.legacy)
		request = req.legacy_count;
	else if (req.target && resource_count(req.target, &count) == 0)
		request = count;

	at = json_pointer_join(lim.legacy ? lim.pointer : req.pointer, name);
	if (!at) {
		rc = -1;
		goto out;
	}
	if (limit >= 0 && request >= 0 && limit != request) {
		rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
				 "GPU request (%lld) differs from the limit (%lld); extended resources need them equal",
				 request, limit);
		goto out;
	}
	count = limit >= 0 ? limit : request;

	if (!rule_mutates(ctx)) {
		snprintf(message, sizeof(message),
			 "'%s' is not served by the device plugin; use '%s'",
			 name, cfg->gpu_resource);
		rc = report_each(ctx, &lim, &req, SEVERITY_WARNING, 0, message);
		goto out;
	}
	if (count == 0) {
		snprintf(message, sizeof(message),
			 "dropped '%s: 0' (asks for no GPU)", name);
		rc = report_each(ctx, &lim, &req, SEVERITY_WARNING, 1, message);
		/* requests first: pruning limits may remove the parent */
		if (!rc)
			rc = section_fix(ctx, &req, 1);
		if (!rc)
			rc = section_fix(ctx, &lim, 1);
		goto out;
	}
	snprintf(message, sizeof(message), "renamed '%s' to '%s'", name,
		 cfg->gpu_resource);
	rc = report_each(ctx, &lim, &req, SEVERITY_WARNING, 1, message);
	if (!rc)
		rc = section_fix(ctx, &lim, 0);
	if (!rc)
		rc = section_fix(ctx, &req, 0);
	if (!rc && limit < 0)
		rc = add_limit(ctx, &lim, &req);
out:
	free(at);
	section_free(&lim);
	section_free(&req);
	return rc;
}

static int check_container(struct rule_ctx *ctx, struct pod_spec *pod,
			   struct container *c, void *arg)
{
	const struct string_list *vendor = &ctx->cfg->vendor_gpu_resources;

	(void)pod;
	(void)arg;
	if (check_name(ctx, c, ctx->cfg->legacy_gpu_resource))
		return -1;
	for (size_t i = 0; i < vendor->n; i++)
		if (check_name(ctx, c, vendor->items[i]))
			return -1;
	return 0;
}

static int check_pod(struct rule_ctx *ctx, struct pod_spec *pod, void *arg)
{
	return pod_for_each_container(ctx, pod, check_container, arg);
}

/*
 * tf-operator (Kubeflow's TFJob operator before the training operator)
 * read an "accelerators:" map from its ConfigMap: for each GPU resource,
 * hostPath volumes it mounted into every replica that asked for it, the
 * driver by hand. Keyed by the legacy resource, nothing asks for it once
 * the jobs are migrated, and the device plugin mounts the driver: the
 * entry is reported, in the ConfigMap's text, for removal.
 */
static int check_operator_config(struct rule_ctx *ctx)
{
	const char *kind = json_string_value(json_member(ctx->object, "kind"));
	json_t *data = json_member(ctx->object, "data"), *value;
	const char *key;
	char *p_data = NULL;
	int rc = 0;

	if (!kind || strcmp(kind, "ConfigMap") != 0 || !json_is_object(data))
		return 0;
	json_object_foreach(data, key, value) {
		const char *text = json_string_value(value);
		char *at;

		if (!text || !strstr(text, "accelerators:") ||
		    !strstr(text, ctx->cfg->legacy_gpu_resource))
			continue;
		if (!p_data &&
		    !(p_data = json_pointer_join(ctx->object_pointer, "data")))
			return -1;
		if (!(at = json_pointer_join(p_data, key))) {
			rc = -1;
			break;
		}
		rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
				 "tf-operator's 'accelerators' mounts the driver for '%s'; remove it: the device plugin does",
				 ctx->cfg->legacy_gpu_resource);
		free(at);
		if (rc)
			break;
	}
	free(p_data);
	return rc;
}

int rule_run_legacy_gpu_resource(struct rule_ctx *ctx)
{
	if (check_operator_config(ctx) != 0)
		return -1;
	return rule_for_each_pod_spec(ctx, check_pod, NULL);
}
