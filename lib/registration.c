/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * registration.c - the MutatingWebhookConfiguration of the webhook, its
 * hash and the service paths it names.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registration.h"

static const char *const entry_webhook_names[RULES_ENTRY_COUNT] = {
	"legacy.gpumend.io", "advisory.gpumend.io"
};

/* Appends `s` to the array `list` (split at commas); -1 when out of memory. */
static int versions_add(json_t *list, const char *versions)
{
	while (*versions) {
		size_t len = strcspn(versions, ",");

		if (json_array_append_new(list, json_stringn(versions, len)))
			return -1;
		versions += len + (versions[len] == ',');
	}
	return 0;
}

/*
 * The registration's rules: one per group, versions and scope, the config's
 * custom resources after the built-in rows.
 */
static json_t *webhook_rules_new(const struct config *cfg)
{
	json_t *rules = json_array(), *rule = NULL, *resources = NULL;
	const struct pod_shape *shapes;
	size_t n;

	shapes = rules_pod_shapes(&n);
	for (size_t i = 0; rules && i < n; i++) {
		if (!rule || strcmp(shapes[i - 1].group, shapes[i].group) ||
		    strcmp(shapes[i - 1].versions, shapes[i].versions) ||
		    shapes[i - 1].cluster != shapes[i].cluster) {
			json_t *versions = json_array();

			resources = json_array();
			rule = json_pack("{s:[s],s:o*,s:[ss],s:o*,s:s}",
					 "apiGroups", shapes[i].group,
					 "apiVersions", versions,
					 "operations", "CREATE", "UPDATE",
					 "resources", resources,
					 "scope", shapes[i].cluster ?
					 "Cluster" : "Namespaced");
			if (!rule || versions_add(versions, shapes[i].versions) ||
			    json_array_append_new(rules, rule))
				goto out_free;
		}
		if (json_array_append_new(resources,
					  json_string(shapes[i].resource)))
			goto out_free;
	}
	for (size_t i = 0; rules && i < cfg->n_custom_resources; i++) {
		const struct custom_resource *cr = &cfg->custom_resources[i];

		resources = json_array();
		rule = json_pack("{s:[s],s:[s],s:[ss],s:o*,s:s}",
				 "apiGroups", cr->group, "apiVersions", "*",
				 "operations", "CREATE", "UPDATE",
				 "resources", resources, "scope", "Namespaced");
		if (!rule || json_array_append_new(rules, rule))
			goto out_free;
		for (size_t r = 0; r < cr->resources.n; r++)
			if (json_array_append_new(resources,
					json_string(cr->resources.items[r])))
				goto out_free;
	}
	return rules;
out_free:
	json_decref(rules);
	return NULL;
}

/* FNV-1a, 64 bits: a digest to notice drift, not a defence. */
static uint64_t fnv1a(const char *text)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *text; text++) {
		h ^= (unsigned char)*text;
		h *= 0x100000001b3ULL;
	}
	return h;
}

