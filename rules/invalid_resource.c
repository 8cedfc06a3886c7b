/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * invalid_resource.c - container resources that no API server accepts or
 * that nothing can serve, left behind by the legacy stacks.
 *
 * DLWorkspace's group allocator asked for
 * "alpha.kubernetes.io/group-resource/..." names: more than one '/' makes
 * no qualified name, and the API server refuses the pod. A name in the
 * kubernetes.io domain that is not a native resource passes validation,
 * but no device plugin may register one, so the pod stays Pending. An
 * extended resource requested without a limit is refused ("Limit must be
 * set for non overcommitable resources"). None has a mechanical
 * translation: each is reported. The names the other rules migrate (the
 * legacy GPU resource, the vendors' and the sharing resources) are theirs
 * to report. CLI only: the API server says it itself.
 */
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

/* 1 when the name's prefix is kubernetes.io or a subdomain of it. */
static int in_kubernetes_domain(const char *name, size_t prefix_len)
{
	static const char domain[] = "kubernetes.io";
	size_t len = sizeof(domain) - 1;

	if (prefix_len < len ||
	    memcmp(name + prefix_len - len, domain, len) != 0)
		return 0;
	return prefix_len == len || name[prefix_len - len - 1] == '.';
}

/* Reports `name` of the section `section` ("limits" or "requests") when
 * no API server takes it or nothing serves it. */
static int check_name(struct rule_ctx *ctx, struct container *c,
		      const char *section, const char *name, json_t *value,
		      void *arg)
{
	json_t *limits = json_member(json_member(c->container, c->resources),
				     "limits");
	const char *slash = strchr(name, '/');
	char *at;
	int rc = 0, kind;

	(void)value;
	(void)arg;
	if (!slash || resource_is_migrated(ctx->cfg, name))
		return 0;
	if (strchr(slash + 1, '/'))
		kind = 1;
	else if (in_kubernetes_domain(name, (size_t)(slash - name)))
		kind = 2;
	else if (strcmp(section, "requests") == 0 &&
		 !json_member(limits, name))
		kind = 3;
	else
		return 0;
	if (!(at = container_resource_pointer_new(c, section, name)))
		return -1;
	if (kind == 1)
		rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
				 "'%.60s' has more than one '/': no API server accepts the name",
				 name);
	else if (kind == 2)
		rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
				 "'%.60s' is in the kubernetes.io domain: no device plugin can serve it",
				 name);
	else
		rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
				 "extended resource '%.60s' is requested without a limit: the API server refuses it",
				 name);
	free(at);
	return rc;
}

static int check_container(struct rule_ctx *ctx, struct pod_spec *pod,
			   struct container *c, void *arg)
{
	(void)pod;
	return container_for_each_resource(ctx, c, check_name, arg) ? -1 : 0;
}

static int check_pod(struct rule_ctx *ctx, struct pod_spec *pod, void *arg)
{
	return pod_for_each_container(ctx, pod, check_container, arg);
}

int rule_run_invalid_resource(struct rule_ctx *ctx)
{
	return rule_for_each_pod_spec(ctx, check_pod, NULL);
}
