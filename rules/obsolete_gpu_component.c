/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * obsolete_gpu_component.c - the legacy GPU stacks' own components.
 *
 * Migrating the workloads is half a migration: the device plugins of the
 * 1.8/1.9 era, the Aliyun gpushare device plugin and scheduler extender
 * (which Rancher's shared-GPU support also ran), and nvidia-docker-plugin
 * still have to go, each replaced by today's stack. The config lists them
 * by image pattern, each with what replaces it; this rule reports every
 * container that runs one. Lint only: what to deploy instead is the
 * operator's call.
 */
#include <stdio.h>
#include <stdlib.h>

#include "rules_private.h"

/* admission warnings are "rule-id: message", at most 120 bytes */
#define MESSAGE_MAX 96

/* The component the image is, or NULL. */
static const struct text_pair *find_component(const struct config *cfg,
					       const char *image)
{
	/* flags 0, as string_list_match(): '*' also matches '/' */
	return text_map_match(&cfg->obsolete_components, image);
}

static int check_container(struct rule_ctx *ctx, struct pod_spec *pod,
			   struct container *c, void *arg)
{
	const char *image = json_string_value(json_member(c->container,
							  "image"));
	const char *name = json_string_value(json_member(c->container,
							 "name"));
	const struct text_pair *component;
	char *at;
	int rc, len;

	(void)pod;
	(void)arg;
	component = find_component(ctx->cfg, image);
	if (!component)
		return 0;
	if (!(at = json_pointer_join(c->pointer, "image")))
		return -1;
	/* the longest message that fits: admission warnings are capped */
	len = snprintf(NULL, 0, "'%s' is obsolete; %s",
		       image, component->value);
	if (len >= 0 && len <= MESSAGE_MAX) {
		rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
				 "'%s' is obsolete; %s",
				 image, component->value);
		goto out;
	}
	len = snprintf(NULL, 0, "container '%s' is obsolete; %s",
		       name ? name : "", component->value);
	if (name && len >= 0 && len <= MESSAGE_MAX)
		rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
				 "container '%s' is obsolete; %s",
				 name, component->value);
	else
		rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
				 "obsolete GPU component; %s",
				 component->value);
out:
	free(at);
	return rc;
}

static int check_pod(struct rule_ctx *ctx, struct pod_spec *pod, void *arg)
{
	return pod_for_each_container(ctx, pod, check_container, arg);
}

int rule_run_obsolete_gpu_component(struct rule_ctx *ctx)
{
	return rule_for_each_pod_spec(ctx, check_pod, NULL);
}
