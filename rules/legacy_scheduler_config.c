/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * legacy_scheduler_config.c - the scheduler configuration of the GPU
 * sharing forks.
 *
 * The Aliyun gpushare scheduler extender was wired into kube-scheduler with
 * a Policy file (--policy-config-file) or ConfigMap (--policy-configmap),
 * and later with a KubeSchedulerConfiguration on a beta version. Kubernetes
 * removed them one after the other:
 *   - the Policy API and its flags in 1.23
 *     (kubernetes.io/docs/reference/scheduling/policies);
 *   - kubescheduler.config.k8s.io/v1beta1 in 1.23 (kubernetes#104782),
 *     v1beta2 in 1.28 (kubernetes#117649), v1beta3 in 1.29
 *     (kubernetes#119994);
 * and kube-scheduler does not start with any of them. So:
 *   - a Policy document, and the Policy flags in a container's command or
 *     args (a kube-scheduler static pod), are errors: a Policy has no
 *     mechanical translation;
 *   - a KubeSchedulerConfiguration on a removed version moves to v1 when
 *     it uses only fields v1 keeps with the same meaning (connection,
 *     leader election, extenders...); otherwise the first field that
 *     stands in the way is reported, as an error;
 *   - an extender that manages a GPU-sharing resource (aliyun.com/gpu-mem)
 *     is reported: once gpu-sharing has migrated the pods, nothing asks
 *     for that resource and the extender is not needed.
 * A ConfigMap that holds such a file (policy.cfg of --policy-configmap, or
 * a configuration mounted into the scheduler) is read too, and reported:
 * its text is left to the operator.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

#define SCHEDULER_GROUP "kubescheduler.config.k8s.io/"
#define SCHEDULER_V1 SCHEDULER_GROUP "v1"

static const struct removed_version {
	const char *api_version;
	const char *removed_in;
} removed_versions[] = {
	{ SCHEDULER_GROUP "v1beta1", "1.23" },
	{ SCHEDULER_GROUP "v1beta2", "1.28" },
	{ SCHEDULER_GROUP "v1beta3", "1.29" },
};

#define N_REMOVED_VERSIONS (sizeof(removed_versions) / sizeof(removed_versions[0]))

/* The members of a Policy; a document of kind Policy holding none of them
 * is not taken for a scheduler Policy. */
static const char *const policy_fields[] = {
	"predicates", "priorities", "extenders",
	"hardPodAffinitySymmetricWeight", "alwaysCheckAllPredicates",
};

/* kube-scheduler flags removed with the Policy API in 1.23, longest first
 * where one starts another. */
static const char *const policy_flags[] = {
	"--policy-configmap-namespace", "--policy-config-file",
	"--policy-configmap", "--use-legacy-policy-config",
};

/* Top-level fields of a KubeSchedulerConfiguration that v1 keeps with the
 * same meaning (kubernetes.io/docs/reference/config-api/kube-scheduler-config.v1). */
static const char *const kept_fields[] = {
	"apiVersion", "kind", "parallelism", "leaderElection",
	"clientConnection", "enableProfiling", "enableContentionProfiling",
	"percentageOfNodesToScore", "podInitialBackoffSeconds",
	"podMaxBackoffSeconds", "extenders", "profiles",
};

static const char *const kept_extender_fields[] = {
	"urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "weight",
	"bindVerb", "enableHTTPS", "tlsConfig", "httpTimeout",
	"nodeCacheCapable", "managedResources", "ignorable",
};

/* A profile keeps only its name: plugin names, sets and weights changed
 * from one beta to the next. */
static const char *const kept_profile_fields[] = { "schedulerName" };

#define N_OF(array) (sizeof(array) / sizeof((array)[0]))

static int in_list(const char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

static const struct removed_version *removed_version(const char *api_version)
{
	for (size_t i = 0; api_version && i < N_REMOVED_VERSIONS; i++)
		if (strcmp(removed_versions[i].api_version, api_version) == 0)
			return &removed_versions[i];
	return NULL;
}

static int is_kind(json_t *doc, const char *kind)
{
	const char *k = json_string_value(json_member(doc, "kind"));

	return k && strcmp(k, kind) == 0;
}

/* 1 when `doc` is a kube-scheduler Policy (of the core "v1" group, or with
 * no apiVersion, as files often had). */
static int is_policy(json_t *doc)
{
	json_t *version = json_member(doc, "apiVersion");

	if (!is_kind(doc, "Policy"))
		return 0;
	if (version && (!json_is_string(version) ||
			strcmp(json_string_value(version), "v1") != 0))
		return 0;
	for (size_t i = 0; i < N_OF(policy_fields); i++)
		if (json_member(doc, policy_fields[i]))
			return 1;
	return 0;
}

/* 1 when `name` is a resource that gpu-sharing or legacy-gpu-resource
 * migrates away. */
static int is_sharing_resource(const struct config *cfg, const char *name)
{
	if (!name)
		return 0;
	for (size_t i = 0; i < cfg->n_memory_resources; i++)
		if (strcmp(cfg->memory_resources[i].name, name) == 0)
			return 1;
	return string_list_has(&cfg->count_resources, name) ||
	       string_list_has(&cfg->compute_resources, name) ||
	       string_list_has(&cfg->vendor_gpu_resources, name);
}

/*
 * Reports each extender of `doc` that manages a legacy sharing resource,
 * at its managedResources entry (or at `at_text` when the document is text
 * inside a ConfigMap).
 */
static int check_extenders(struct rule_ctx *ctx, json_t *doc,
			   const char *doc_pointer, const char *at_text)
{
	json_t *extenders = json_member(doc, "extenders"), *extender;
	size_t i;

	json_array_foreach(extenders, i, extender) {
		json_t *managed = json_member(extender, "managedResources");
		json_t *entry;
		size_t j;

		json_array_foreach(managed, j, entry) {
			const char *name = json_string_value(
				json_member(entry, "name"));
			char *at = NULL;
			int rc;

			if (!is_sharing_resource(ctx->cfg, name))
				continue;
			if (!at_text) {
				char index[80];

				snprintf(index, sizeof(index),
					 "/extenders/%zu/managedResources/%zu", i, j);
				at = malloc(strlen(doc_pointer) + strlen(index) + 1);
				if (!at)
					return -1;
				strcpy(at, doc_pointer);
				strcat(at, index);
			}
			rc = rule_report(ctx, SEVERITY_WARNING,
					 at ? at : at_text, 0,
					 "extender for '%.40s' is not needed once gpu-sharing has migrated the pods",
					 name);
			free(at);
			if (rc)
				return -1;
		}
	}
	return 0;
}

/*
 * The first field of an item of the list `list` of `doc` that is not among
 * `kept` (`n` names): sets *key to it and returns 1 with *at a new pointer
 * to it under `base` (NULL when out of memory); 0 when there is none.
 */
static int first_unkept_item_field(json_t *doc, const char *base,
				   const char *list, const char *const *kept,
				   size_t n, const char **key, char **at)
{
	const char *name;
	json_t *item, *value;
	size_t i;

	json_array_foreach(json_member(doc, list), i, item) {
		json_object_foreach(item, name, value) {
			char *list_at, *item_at;

			if (in_list(kept, n, name))
				continue;
			*key = name;
			list_at = json_pointer_join(base, list);
			item_at = list_at ? json_pointer_join_index(list_at, i) : NULL;
			*at = item_at ? json_pointer_join(item_at, name) : NULL;
			free(list_at);
			free(item_at);
			return 1;
		}
	}
	return 0;
}

/*
 * The first field of the configuration `doc` (at `base`) that v1 does not
 * keep: sets *key to it and returns 1 with *at a new pointer to it (NULL
 * when out of memory); 0 when there is none.
 */
static int first_unkept_field(json_t *doc, const char *base,
			      const char **key, char **at)
{
	const char *name;
	json_t *value;

	json_object_foreach(doc, name, value) {
		if (in_list(kept_fields, N_OF(kept_fields), name))
			continue;
		*key = name;
		*at = json_pointer_join(base, name);
		return 1;
	}
	return first_unkept_item_field(doc, base, "extenders",
				       kept_extender_fields,
				       N_OF(kept_extender_fields), key, at) ||
	       first_unkept_item_field(doc, base, "profiles",
				       kept_profile_fields,
				       N_OF(kept_profile_fields), key, at);
}

/* A KubeSchedulerConfiguration document of the object being checked. */
static int check_configuration(struct rule_ctx *ctx)
{
	json_t *doc = ctx->object;
	const struct removed_version *removed = removed_version(
		json_string_value(json_member(doc, "apiVersion")));
	char *at = NULL, *version_at;
	const char *short_version, *field;
	int rc = -1;

	if (!removed)
		return check_extenders(ctx, doc, ctx->object_pointer, NULL);
	short_version = removed->api_version + strlen(SCHEDULER_GROUP);
	if (!(version_at = json_pointer_join(ctx->object_pointer, "apiVersion")))
		return -1;
	if (first_unkept_field(doc, ctx->object_pointer, &field, &at)) {
		if (at)
			rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
					 "KubeSchedulerConfiguration %s (removed in %s): '%.28s' is not in v1 as such",
					 short_version, removed->removed_in,
					 field);
		goto out;
	}
	if (!rule_mutates(ctx)) {
		rc = rule_report(ctx, SEVERITY_WARNING, version_at, 0,
				 "KubeSchedulerConfiguration %s was removed in Kubernetes %s; use v1",
				 short_version, removed->removed_in);
	} else {
		rc = rule_report(ctx, SEVERITY_WARNING, version_at, 1,
				 "moved KubeSchedulerConfiguration from %s (removed in %s) to v1",
				 short_version, removed->removed_in);
		if (!rc)
			rc = rule_replace(ctx, version_at,
					  json_text(SCHEDULER_V1));
	}
	/* the move changes no extender's pointer */
	if (!rc)
		rc = check_extenders(ctx, ctx->object, ctx->object_pointer,
				     NULL);
out:
	free(at);
	free(version_at);
	return rc;
}

static int report_policy(struct rule_ctx *ctx, const char *at)
{
	return rule_report(ctx, SEVERITY_ERROR, at, 0,
			   "kube-scheduler Policy was removed in Kubernetes 1.23; write a KubeSchedulerConfiguration (v1)");
}

/* 1 when `text` names `kind` as its kind ("kind: Policy", "\"kind\": \"Policy\""). */
static int text_has_kind(const char *text, const char *kind)
{
	size_t len = strlen(kind);

	for (const char *p = strstr(text, "kind"); p; p = strstr(p + 1, "kind")) {
		const char *q = p + 4;

		if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;
		if (*q == '"')
			q++;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q++ != ':')
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '"' || *q == '\'')
			q++;
		if (strncmp(q, kind, len) == 0 &&
		    !isalnum((unsigned char)q[len]))
			return 1;
	}
	return 0;
}

/* One value of a ConfigMap's data: a scheduler file, as JSON or as text. */
static int check_config_text(struct rule_ctx *ctx, const char *key,
			     const char *text, const char *at)
{
	json_t *doc = json_loads(text, 0, NULL);
	int rc = 0;

	if (json_is_object(doc)) {
		const struct removed_version *removed = removed_version(
			json_string_value(json_member(doc, "apiVersion")));

		if (is_policy(doc))
			rc = report_policy(ctx, at);
		else if (is_kind(doc, "KubeSchedulerConfiguration") && removed)
			rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
					 "key '%.24s' holds a KubeSchedulerConfiguration %s, removed in %s; migrate it to v1",
					 key, removed->api_version +
					 strlen(SCHEDULER_GROUP),
					 removed->removed_in);
		if (!rc && (is_policy(doc) ||
			    is_kind(doc, "KubeSchedulerConfiguration")))
			rc = check_extenders(ctx, doc, NULL, at);
		json_decref(doc);
		return rc;
	}
	json_decref(doc);
	/* YAML text: told by its kind and what it holds */
	if (text_has_kind(text, "Policy")) {
		for (size_t i = 0; i < N_OF(policy_fields); i++)
			if (strstr(text, policy_fields[i]))
				return report_policy(ctx, at);
	}
	if (text_has_kind(text, "KubeSchedulerConfiguration")) {
		for (size_t i = 0; i < N_REMOVED_VERSIONS; i++) {
			const struct removed_version *removed = &removed_versions[i];

			if (!strstr(text, removed->api_version))
				continue;
			return rule_report(ctx, SEVERITY_ERROR, at, 0,
					   "key '%.24s' holds a KubeSchedulerConfiguration %s, removed in %s; migrate it to v1",
					   key, removed->api_version +
					   strlen(SCHEDULER_GROUP),
					   removed->removed_in);
		}
	}
	return 0;
}

