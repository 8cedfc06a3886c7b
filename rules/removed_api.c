/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * removed_api.c - objects and settings that a Kubernetes 1.30 API server or
 * control plane no longer takes, found next to legacy GPU workloads.
 *
 * From Kubernetes' deprecated API migration guide: API versions removed in
 * 1.16 to 1.29. Where the newer version has the same schema (RBAC,
 * PriorityClass, RuntimeClass, StorageClass, Lease, APIService, HPA
 * v2beta2), the apiVersion is rewritten; where it does not, the object is
 * reported with what replaces it. Training-operator CRD versions that no
 * operator serves are reported likewise. The `master` node role (kubeadm
 * stopped setting it in 1.24): a selector or required affinity on it is
 * reported; a toleration of it alone gets the toleration of its successor
 * `control-plane` beside it (today's charts tolerate both). kube-scheduler's
 * `--address` has done nothing since 1.23, when its insecure port 10251
 * went (kubernetes#96345), and was to be removed in 1.24. Offline only:
 * the API server refuses these objects before any webhook sees them.
 */
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

#define MASTER_ROLE "node-role.kubernetes.io/master"
#define CONTROL_PLANE_ROLE "node-role.kubernetes.io/control-plane"

/* A removed API version of a kind: `to` is the version it moves to with
 * nothing else changed, or NULL when it needs more than that (`what` says
 * what replaces it). */
struct removed_api {
	const char *api_version;
	const char *kind;           /* NULL: every kind of the version */
	const char *to;
	const char *what;
};

static const struct removed_api removed[] = {
	{ "rbac.authorization.k8s.io/v1beta1", NULL,
	  "rbac.authorization.k8s.io/v1", NULL },
	{ "rbac.authorization.k8s.io/v1alpha1", NULL,
	  "rbac.authorization.k8s.io/v1", NULL },
	{ "scheduling.k8s.io/v1beta1", "PriorityClass", "scheduling.k8s.io/v1",
	  NULL },
	{ "scheduling.k8s.io/v1alpha1", "PriorityClass", "scheduling.k8s.io/v1",
	  NULL },
	{ "node.k8s.io/v1beta1", "RuntimeClass", "node.k8s.io/v1", NULL },
	{ "storage.k8s.io/v1beta1", "StorageClass", "storage.k8s.io/v1", NULL },
	{ "coordination.k8s.io/v1beta1", "Lease", "coordination.k8s.io/v1",
	  NULL },
	{ "apiregistration.k8s.io/v1beta1", "APIService",
	  "apiregistration.k8s.io/v1", NULL },
	{ "autoscaling/v2beta2", "HorizontalPodAutoscaler", "autoscaling/v2",
	  NULL },
	{ "autoscaling/v2beta1", "HorizontalPodAutoscaler", NULL,
	  "autoscaling/v2: metrics are written differently" },
	{ "extensions/v1beta1", "Ingress", NULL,
	  "networking.k8s.io/v1: backends and pathType changed" },
	{ "networking.k8s.io/v1beta1", "Ingress", NULL,
	  "networking.k8s.io/v1: backends and pathType changed" },
	{ "extensions/v1beta1", "NetworkPolicy", "networking.k8s.io/v1", NULL },
	{ "extensions/v1beta1", "PodSecurityPolicy", NULL,
	  "Pod Security Admission: PodSecurityPolicy is gone" },
	{ "policy/v1beta1", "PodSecurityPolicy", NULL,
	  "Pod Security Admission: PodSecurityPolicy is gone" },
	{ "policy/v1beta1", "PodDisruptionBudget", NULL,
	  "policy/v1: an empty selector now selects every pod" },
	{ "apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", NULL,
	  "apiextensions.k8s.io/v1: a structural schema is required" },
	{ "admissionregistration.k8s.io/v1beta1", NULL, NULL,
	  "admissionregistration.k8s.io/v1: sideEffects and admissionReviewVersions are required" },
	{ "certificates.k8s.io/v1beta1", "CertificateSigningRequest", NULL,
	  "certificates.k8s.io/v1: signerName is required" },
	{ "discovery.k8s.io/v1beta1", "EndpointSlice", NULL,
	  "discovery.k8s.io/v1: topology became zone and hints" },
	{ "events.k8s.io/v1beta1", "Event", NULL,
	  "events.k8s.io/v1: some fields were renamed" },
	/* training-operator CRD versions no operator serves */
	{ "mlkube.io/v1beta1", NULL, NULL,
	  "kubeflow.org/v1 TFJob of the training operator" },
	{ "tensorflow.org/v1alpha1", NULL, NULL,
	  "kubeflow.org/v1 TFJob of the training operator" },
	{ "kubeflow.org/v1alpha1", "TFJob", NULL,
	  "kubeflow.org/v1 TFJob of the training operator" },
	{ "kubeflow.org/v1alpha2", "TFJob", NULL,
	  "kubeflow.org/v1 TFJob of the training operator" },
};

static const struct removed_api *find_removed(const char *api_version,
					      const char *kind)
{
	if (!api_version || !kind)
		return NULL;
	for (size_t i = 0; i < sizeof(removed) / sizeof(removed[0]); i++)
		if (strcmp(removed[i].api_version, api_version) == 0 &&
		    (!removed[i].kind || strcmp(removed[i].kind, kind) == 0))
			return &removed[i];
	return NULL;
}

static int check_api_version(struct rule_ctx *ctx)
{
	const char *api_version = json_string_value(json_member(ctx->object,
								"apiVersion"));
	const char *kind = json_string_value(json_member(ctx->object, "kind"));
	const struct removed_api *r = find_removed(api_version, kind);
	char *at;
	int rc;

	if (!r)
		return 0;
	if (!(at = json_pointer_join(ctx->object_pointer, "apiVersion")))
		return -1;
	if (!r->to)
		rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
				 "'%s' %s is no longer served; use %s",
				 api_version, kind, r->what);
	else if (!rule_mutates(ctx))
		rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
				 "'%s' %s is no longer served; use '%s'",
				 api_version, kind, r->to);
	else
		rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
				 "moved %s from '%s' to '%s'", kind, api_version,
				 r->to) ||
		     rule_replace(ctx, at, json_text(r->to)) ? -1 : 0;
	free(at);
	return rc;
}

