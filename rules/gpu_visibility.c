/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpu_visibility.c - containers that ask for no GPU but see them all.
 *
 * The device plugin only hides GPUs from containers that go through it: a
 * container that requests no GPU yet runs a CUDA image (whose environment
 * sets NVIDIA_VISIBLE_DEVICES=all) or sets that variable itself is handed
 * every GPU of the node by the NVIDIA container runtime, behind the
 * scheduler's back. Setting it to "void" closes the hole.
 *
 * Two kinds of container are left alone. The GPU stack's own components
 * (device plugin, GPU Feature Discovery, DCGM exporter, the GPU Operator's
 * other parts, and the legacy stacks' components, which obsolete-gpu-
 * component reports) request no GPU on purpose and need every GPU of the
 * node: "void" would blind them. And a container that sets
 * NVIDIA_VISIBLE_DEVICES=all itself has made that decision.
 *
 * A container asks for a GPU also through the one it starts from: a
 * Tekton step through its task's stepTemplate, an Argo template's
 * container through its workflow's templateDefaults (container_base()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

#define VISIBLE_DEVICES "NVIDIA_VISIBLE_DEVICES"
#define MESSAGE_MAX 120
#define IMAGE_FMT \
	"container '%s' requests no GPU yet image '%s' sees them all; set %s=void"

/*
 * 1 when the runtime gives a container with this value no GPU: "void" and
 * "none", and the empty value, which the runtime treats like "void".
 */
static int value_hides_gpus(const char *value)
{
	return !*value || strcmp(value, "void") == 0 ||
	       strcmp(value, "none") == 0;
}

/* Index of the entry that wins (the last one) for the variable, or -1. */
static long find_entry(json_t *env)
{
	long found = -1;
	json_t *entry;
	size_t i;

	json_array_foreach(env, i, entry) {
		const char *name = json_string_value(json_member(entry,
								 "name"));

		if (name && strcmp(name, VISIBLE_DEVICES) == 0)
			found = (long)i;
	}
	return found;
}

static json_t *void_entry_new(void)
{
	return json_pack("{s:s, s:s}", "name", VISIBLE_DEVICES,
			 "value", "void");
}

/* Hides the GPUs: rewrites the entry at `entry_pointer`, or adds one. */
static int hide_gpus(struct rule_ctx *ctx, struct container *c, json_t *entry,
		     const char *entry_pointer, const char *env_pointer)
{
	json_t *env = json_member(c->container, "env");
	json_t *value_from = json_member(entry, "valueFrom");
	char *p;
	int rc;

	if (entry && value_from && !json_is_null(value_from))
		return rule_replace(ctx, entry_pointer, void_entry_new());
	if (entry && json_member(entry, "value")) {
		p = json_pointer_join(entry_pointer, "value");
		rc = p ? rule_replace(ctx, p, json_text("void")) : -1;
		free(p);
		return rc;
	}
	if (json_is_array(env)) {
		p = json_pointer_join(env_pointer, "-");
		rc = p ? rule_add(ctx, p, void_entry_new()) : -1;
		free(p);
		return rc;
	}
	if (json_is_null(env))
		return rule_replace(ctx, env_pointer,
				    json_pack("[o]", void_entry_new()));
	return rule_add(ctx, env_pointer, json_pack("[o]", void_entry_new()));
}

static int check_container(struct rule_ctx *ctx, struct pod_spec *pod,
			   struct container *c, void *arg)
{
	const struct config *cfg = ctx->cfg;
	const char *name = container_name(pod, c);
	const char *image = json_string_value(json_member(c->container,
							  "image"));
	json_t *env = json_member(c->container, "env");
	json_t *entry = NULL, *value = NULL, *value_from = NULL;
	char *env_pointer, *entry_pointer = NULL, *image_pointer = NULL;
	char *shown_value = NULL;
	const char *at;
	long index = -1;
	int rc = -1;

	(void)arg;
	/* a GPU of the container it starts from is its own: a Tekton
	 * stepTemplate's, an Argo workflow's templateDefaults' */
	if (container_requests_gpu(cfg, c->container) ||
	    container_requests_gpu(cfg, container_base(ctx, pod, c)))
		return 0;
	if (!name)
		name = "(unnamed)";
	if (json_is_array(env))
		index = find_entry(env);
	if (index >= 0) {
		entry = json_array_get(env, (size_t)index);
		value = json_member(entry, "value");
		value_from = json_member(entry, "valueFrom");
		if (json_is_null(value_from))
			value_from = NULL;
		/* no value at all is the empty value; "all", said outright,
		 * is the manifest's decision */
		if (!value_from && (!value || json_is_null(value) ||
				    (json_is_string(value) &&
				     (value_hides_gpus(json_string_value(value)) ||
				      strcmp(json_string_value(value), "all") == 0))))
			return 0;
	} else if (!string_list_match(&cfg->gpu_images, image)) {
		return 0;
	}
	/* the stack's own components see every GPU: last, the longest */
	if (rule_image_is_stack_component(ctx, image))
		return 0;

	env_pointer = json_pointer_join(c->pointer, "env");
	if (!env_pointer)
		return -1;
	if (entry) {
		entry_pointer = json_pointer_join_index(env_pointer,
							(size_t)index);
		if (!entry_pointer)
			goto out_free;
		at = entry_pointer;
	} else {
		image_pointer = json_pointer_join(c->pointer, "image");
		if (!image_pointer)
			goto out_free;
		at = image_pointer;
	}

	if (rule_mutates(ctx)) {
		if (!entry && env && !json_is_array(env) && !json_is_null(env)) {
			rc = rule_report(ctx, SEVERITY_ERROR, env_pointer, 0,
					 "container '%s' has an 'env' that is not a list; cannot set %s=void",
					 name, VISIBLE_DEVICES);
			goto out_free;
		}
		rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
				 "set %s=void in container '%s', which requests no GPU",
				 VISIBLE_DEVICES, name);
		if (!rc)
			rc = hide_gpus(ctx, c, entry, entry_pointer, env_pointer);
		goto out_free;
	}
	if (!entry) {
		/* a long image name is dropped: admission warnings are capped */
		int len = snprintf(NULL, 0, IMAGE_FMT, name, image,
				   VISIBLE_DEVICES);

		if (len >= 0 && len <= MESSAGE_MAX)
			rc = rule_report(ctx, SEVERITY_WARNING, at, 1, IMAGE_FMT,
					 name, image, VISIBLE_DEVICES);
		else
			rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
					 "container '%s' requests no GPU yet its image sees them all; set %s=void",
					 name, VISIBLE_DEVICES);
	} else if (value_from) {
		rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
				 "container '%s' requests no GPU yet takes %s from valueFrom; set it to 'void'",
				 name, VISIBLE_DEVICES);
	} else {
		shown_value = json_is_string(value) ?
			strdup(json_string_value(value)) :
			json_text_new(value, JSON_ENCODE_ANY);
		if (!shown_value)
			goto out_free;
		rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
				 "container '%s' requests no GPU yet sets %s='%s'; set it to 'void'",
				 name, VISIBLE_DEVICES, shown_value);
	}
out_free:
	free(shown_value);
	free(image_pointer);
	free(entry_pointer);
	free(env_pointer);
	return rc;
}

static int check_pod(struct rule_ctx *ctx, struct pod_spec *pod, void *arg)
{
	return pod_for_each_container(ctx, pod, check_container, arg);
}

int rule_run_gpu_visibility(struct rule_ctx *ctx)
{
	return rule_for_each_pod_spec(ctx, check_pod, NULL);
}