static int check_config_map(struct rule_ctx *ctx)
{
	json_t *data = json_member(ctx->object, "data"), *value;
	char *p_data = json_pointer_join(ctx->object_pointer, "data");
	const char *key;
	int rc = 0;

	if (!p_data)
		return -1;
	json_object_foreach(data, key, value) {
		char *at;

		if (!json_is_string(value))
			continue;
		if (!(at = json_pointer_join(p_data, key))) {
			rc = -1;
			break;
		}
		rc = check_config_text(ctx, key, json_string_value(value), at);
		free(at);
		if (rc)
			break;
	}
	free(p_data);
	return rc;
}

/* The removed flags in one string of a command or args, each reported. */
static int check_word(struct rule_ctx *ctx, const char *text, const char *at)
{
	for (size_t f = 0; f < N_OF(policy_flags); f++) {
		const char *flag = policy_flags[f];
		size_t len = strlen(flag);

		for (const char *p = strstr(text, flag); p;
		     p = strstr(p + 1, flag)) {
			char before = p > text ? p[-1] : ' ';
			char after = p[len];

			/* a whole flag: "--flag", "--flag=x", inside sh -c */
			if (!(before == ' ' || before == '\t' || before == '"' ||
			      before == '\'' || before == '\n' || before == ';') ||
			    !(after == '\0' || after == '=' || after == ' ' ||
			      after == '\t' || after == '"' || after == '\'' ||
			      after == '\n' || after == ';'))
				continue;
			if (rule_report(ctx, SEVERITY_ERROR, at, 0,
					"kube-scheduler flag '%s' was removed in Kubernetes 1.23; use --config",
					flag))
				return -1;
			break;
		}
	}
	return 0;
}