/* Reports a required node affinity requirement on the master role. */
static int report_master_requirement(json_t *requirement, const char *pointer,
				     void *arg)
{
	struct rule_ctx *ctx = arg;
	char *at = json_pointer_join(pointer, "key");
	int rc;

	(void)requirement;
	if (!at)
		return -1;
	rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
			 "node label '%s' is no longer set; use '%s'",
			 MASTER_ROLE, CONTROL_PLANE_ROLE);
	free(at);
	return rc;
}

/* 1 when toleration `t` tolerates the taint key `key` (or every key). */
static int tolerates(json_t *t, const char *key)
{
	const char *k = json_string_value(json_member(t, "key"));
	const char *op = json_string_value(json_member(t, "operator"));

	if (!k || !*k)
		return op && strcmp(op, "Exists") == 0;
	return strcmp(k, key) == 0;
}

/* A toleration of the master role alone gets its successor's beside it. */
static int check_tolerations(struct rule_ctx *ctx, struct pod_spec *pod)
{
	json_t *tolerations = json_member(pod->place, "tolerations"), *t;
	json_t *master = NULL, *fresh;
	char *list, *at, *end;
	size_t i, index = 0;
	int rc;

	json_array_foreach(tolerations, i, t) {
		if (tolerates(t, CONTROL_PLANE_ROLE))
			return 0;
		if (!master &&
		    json_is_string(json_member(t, "key")) &&
		    strcmp(json_string_value(json_member(t, "key")),
			   MASTER_ROLE) == 0) {
			master = t;
			index = i;
		}
	}
	if (!master)
		return 0;
	if (!(list = json_pointer_join(pod->place_pointer, "tolerations")))
		return -1;
	at = json_pointer_join_index(list, index);
	end = json_pointer_join(list, "-");
	rc = -1;
	if (!at || !end)
		goto out;
	if (!rule_mutates(ctx)) {
		rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
				 "taint '%s' is no longer set; tolerate '%s' too",
				 MASTER_ROLE, CONTROL_PLANE_ROLE);
		goto out;
	}
	if (!(fresh = json_deep_copy(master)) ||
	    json_object_set_new(fresh, "key", json_text(CONTROL_PLANE_ROLE))) {
		json_decref(fresh);
		goto out;
	}
	rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
			 "added a toleration of '%s' beside '%s'",
			 CONTROL_PLANE_ROLE, MASTER_ROLE) ||
	     rule_add(ctx, end, fresh) ? -1 : 0;
