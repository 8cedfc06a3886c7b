/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * critical_pod_annotation.c - the pod annotation
 * scheduler.alpha.kubernetes.io/critical-pod becomes a priorityClassName.
 *
 * The annotation marked the add-ons (device plugins, the gpushare
 * extender...) that the rescheduler had to make room for. Kubernetes 1.16
 * removed it in favour of pod priority (CHANGELOG-1.16, kubernetes#80342),
 * so such a pod is now an ordinary one, the first to go under pressure.
 * DaemonSet pods, node agents, get cfg->daemonset_priority_class
 * (system-node-critical); every other pod cfg->default_priority_class
 * (system-cluster-critical). A priorityClassName the pod already has is
 * kept. The tolerations that went with the annotation (CriticalAddonsOnly)
 * are left as they are: they still let the pod onto such nodes.
 */
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

#define CRITICAL_POD "scheduler.alpha.kubernetes.io/critical-pod"

/* 1 when the object's pods are DaemonSet pods: a DaemonSet, or a Pod that a
 * DaemonSet controls. */
static int is_daemonset_pod(json_t *object)
{
	const char *kind = json_string_value(json_member(object, "kind"));
	json_t *owners, *owner;
	size_t i;

	if (!kind)
		return 0;
	if (strcmp(kind, "DaemonSet") == 0)
		return 1;
	if (strcmp(kind, "Pod") != 0)
		return 0;
	owners = json_member(json_member(object, "metadata"),
			     "ownerReferences");
	json_array_foreach(owners, i, owner) {
		const char *owner_kind = json_string_value(
			json_member(owner, "kind"));

		if (json_is_true(json_member(owner, "controller")) &&
		    owner_kind && strcmp(owner_kind, "DaemonSet") == 0)
			return 1;
	}
	return 0;
}

/* The pod's priorityClassName, or NULL when it has none worth keeping. */
static const char *priority_class(json_t *spec)
{
	const char *name = json_string_value(json_member(spec,
							 "priorityClassName"));

	return name && *name ? name : NULL;
}

static int check_pod(struct rule_ctx *ctx, struct pod_spec *pod, void *arg)
{
	const struct config *cfg = ctx->cfg;
	json_t *annotations = json_member(pod->metadata, "annotations");
	const char *kept = priority_class(pod->place);
	const char *wanted = is_daemonset_pod(ctx->object)
		? cfg->daemonset_priority_class
		: cfg->default_priority_class;
	char *p_annotations, *at = NULL, *p_class = NULL;
	int rc = -1;

	(void)arg;
	if (!json_member(annotations, CRITICAL_POD) ||
	    !pod->metadata_pointer)
		return 0;
	if (!(p_annotations = json_pointer_join(pod->metadata_pointer,
						"annotations")) ||
	    !(at = json_pointer_join(p_annotations, CRITICAL_POD)) ||
	    !(p_class = json_pointer_join(pod->place_pointer ?
					  pod->place_pointer : pod->pointer,
					  "priorityClassName")))
		goto out;

	/* a pod without placement (a Tekton task spec) is only told */
	if (!rule_mutates(ctx) || !pod->place_pointer) {
		rc = kept
			? rule_report(ctx, SEVERITY_WARNING, at, 0,
				      "critical-pod annotation is ignored since Kubernetes 1.16; priorityClassName '%s' replaces it",
				      kept)
			: rule_report(ctx, SEVERITY_WARNING, at, 0,
				      "critical-pod annotation is ignored since Kubernetes 1.16; use priorityClassName '%s'",
				      wanted);
		goto out;
	}
	if (kept) {
		rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
				 "removed the critical-pod annotation; priorityClassName '%s' is kept",
				 kept);
	} else {
		rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
				 "replaced the critical-pod annotation with priorityClassName '%s'",
				 wanted);
		/* an empty or null priorityClassName is replaced in place */
		if (!rc && (rc = pod_place_make(ctx, pod)) == 1)
			rc = -1;
		if (!rc)
			rc = json_member(pod->place, "priorityClassName")
				? rule_replace(ctx, p_class, json_text(wanted))
				: rule_add(ctx, p_class, json_text(wanted));
		/*
		 * The integer priority is the API server's to compute from
		 * the class: its Priority admission plugin set it before the
		 * webhook was called, runs again after the webhook changed
		 * the pod, and refuses a value that does not match the class.
		 */
		if (!rc && json_member(pod->place, "priority")) {
			char *p_priority = json_pointer_join(pod->place_pointer,
							     "priority");

			rc = p_priority ? rule_remove(ctx, p_priority) : -1;
			free(p_priority);
		}
	}
	if (!rc)
		rc = rule_remove_key_pruned(ctx, p_annotations, CRITICAL_POD);
out:
	free(p_annotations);
	free(at);
	free(p_class);
	return rc;
}

int rule_run_critical_pod_annotation(struct rule_ctx *ctx)
{
	return rule_for_each_pod_spec(ctx, check_pod, NULL);
}