int registration_hash(const struct config *cfg,
		      char out[REGISTRATION_HASH_LEN + 1])
{
	json_t *covered = json_pack("{s:o*,s:o*,s:o*}",
				    "rules", webhook_rules_new(cfg),
				    "legacy", rules_conditions_new(cfg,
						RULES_ENTRY_LEGACY),
				    "advisory", rules_conditions_new(cfg,
						RULES_ENTRY_ADVISORY));
	char *text;

	if (!covered || json_object_size(covered) != 3) {
		json_decref(covered);
		return -1;
	}
	text = json_text_new(covered, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(covered);
	if (!text)
		return -1;
	snprintf(out, REGISTRATION_HASH_LEN + 1, "%016llx",
		 (unsigned long long)fnv1a(text));
	free(text);
	return 0;
}

/* One entry of the registration. */
static json_t *webhook_new(const struct config *cfg,
			   const struct registration_options *opts,
			   const char *name, const char *path, int fail,
			   json_t *conditions_new)
{
	json_t *webhook = json_pack(
		"{s:s,s:{s:{s:s,s:s,s:s,s:i}},s:o*,s:s,"
		"s:{s:[{s:s,s:s,s:[ss]},{s:s,s:s,s:[s]}]}}",
		"name", name,
		"clientConfig", "service", "name", opts->service,
		"namespace", opts->namespace_name, "path", path, "port", 443,
		"rules", webhook_rules_new(cfg),
		"matchPolicy", "Equivalent",
		"namespaceSelector", "matchExpressions",
		"key", "kubernetes.io/metadata.name", "operator", "NotIn",
		"values", "kube-system", opts->namespace_name,
		"key", "gpumend.io/webhook", "operator", "NotIn",
		"values", "disabled");

	if (!webhook || !json_member(webhook, "rules"))
		goto out_free;
	if (conditions_new &&
	    json_object_set_new(webhook, "matchConditions", conditions_new)) {
		conditions_new = NULL;
		goto out_free;
	}
	conditions_new = NULL;
	if (json_object_set_new(webhook, "sideEffects", json_string("None")) ||
	    json_object_set_new(webhook, "reinvocationPolicy",
				json_string("IfNeeded")) ||
	    json_object_set_new(webhook, "admissionReviewVersions",
				json_pack("[ss]", "v1", "v1beta1")) ||
	    json_object_set_new(webhook, "timeoutSeconds",
				json_integer(cfg->timeout_seconds)) ||
	    json_object_set_new(webhook, "failurePolicy",
				json_string(fail ? "Fail" : "Ignore")))
		goto out_free;
	return webhook;
out_free:
	json_decref(conditions_new);
	json_decref(webhook);
	return NULL;
}

json_t *registration_new(const struct config *cfg,
			 const struct registration_options *opts)
{
	json_t *webhooks = json_array();
	json_t *doc = json_pack("{s:s,s:s,s:{s:s,s:{s:s}},s:o*}",
				"apiVersion", "admissionregistration.k8s.io/v1",
				"kind", "MutatingWebhookConfiguration",
				"metadata", "name", "gpumend", "labels",
				"app.kubernetes.io/name", "gpumend-webhook",
				"webhooks", webhooks);
	char hash[REGISTRATION_HASH_LEN + 1], path[64];

	if (!doc || !webhooks)
		goto out_free;
	if (!opts->conditions) {
		if (json_array_append_new(webhooks,
				webhook_new(cfg, opts, "mutate.gpumend.io",
					    "/mutate/advisory", 0, NULL)))
			goto out_free;
		return doc;
	}
	if (registration_hash(cfg, hash))
		goto out_free;
	for (int e = 0; e < RULES_ENTRY_COUNT; e++) {
		json_t *conditions = rules_conditions_new(cfg,
							  (enum rules_entry)e);

		if (!conditions)
			goto out_free;
		snprintf(path, sizeof(path), "/mutate/%s/%s",
			 rules_entry_name((enum rules_entry)e), hash);
		if (json_array_append_new(webhooks,
				webhook_new(cfg, opts, entry_webhook_names[e],
					    path,
					    e == RULES_ENTRY_LEGACY &&
					    opts->legacy_fail, conditions)))
			goto out_free;
	}
	return doc;
out_free:
	json_decref(doc);
	return NULL;
}

int registration_path_parse(const char *url, enum registration_route *route,
			    char hash[REGISTRATION_HASH_LEN + 1])
{
	static const char prefix[] = "/mutate";
	const char *rest;
	size_t len;
	int entry;

	hash[0] = '\0';
	if (strncmp(url, prefix, sizeof(prefix) - 1) != 0)
		return -1;
	rest = url + sizeof(prefix) - 1;
	if (!*rest) {
		*route = REGISTRATION_PLAIN;
		return 0;
	}
	if (*rest++ != '/')
		return -1;
	len = strcspn(rest, "/");
	for (entry = 0; entry < RULES_ENTRY_COUNT; entry++) {
		const char *name = rules_entry_name((enum rules_entry)entry);

		if (strlen(name) == len && !strncmp(rest, name, len))
			break;
	}
	if (entry == RULES_ENTRY_COUNT)
		return -1;
	*route = entry == RULES_ENTRY_LEGACY ? REGISTRATION_LEGACY :
					       REGISTRATION_ADVISORY;
	rest += len;
	if (!*rest)
		return 0;
	rest++;
	len = strlen(rest);
	if (len != REGISTRATION_HASH_LEN ||
	    strspn(rest, "0123456789abcdef") != len)
		return -1;
	memcpy(hash, rest, len + 1);
	return 0;
}