out:
	free(list);
	free(at);
	free(end);
	return rc;
}

/* 1 when the string `s` is the flag `flag` ("--address", "--address=..."). */
static int is_flag(const char *s, const char *flag)
{
	size_t len = strlen(flag);

	return s && strncmp(s, flag, len) == 0 &&
	       (s[len] == '\0' || s[len] == '=');
}

/* kube-scheduler's --address, without effect since 1.23 (no insecure
 * port). */
static int check_container(struct rule_ctx *ctx, struct pod_spec *pod,
			   struct container *c, void *arg)
{
	static const char *const lists[] = { "command", "args" };
	const char *image = json_string_value(json_member(c->container,
							  "image"));
	json_t *command = json_member(c->container, "command");
	int scheduler;

	(void)pod;
	(void)arg;
	scheduler = (image && strstr(image, "kube-scheduler")) ||
		    (json_string_value(json_array_get(command, 0)) &&
		     strstr(json_string_value(json_array_get(command, 0)),
			    "kube-scheduler"));
	if (!scheduler)
		return 0;
	for (size_t l = 0; l < 2; l++) {
		json_t *list = json_member(c->container, lists[l]), *item;
		size_t i;

		json_array_foreach(list, i, item) {
			char *base, *at;
			int rc;

			if (!is_flag(json_string_value(item), "--address"))
				continue;
			base = json_pointer_join(c->pointer, lists[l]);
			at = base ? json_pointer_join_index(base, i) : NULL;
			free(base);
			if (!at)
				return -1;
			rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
					 "kube-scheduler's --address does nothing since 1.23 (no port 10251); use --bind-address, HTTPS on 10259");
			free(at);
			return rc;
		}
	}
	return 0;
}

static int check_pod(struct rule_ctx *ctx, struct pod_spec *pod, void *arg)
{
	json_t *selector = json_member(pod->place, "nodeSelector");
	json_t *affinity = json_member(pod->place, "affinity");
	json_t *required = json_member(json_member(affinity, "nodeAffinity"),
				       "requiredDuringSchedulingIgnoredDuringExecution");
	char *p = NULL, *at = NULL;
	int rc = 0;

	if (json_member(selector, MASTER_ROLE)) {
		p = json_pointer_join(pod->place_pointer, "nodeSelector");
		at = p ? json_pointer_join(p, MASTER_ROLE) : NULL;
		rc = at ? rule_report(ctx, SEVERITY_WARNING, at, 0,
				      "node label '%s' is no longer set; use '%s'",
				      MASTER_ROLE, CONTROL_PLANE_ROLE) : -1;
		free(p);
		free(at);
		p = at = NULL;
	}
	if (!rc && required) {
		/* the required terms only: a preference harms nothing */
		json_t *only = json_pack("{s:{s:O}}", "nodeAffinity",
					 "requiredDuringSchedulingIgnoredDuringExecution",
					 required);

		p = json_pointer_join(pod->place_pointer, "affinity");
		rc = only && p ? affinity_for_each_node_requirement(
					 only, p, MASTER_ROLE,
					 report_master_requirement, ctx) : -1;
		json_decref(only);
		free(p);
	}
	if (!rc)
		rc = check_tolerations(ctx, pod);
	if (!rc)
		rc = pod_for_each_container(ctx, pod, check_container, arg);
	return rc ? -1 : 0;
}

int rule_run_removed_api(struct rule_ctx *ctx)
{
	if (check_api_version(ctx) != 0)
		return -1;
	return rule_for_each_pod_spec(ctx, check_pod, NULL);
}