static int check_container(struct rule_ctx *ctx, struct pod_spec *pod,
			   struct container *c, void *arg)
{
	static const char *const lists[] = { "command", "args" };

	(void)pod;
	(void)arg;
	for (size_t l = 0; l < N_OF(lists); l++) {
		json_t *words = json_member(c->container, lists[l]), *word;
		char *p_list;
		size_t i;

		if (!json_is_array(words))
			continue;
		if (!(p_list = json_pointer_join(c->pointer, lists[l])))
			return -1;
		json_array_foreach(words, i, word) {
			char *at;
			int rc;

			if (!json_is_string(word) ||
			    !strstr(json_string_value(word), "policy-config"))
				continue;
			if (!(at = json_pointer_join_index(p_list, i))) {
				free(p_list);
				return -1;
			}
			rc = check_word(ctx, json_string_value(word), at);
			free(at);
			if (rc) {
				free(p_list);
				return -1;
			}
		}
		free(p_list);
	}
	return 0;
}

static int check_pod(struct rule_ctx *ctx, struct pod_spec *pod, void *arg)
{
	return pod_for_each_container(ctx, pod, check_container, arg);
}

int rule_run_legacy_scheduler_config(struct rule_ctx *ctx)
{
	json_t *doc = ctx->object;
	int rc;

	if (is_policy(doc)) {
		char *at = json_pointer_join(ctx->object_pointer, "kind");

		rc = at ? report_policy(ctx, at) : -1;
		free(at);
		if (!rc)
			rc = check_extenders(ctx, doc, ctx->object_pointer, NULL);
		return rc;
	}
	if (is_kind(doc, "KubeSchedulerConfiguration"))
		return check_configuration(ctx);
	if (is_kind(doc, "ConfigMap"))
		return check_config_map(ctx);
	return rule_for_each_pod_spec(ctx, check_pod, NULL);
}
