/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.c - the configuration: built-in defaults, loading a config file's
 * parsed form on top of them, and printing it back.
 *
 * The file's schema is written down once, in the section tables below: each
 * field names its key and the member of struct config it sets. Loading
 * (config_apply), printing (config_to_json) and copying all walk the same
 * tables, so they cannot drift apart. The per-rule modes under "rules" are
 * the one section outside the tables, since their keys are the rule ids.
 */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

enum field_kind {
	FIELD_NAME,             /* char *: a label, annotation or resource name */
	FIELD_NAME_LIST,        /* struct string_list of such names */
	FIELD_TEXT_LIST,        /* struct string_list of non-empty strings */
	FIELD_STRATEGY,         /* enum sharing_strategy */
	FIELD_MEMORY_RESOURCES, /* memory_resources, n_memory_resources */
	FIELD_NODE_SELECTORS,   /* struct text_map: label keys to label values */
	FIELD_NAMESPACE_MODELS, /* namespace_models, n_namespace_models */
	FIELD_SIZE,             /* size_t, at least 1 */
	FIELD_BYTES,            /* size_t bytes, at least 1: an integer or a
				   quantity (64Mi, 8M) */
	FIELD_INT,              /* int, at least 1 */
	FIELD_TIMEOUT,          /* int seconds, 1 to 30 (a webhook's range) */
	FIELD_FAILURE_POLICY,   /* int failure_allow: "allow" or "deny" */
	FIELD_COMPONENTS,       /* struct text_map: image patterns to advice */
	FIELD_SUFFIX,           /* char *: text appended to a label value */
	FIELD_OBJECT_NAME,      /* char *: an object name (DNS subdomain) */
	FIELD_CUSTOM_RESOURCES, /* custom_resources, n_custom_resources */
	FIELD_BOOL,             /* int: true 1, false 0 */
};

struct config_field {
	const char *key;
	enum field_kind kind;
	size_t offset;          /* of the member; unused for the three maps */
};

struct config_section {
	const char *key;
	const struct config_field *fields;
};

#define FIELD(key, kind, member) { key, kind, offsetof(struct config, member) }

static const struct config_field resources_fields[] = {
	FIELD("legacyGPU", FIELD_NAME, legacy_gpu_resource),
	FIELD("gpu", FIELD_NAME, gpu_resource),
	FIELD("sharedGPU", FIELD_NAME, shared_gpu_resource),
	FIELD("gpuMemory", FIELD_NAME, gpu_memory_resource),
	FIELD("vendorGPUs", FIELD_NAME_LIST, vendor_gpu_resources),
	{ NULL, 0, 0 }
};

static const struct config_field labels_fields[] = {
	FIELD("legacyGPUName", FIELD_NAME, legacy_gpu_name_label),
	FIELD("gpuProduct", FIELD_NAME, gpu_product_label),
	FIELD("sharingStrategy", FIELD_NAME, sharing_strategy_label),
	FIELD("gpuPresent", FIELD_NAME, gpu_present_label),
	FIELD("sharedProductSuffix", FIELD_SUFFIX, shared_product_suffix),
	{ NULL, 0, 0 }
};

static const struct config_field sharing_fields[] = {
	FIELD("strategy", FIELD_STRATEGY, strategy),
	FIELD("memoryResources", FIELD_MEMORY_RESOURCES, memory_resources),
	FIELD("countResources", FIELD_NAME_LIST, count_resources),
	FIELD("computeResources", FIELD_NAME_LIST, compute_resources),
	FIELD("nodeSelectors", FIELD_NODE_SELECTORS, share_selectors),
	FIELD("schedulerNames", FIELD_TEXT_LIST, share_schedulers),
	FIELD("staleAnnotationPrefixes", FIELD_TEXT_LIST,
	      stale_annotation_prefixes),
	FIELD("label", FIELD_NAME, sharing_label),
	FIELD("memoryAnnotation", FIELD_NAME, memory_request_annotation),
	FIELD("maxGPUMemoryGiB", FIELD_INT, max_gpu_memory_gib),
	{ NULL, 0, 0 }
};

static const struct config_field host_paths_fields[] = {
	FIELD("obsolete", FIELD_TEXT_LIST, obsolete_host_paths),
	FIELD("ambiguous", FIELD_TEXT_LIST, ambiguous_host_paths),
	FIELD("ambiguousMountPaths", FIELD_TEXT_LIST, ambiguous_mount_paths),
	FIELD("vendorDriverDirs", FIELD_TEXT_LIST, vendor_driver_dirs),
	{ NULL, 0, 0 }
};

static const struct config_field visibility_fields[] = {
	FIELD("images", FIELD_TEXT_LIST, gpu_images),
	FIELD("stackImages", FIELD_TEXT_LIST, stack_images),
	{ NULL, 0, 0 }
};

static const struct config_field components_fields[] = {
	FIELD("obsolete", FIELD_COMPONENTS, obsolete_components),
	{ NULL, 0, 0 }
};

static const struct config_field priority_fields[] = {
	FIELD("daemonSetClass", FIELD_OBJECT_NAME, daemonset_priority_class),
	FIELD("defaultClass", FIELD_OBJECT_NAME, default_priority_class),
	{ NULL, 0, 0 }
};

static const struct config_field models_fields[] = {
	FIELD("annotation", FIELD_NAME, models_annotation),
	FIELD("namespaces", FIELD_NAMESPACE_MODELS, namespace_models),
	{ NULL, 0, 0 }
};

static const struct config_field dra_fields[] = {
	FIELD("deviceClassName", FIELD_OBJECT_NAME, dra_device_class),
	FIELD("consumableCapacity", FIELD_BOOL, dra_consumable_capacity),
	{ NULL, 0, 0 }
};

static const struct config_field annotations_fields[] = {
	FIELD("skip", FIELD_NAME, skip_annotation),
	FIELD("skipRules", FIELD_NAME, skip_rules_annotation),
	FIELD("mutations", FIELD_NAME, mutations_annotation),
	FIELD("denyOptOutNamespaces", FIELD_TEXT_LIST, deny_opt_out_namespaces),
	{ NULL, 0, 0 }
};

static const struct config_field limits_fields[] = {
	FIELD("maxDocumentBytes", FIELD_BYTES, max_document_bytes),
	FIELD("maxDepth", FIELD_INT, max_depth),
	FIELD("maxAliasNodes", FIELD_SIZE, max_alias_nodes),
	FIELD("maxValues", FIELD_SIZE, max_values),
	FIELD("maxReviewSteps", FIELD_SIZE, max_review_steps),
	{ NULL, 0, 0 }
};

static const struct config_field webhook_fields[] = {
	FIELD("failurePolicy", FIELD_FAILURE_POLICY, failure_allow),
	FIELD("timeoutSeconds", FIELD_TIMEOUT, timeout_seconds),
	FIELD("customResources", FIELD_CUSTOM_RESOURCES, custom_resources),
	{ NULL, 0, 0 }
};

/* In file order, after "target" and "rules". */
static const struct config_section config_sections[] = {
	{ "resources", resources_fields },
	{ "labels", labels_fields },
	{ "sharing", sharing_fields },
	{ "hostPaths", host_paths_fields },
	{ "visibility", visibility_fields },
	{ "components", components_fields },
	{ "priority", priority_fields },
	{ "models", models_fields },
	{ "dra", dra_fields },
	{ "annotations", annotations_fields },
	{ "limits", limits_fields },
	{ "webhook", webhook_fields },
	{ NULL, NULL }
};

#define MEMBER(cfg, field, type) \
	((type *)(void *)((char *)(cfg) + (field)->offset))
#define CONST_MEMBER(cfg, field, type) \
	((const type *)(const void *)((const char *)(cfg) + (field)->offset))

/* ------------------------------------------------------------------ */
/* Freeing and copying                                                 */

/* Fills `list` with copies of the NULL-terminated `items`. */
static int string_list_set(struct string_list *list, const char *const *items)
{
	size_t n = 0;

	while (items[n])
		n++;
	string_list_clear(list);
	list->items = calloc(n ? n : 1, sizeof(char *));
	if (!list->items)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!(list->items[i] = strdup(items[i])))
			return -1;
		list->n++;
	}
	return 0;
}

/* Makes `dst` (empty) a copy of `src`. On failure `dst` holds a part of
 * it, which string_list_clear() releases. */
static int string_list_copy(struct string_list *dst,
			    const struct string_list *src)
{
	dst->items = calloc(src->n ? src->n : 1, sizeof(char *));
	if (!dst->items)
		return -1;
	for (size_t i = 0; i < src->n; i++) {
		if (!(dst->items[i] = strdup(src->items[i])))
			return -1;
		dst->n++;
	}
	return 0;
}

/*
 * The byte pairs (pattern_pairs()) of the n patterns at `patterns`, one
 * every `stride` bytes; NULL when out of memory.
 */
static uint64_t *pairs_new(char *const *patterns, size_t stride, size_t n)
{
	uint64_t *pairs = calloc(n + 1, sizeof(*pairs));

	for (size_t i = 0; pairs && i < n; i++)
		pairs[i] = pattern_pairs(*(char *const *)((const char *)patterns +
							  i * stride));
	return pairs;
}

/*
 * Gives the pattern lists of `cfg` their byte pairs (string_list.pairs), as
 * they stand when the config is made: they are not changed after. -1 when
 * out of memory.
 */
static int patterns_prepare(struct config *cfg)
{
	struct string_list *lists[] = {
		&cfg->stack_images, &cfg->gpu_images, &cfg->obsolete_host_paths,
		&cfg->ambiguous_host_paths, &cfg->ambiguous_mount_paths,
		&cfg->vendor_driver_dirs,
	};
	struct text_map *map = &cfg->obsolete_components;

	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
		free(lists[l]->pairs);
		if (!(lists[l]->pairs = pairs_new(lists[l]->items,
						  sizeof(char *),
						  lists[l]->n)))
			return -1;
	}
	free(map->pairs);
	map->pairs = pairs_new(map->n ? &map->items[0].key : NULL,
			       sizeof(*map->items), map->n);
	return map->pairs ? 0 : -1;
}

static void memory_resources_free(struct memory_resource *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(items[i].name);
	free(items);
}

/* Frees what `map` holds and leaves it empty. */
static void text_map_free(struct text_map *map)
{
	for (size_t i = 0; i < map->n; i++) {
		free(map->items[i].key);
		free(map->items[i].value);
	}
	free(map->items);
	free(map->pairs);
	map->items = NULL;
	map->pairs = NULL;
	map->n = 0;
}

/*
 * Adds a copy of `key` and `value` to `map`, whose items have room for it.
 * On failure the map holds what it had, and maybe the key, which
 * text_map_free() releases.
 */
static int text_map_add(struct text_map *map, const char *key,
			const char *value)
{
	struct text_pair *p = &map->items[map->n];

	if (!(p->key = strdup(key)))
		return -1;
	map->n++;
	return (p->value = strdup(value)) ? 0 : -1;
}

/* Makes `dst` (empty) a copy of `src`; on failure `dst` holds a part of
 * it, which text_map_free() releases. */
static int text_map_copy(struct text_map *dst, const struct text_map *src)
{
	dst->items = calloc(src->n + 1, sizeof(*dst->items));
	if (!dst->items)
		return -1;
	for (size_t i = 0; i < src->n; i++)
		if (text_map_add(dst, src->items[i].key, src->items[i].value))
			return -1;
	return 0;
}

static void namespace_models_free(struct namespace_models *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(items[i].namespace_name);
		string_list_clear(&items[i].models);
	}
	free(items);
}

static void custom_resources_free(struct custom_resource *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(items[i].group);
		string_list_clear(&items[i].resources);
		string_list_clear(&items[i].pod_specs);
	}
	free(items);
}

void config_free(struct config *cfg)
{
	if (!cfg)
		return;
	free(cfg->legacy_gpu_resource);
	free(cfg->gpu_resource);
	free(cfg->shared_gpu_resource);
	free(cfg->gpu_memory_resource);
	string_list_clear(&cfg->vendor_gpu_resources);
	free(cfg->legacy_gpu_name_label);
	free(cfg->gpu_product_label);
	free(cfg->sharing_strategy_label);
	free(cfg->gpu_present_label);
	free(cfg->shared_product_suffix);
	memory_resources_free(cfg->memory_resources, cfg->n_memory_resources);
	string_list_clear(&cfg->count_resources);
	string_list_clear(&cfg->compute_resources);
	text_map_free(&cfg->share_selectors);
	string_list_clear(&cfg->share_schedulers);
	string_list_clear(&cfg->stale_annotation_prefixes);
	free(cfg->sharing_label);
	free(cfg->memory_request_annotation);
	string_list_clear(&cfg->obsolete_host_paths);
	string_list_clear(&cfg->ambiguous_host_paths);
	string_list_clear(&cfg->ambiguous_mount_paths);
	string_list_clear(&cfg->vendor_driver_dirs);
	string_list_clear(&cfg->gpu_images);
	string_list_clear(&cfg->stack_images);
	text_map_free(&cfg->obsolete_components);
	free(cfg->daemonset_priority_class);
	free(cfg->default_priority_class);
	free(cfg->models_annotation);
	free(cfg->dra_device_class);
	namespace_models_free(cfg->namespace_models, cfg->n_namespace_models);
	free(cfg->skip_annotation);
	free(cfg->skip_rules_annotation);
	free(cfg->mutations_annotation);
	string_list_clear(&cfg->deny_opt_out_namespaces);
	custom_resources_free(cfg->custom_resources, cfg->n_custom_resources);
	free(cfg);
}

/*
 * Copies one field of `src` into `dst`, a fresh config being filled. On
 * failure `dst` holds what was copied so far, which config_free() releases.
 */
static int field_copy(struct config *dst, const struct config *src,
		      const struct config_field *f)
{
	switch (f->kind) {
	case FIELD_NAME:
	case FIELD_SUFFIX:
	case FIELD_OBJECT_NAME: {
		const char *s = *CONST_MEMBER(src, f, char *);

		if (s && !(*MEMBER(dst, f, char *) = strdup(s)))
			return -1;
		return 0;
	}
	case FIELD_NAME_LIST:
	case FIELD_TEXT_LIST:
		return string_list_copy(MEMBER(dst, f, struct string_list),
					CONST_MEMBER(src, f, struct string_list));
	case FIELD_STRATEGY:
		dst->strategy = src->strategy;
		return 0;
	case FIELD_MEMORY_RESOURCES:
		dst->memory_resources = calloc(src->n_memory_resources + 1,
					       sizeof(*dst->memory_resources));
		if (!dst->memory_resources)
			return -1;
		for (size_t i = 0; i < src->n_memory_resources; i++) {
			struct memory_resource *m = &dst->memory_resources[i];

			m->unit_mib = src->memory_resources[i].unit_mib;
			if (!(m->name = strdup(src->memory_resources[i].name)))
				return -1;
			dst->n_memory_resources++;
		}
		return 0;
	case FIELD_NODE_SELECTORS:
	case FIELD_COMPONENTS:
		return text_map_copy(MEMBER(dst, f, struct text_map),
				     CONST_MEMBER(src, f, struct text_map));
	case FIELD_NAMESPACE_MODELS:
		dst->namespace_models = calloc(src->n_namespace_models + 1,
					       sizeof(*dst->namespace_models));
		if (!dst->namespace_models)
			return -1;
		for (size_t i = 0; i < src->n_namespace_models; i++) {
			const struct namespace_models *from =
				&src->namespace_models[i];
			struct namespace_models *to = &dst->namespace_models[i];

			if (!(to->namespace_name = strdup(from->namespace_name)))
				return -1;
			dst->n_namespace_models++;
			if (string_list_copy(&to->models, &from->models))
				return -1;
		}
		return 0;
	case FIELD_CUSTOM_RESOURCES:
		dst->custom_resources = calloc(src->n_custom_resources + 1,
					       sizeof(*dst->custom_resources));
		if (!dst->custom_resources)
			return -1;
		for (size_t i = 0; i < src->n_custom_resources; i++) {
			const struct custom_resource *from =
				&src->custom_resources[i];
			struct custom_resource *to = &dst->custom_resources[i];

			if (!(to->group = strdup(from->group)))
				return -1;
			dst->n_custom_resources++;
			if (string_list_copy(&to->resources, &from->resources) ||
			    string_list_copy(&to->pod_specs, &from->pod_specs))
				return -1;
		}
		return 0;
	case FIELD_SIZE:
	case FIELD_BYTES:
		*MEMBER(dst, f, size_t) = *CONST_MEMBER(src, f, size_t);
		return 0;
	case FIELD_INT:
	case FIELD_TIMEOUT:
	case FIELD_FAILURE_POLICY:
	case FIELD_BOOL:
		*MEMBER(dst, f, int) = *CONST_MEMBER(src, f, int);
		return 0;
	}
	return -1;
}

/* Returns a new deep copy of `src`, or NULL when out of memory. */
static struct config *config_dup(const struct config *src)
{
	struct config *cfg = calloc(1, sizeof(*cfg));

	if (!cfg)
		return NULL;
	memcpy(cfg->mode, src->mode, sizeof(cfg->mode));
	cfg->target = src->target;
	for (const struct config_section *s = config_sections; s->key; s++)
		for (const struct config_field *f = s->fields; f->key; f++)
			if (field_copy(cfg, src, f))
				goto out_free;
	return cfg;
out_free:
	config_free(cfg);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Defaults                                                            */

static const char *const default_obsolete_host_paths[] = {
	"/usr/lib/nvidia-[0-9]*",
	"/usr/local/nvidia",
	"/usr/local/nvidia/*",
	"/var/lib/nvidia-docker/volumes/nvidia_driver/*",
	"/usr/lib64/nvidia",
	"/usr/lib64/nvidia/*",
	"/opt/nvidia-driver",
	"/opt/nvidia-driver/*",
	"*/libcuda.so*",
	"*/libnvidia-*.so*",
	NULL
};

static const char *const default_vendor_driver_dirs[] = {
	"/home/kubernetes/bin/nvidia", "/home/kubernetes/bin/nvidia/*", NULL
};

static const char *const default_ambiguous_host_paths[] = {
	"/usr/bin", "/bin", "/usr/lib", "/usr/lib64", "/usr/lib/x86_64-linux-gnu",
	"*", NULL
};

static const char *const default_ambiguous_mount_paths[] = {
	"/usr/local/nvidia", "/usr/local/nvidia/*", NULL
};

static const char *const default_gpu_images[] = {
	"nvidia/cuda", "nvidia/cuda:*", "*/nvidia/cuda", "*/nvidia/cuda:*",
	"nvcr.io/*", "*:*-gpu", "*:*-gpu-*", NULL
};

static const char *const default_stack_images[] = {
	"*nvidia/k8s-device-plugin*", "*nvidia/gpu-feature-discovery*",
	"*/dcgm-exporter*", "*nvidia/k8s/container-toolkit*",
	"*nvidia/gpu-operator*", "nvcr.io/nvidia/cloud-native/*",
	"nvcr.io/nvidia/driver:*", "*nvidia/k8s-dra-driver*",
	"*nvidia/kubevirt-gpu-device-plugin*", "*nvidia-gpu-device-plugin*",
	"*nvidia-driver-installer*", "*cos-nvidia-installer*",
	"*cos-gpu-installer*", "*nvidia-partition-gpu*", "*projecthami/hami*",
	"*/dra-driver-nvidia/*", NULL
};

/* A default entry of a mapping of strings. */
struct default_pair {
	const char *key, *value;
};

static const struct default_pair default_share_selectors[] = {
	{ "gpushare", "true" },
	{ "gpu.cattle.io/type", "share" },
};

static const struct default_pair default_obsolete_components[] = {
	{ "nvidia/k8s-device-plugin:1.*",
	  "use NVIDIA device plugin v0.x or GPU Operator" },
	{ "*/nvidia/k8s-device-plugin:1.*",
	  "use NVIDIA device plugin v0.x or GPU Operator" },
	{ "*device-plugin-recover*",
	  "remove it with the gpushare device plugin" },
	{ "*k8s-gpushare-plugin*",
	  "use NVIDIA device plugin, time-slicing or MPS" },
	{ "*gpushare-device-plugin*",
	  "use NVIDIA device plugin, time-slicing or MPS" },
	{ "*gpushare-schd-extender*",
	  "use default scheduler: pods need no extender" },
	{ "*gpushare-scheduler-extender*",
	  "use default scheduler: pods need no extender" },
	{ "*schd-extender-deployer*",
	  "remove it: it installs the gpushare extender" },
	{ "*device-plugin-evict*",
	  "remove it with the gpushare device plugin" },
	{ "*scheduler-extender-configtool*",
	  "remove it: it edits kube-scheduler for gpushare" },
	{ "*nvidia-docker-plugin*", "use NVIDIA container toolkit" },
	{ "*volcano-device-plugin*",
	  "use NVIDIA device plugin, time-slicing or MPS" },
	{ "*tkestack/gpu-manager*", "use NVIDIA device plugin with MPS, or HAMi" },
	{ "*gputopology-schd-extender*",
	  "use default scheduler: pods need no extender" },
	{ "*gputopology-scheduler-extender*",
	  "use default scheduler: pods need no extender" },
};

#define N_OF(array) (sizeof(array) / sizeof((array)[0]))

/* Fills `map` (empty) with copies of `pairs`; on failure `map` holds a
 * part of them, which text_map_free() releases. */
static int text_map_set(struct text_map *map, const struct default_pair *pairs,
			size_t n)
{
	map->items = calloc(n + 1, sizeof(*map->items));
	if (!map->items)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (text_map_add(map, pairs[i].key, pairs[i].value))
			return -1;
	return 0;
}

static const char *const default_vendor_gpu_resources[] = {
	"aliyun.com/gpu", NULL
};

/*
 * nvidia.com/gpu.shared is what gpumend itself asked for before sharedGPU
 * became nvidia.com/gpu: it exists only where the device plugin renames
 * shared GPUs, so it is translated like the vendors' counts, unless it is
 * the configured sharedGPU (is_count_resource()).
 */
static const char *const default_count_resources[] = {
	"volcano.sh/gpu-number", "aliyun.com/gpu-count", "nvidia.com/gpu.shared",
	NULL
};

static const char *const default_compute_resources[] = {
	"tencent.com/vcuda-core", "aliyun.com/gpu-core.percentage", NULL
};

static const char *const default_share_schedulers[] = {
	"rancher-gpushare-scheduler", "gpushare-scheduler", NULL
};

static const char *const default_stale_prefixes[] = {
	"ALIYUN_COM_GPU_MEM_", NULL
};

struct config *config_new_default(void)
{
	struct config *cfg = calloc(1, sizeof(*cfg));
	static const struct {
		const char *name;
		long long unit_mib;
	} memory[] = {
		{ "aliyun.com/gpu-mem", 1024 },
		{ "rancher.io/gpu-mem", 1024 },
		{ "volcano.sh/gpu-memory", 1 },
		{ "tencent.com/vcuda-memory", 256 },
	};

	if (!cfg)
		return NULL;
	for (int r = 0; r < RULE_COUNT; r++)
		cfg->mode[r] = rule_info_get((enum rule_id)r)->default_mode;
	cfg->strategy = SHARING_TIME_SLICING;
	cfg->max_document_bytes = 8u << 20;
	cfg->max_depth = 128;
	cfg->max_alias_nodes = 100000;
	cfg->max_values = 250000;
	cfg->max_review_steps = 50000000;
	cfg->failure_allow = 1;
	cfg->timeout_seconds = 10;
	cfg->max_gpu_memory_gib = 288;

	if (!(cfg->legacy_gpu_resource = strdup("alpha.kubernetes.io/nvidia-gpu")) ||
	    !(cfg->gpu_resource = strdup("nvidia.com/gpu")) ||
	    !(cfg->shared_gpu_resource = strdup("nvidia.com/gpu")) ||
	    !(cfg->gpu_memory_resource = strdup("nvidia.com/gpumem")) ||
	    !(cfg->legacy_gpu_name_label = strdup("alpha.kubernetes.io/nvidia-gpu-name")) ||
	    !(cfg->gpu_product_label = strdup("nvidia.com/gpu.product")) ||
	    !(cfg->sharing_strategy_label = strdup("nvidia.com/gpu.sharing-strategy")) ||
	    !(cfg->gpu_present_label = strdup("nvidia.com/gpu.present")) ||
	    !(cfg->shared_product_suffix = strdup("-SHARED")) ||
	    !(cfg->daemonset_priority_class = strdup("system-node-critical")) ||
	    !(cfg->default_priority_class = strdup("system-cluster-critical")) ||
	    !(cfg->sharing_label = strdup("gpumend.io/gpu-sharing")) ||
	    !(cfg->memory_request_annotation = strdup("gpumend.io/gpu-memory-request")) ||
	    !(cfg->models_annotation = strdup("gpumend.io/gpu-models")) ||
	    !(cfg->dra_device_class = strdup("gpu.nvidia.com")) ||
	    !(cfg->skip_annotation = strdup("gpumend.io/skip")) ||
	    !(cfg->skip_rules_annotation = strdup("gpumend.io/skip-rules")) ||
	    !(cfg->mutations_annotation = strdup("gpumend.io/mutations")))
		goto out_free;

	cfg->memory_resources = calloc(N_OF(memory) + 1,
				       sizeof(*cfg->memory_resources));
	if (!cfg->memory_resources)
		goto out_free;
	for (size_t i = 0; i < N_OF(memory); i++) {
		cfg->memory_resources[i].unit_mib = memory[i].unit_mib;
		if (!(cfg->memory_resources[i].name = strdup(memory[i].name)))
			goto out_free;
		cfg->n_memory_resources++;
	}
	if (text_map_set(&cfg->share_selectors, default_share_selectors,
			 N_OF(default_share_selectors)) ||
	    text_map_set(&cfg->obsolete_components, default_obsolete_components,
			 N_OF(default_obsolete_components)))
		goto out_free;
	if (string_list_set(&cfg->count_resources, default_count_resources) ||
	    string_list_set(&cfg->compute_resources,
			    default_compute_resources) ||
	    string_list_set(&cfg->vendor_gpu_resources,
			    default_vendor_gpu_resources) ||
	    string_list_set(&cfg->stack_images, default_stack_images) ||
	    string_list_set(&cfg->share_schedulers, default_share_schedulers) ||
	    string_list_set(&cfg->stale_annotation_prefixes,
			    default_stale_prefixes) ||
	    string_list_set(&cfg->obsolete_host_paths,
			    default_obsolete_host_paths) ||
	    string_list_set(&cfg->ambiguous_host_paths,
			    default_ambiguous_host_paths) ||
	    string_list_set(&cfg->ambiguous_mount_paths,
			    default_ambiguous_mount_paths) ||
	    string_list_set(&cfg->vendor_driver_dirs,
			    default_vendor_driver_dirs) ||
	    string_list_set(&cfg->gpu_images, default_gpu_images) ||
	    patterns_prepare(cfg))
		goto out_free;
	return cfg;
out_free:
	config_free(cfg);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The default file                                                    */

/*
 * Kept in step with config_new_default() by hand: loading it must give
 * exactly the defaults (the CLI's tests load it through the YAML reader).
 */
static const char default_yaml[] =
	"# gpumend configuration: the built-in defaults.\n"
	"#\n"
	"# Every key is optional: a key left out keeps the default shown here.\n"
	"# Lists and mappings given here replace the default list or mapping as a\n"
	"# whole. Print this file with `gpumend config`.\n"
	"\n"
	"# What whole-GPU requests become: device-plugin (nvidia.com/gpu, which\n"
	"# Kubernetes 1.36 also serves from DRA) or dra (resourceClaims and\n"
	"# ResourceClaimTemplates for NVIDIA's DRA driver; gpumend migrate and lint\n"
	"# only: the webhook refuses it). See docs/dra.md.\n"
	"target: device-plugin\n"
	"\n"
	"# Per-rule settings, keyed by rule id (`gpumend rules` lists them).\n"
	"# mode: off (skip the rule), warn (report), deny (report; the webhook\n"
	"# rejects the object), mutate (fix what it can, report the rest).\n"
	"rules:\n"
	"  deprecated-workload-api:\n"
	"    mode: mutate  # offline only: the API server converts these itself\n"
	"  dra-unsupported:\n"
	"    mode: warn    # --target dra only: what DRA cannot take yet, as errors\n"
	"  legacy-gpu-resource:\n"
	"    mode: mutate\n"
	"  legacy-gpu-node-label:\n"
	"    mode: mutate\n"
	"  legacy-affinity-annotation:\n"
	"    mode: mutate\n"
	"  critical-pod-annotation:\n"
	"    mode: mutate  # the annotation becomes priorityClassName (see priority)\n"
	"  gpu-model-affinity:\n"
	"    mode: mutate\n"
	"  gpu-sharing:\n"
	"    mode: mutate\n"
	"  obsolete-cuda-hostpath:\n"
	"    mode: mutate\n"
	"  gpu-visibility:\n"
	"    mode: warn    # mutate sets NVIDIA_VISIBLE_DEVICES=void\n"
	"  removed-gpu-feature-gate:\n"
	"    mode: warn    # lint only: off, warn or deny\n"
	"  obsolete-gpu-component:\n"
	"    mode: warn    # lint only: says what replaces each component (see components)\n"
	"  legacy-scheduler-config:\n"
	"    mode: mutate  # offline only: KubeSchedulerConfiguration v1beta1-3 becomes v1\n"
	"  invalid-resource:\n"
	"    mode: warn    # offline and lint only: resource names no API server takes\n"
	"  removed-api:\n"
	"    mode: mutate  # offline only: RBAC, PriorityClass... v1beta1 become v1\n"
	"\n"
	"# Extended resource names.\n"
	"resources:\n"
	"  legacyGPU: alpha.kubernetes.io/nvidia-gpu  # the Kubernetes <= 1.9 GPU resource\n"
	"  gpu: nvidia.com/gpu                         # the device plugin's GPU resource\n"
	"  # a shared GPU (time-slicing, mps): what the device plugin serves by\n"
	"  # default; nvidia.com/gpu.shared when it renames shared GPUs\n"
	"  # (renameByDefault: true)\n"
	"  sharedGPU: nvidia.com/gpu\n"
	"  gpuMemory: nvidia.com/gpumem                # GPU memory in MiB, for strategy hami\n"
	"  vendorGPUs:              # vendor forks' resources counting whole GPUs, renamed to gpu\n"
	"    - aliyun.com/gpu       # Alibaba Cloud ACK topology-aware GPU scheduling\n"
	"\n"
	"# Node labels.\n"
	"labels:\n"
	"  legacyGPUName: alpha.kubernetes.io/nvidia-gpu-name  # legacy GPU model label\n"
	"  gpuProduct: nvidia.com/gpu.product                   # GPU Feature Discovery's model label\n"
	"  sharingStrategy: nvidia.com/gpu.sharing-strategy     # GPU Feature Discovery's sharing label\n"
	"  gpuPresent: nvidia.com/gpu.present                   # set on every NVIDIA GPU node\n"
	"  # appended to gpuProduct by GPU Feature Discovery on nodes that share GPUs\n"
	"  # without renaming them (sharedGPU: nvidia.com/gpu); see docs/rules.md\n"
	"  sharedProductSuffix: \"-SHARED\"\n"
	"\n"
	"# The gpu-sharing rule.\n"
	"sharing:\n"
	"  strategy: time-slicing  # time-slicing | mps | hami | keep\n"
	"  memoryResources:        # legacy GPU-memory resources and their unit: MiB | GiB\n"
	"    aliyun.com/gpu-mem: GiB  # gpushare's --memory-unit default; larger values: see below\n"
	"    rancher.io/gpu-mem: GiB\n"
	"    volcano.sh/gpu-memory: MiB\n"
	"    tencent.com/vcuda-memory: 256MiB  # tkestack gpu-manager\n"
	"  countResources:         # legacy resources that count shared GPUs\n"
	"    - volcano.sh/gpu-number\n"
	"    - aliyun.com/gpu-count\n"
	"    - nvidia.com/gpu.shared  # gpumend's old default; ignored when it is sharedGPU\n"
	"  # legacy shares of one GPU's compute in percent (100: a whole GPU); time-slicing\n"
	"  # and MPS do not limit compute: they go, and the pod shares a GPU\n"
	"  computeResources:\n"
	"    - tencent.com/vcuda-core           # tkestack gpu-manager\n"
	"    - aliyun.com/gpu-core.percentage   # Alibaba Cloud cGPU\n"
	"  nodeSelectors:          # node selector labels that marked legacy sharing nodes\n"
	"    gpushare: \"true\"\n"
	"    gpu.cattle.io/type: share\n"
	"  schedulerNames:         # legacy GPU-sharing schedulers (schedulerName)\n"
	"    - rancher-gpushare-scheduler\n"
	"    - gpushare-scheduler\n"
	"  staleAnnotationPrefixes:  # prefixes of annotations the legacy scheduler left\n"
	"    - ALIYUN_COM_GPU_MEM_\n"
	"  label: gpumend.io/gpu-sharing                    # pod label set to the strategy\n"
	"  # pod annotation that records the original GPU-memory request\n"
	"  memoryAnnotation: gpumend.io/gpu-memory-request\n"
	"  # the most memory one GPU has (288 GiB: NVIDIA B300, AMD MI355X). A GiB\n"
	"  # resource asking for more is read as MiB, and said so; a size larger\n"
	"  # than this in MiB too is refused\n"
	"  maxGPUMemoryGiB: 288\n"
	"\n"
	"# The obsolete-cuda-hostpath rule: fnmatch(3) patterns on hostPath.path\n"
	"# (\"*\" also matches \"/\"), cleaned as the kubelet cleans it first\n"
	"# (\"//\" as \"/\", no \".\", \"..\" resolved, no trailing \"/\").\n"
	"hostPaths:\n"
	"  obsolete:               # removed with every volumeMount that uses them\n"
	"    - \"/usr/lib/nvidia-[0-9]*\"\n"
	"    - \"/usr/local/nvidia\"\n"
	"    - \"/usr/local/nvidia/*\"\n"
	"    - \"/var/lib/nvidia-docker/volumes/nvidia_driver/*\"\n"
	"    - \"/usr/lib64/nvidia\"\n"
	"    - \"/usr/lib64/nvidia/*\"\n"
	"    - \"/opt/nvidia-driver\"    # a copy of nvidia-docker 1's driver volume (DLWorkspace)\n"
	"    - \"/opt/nvidia-driver/*\"\n"
	"    - \"*/libcuda.so*\"\n"
	"    - \"*/libnvidia-*.so*\"\n"
	"  ambiguous:              # only warned about, when mounted at ambiguousMountPaths\n"
	"    - \"/usr/bin\"\n"
	"    - \"/bin\"\n"
	"    - \"/usr/lib\"\n"
	"    - \"/usr/lib64\"\n"
	"    - \"/usr/lib/x86_64-linux-gnu\"\n"
	"    - \"*\"                 # any other host path mounted there\n"
	"  ambiguousMountPaths:    # fnmatch(3) patterns on volumeMounts[].mountPath\n"
	"    - \"/usr/local/nvidia\"\n"
	"    - \"/usr/local/nvidia/*\"\n"
	"  # where a platform installs the driver today: the device plugin mounts\n"
	"  # it into GPU containers, so only their mounts at ambiguousMountPaths\n"
	"  # are removed; other containers and the stack's own components keep theirs\n"
	"  vendorDriverDirs:\n"
	"    - \"/home/kubernetes/bin/nvidia\"    # GKE installs the driver here today\n"
	"    - \"/home/kubernetes/bin/nvidia/*\"\n"
	"\n"
	"# The gpu-visibility rule.\n"
	"visibility:\n"
	"  images:                 # fnmatch(3) patterns on images that can see every GPU\n"
	"    - \"nvidia/cuda\"\n"
	"    - \"nvidia/cuda:*\"\n"
	"    - \"*/nvidia/cuda\"\n"
	"    - \"*/nvidia/cuda:*\"\n"
	"    - \"nvcr.io/*\"\n"
	"    - \"*:*-gpu\"\n"
	"    - \"*:*-gpu-*\"\n"
	"  # the GPU stack's own components, which need every GPU of the node:\n"
	"  # gpu-visibility and obsolete-cuda-hostpath leave their containers alone\n"
	"  stackImages:\n"
	"    - \"*nvidia/k8s-device-plugin*\"\n"
	"    - \"*nvidia/gpu-feature-discovery*\"\n"
	"    - \"*/dcgm-exporter*\"\n"
	"    - \"*nvidia/k8s/container-toolkit*\"\n"
	"    - \"*nvidia/gpu-operator*\"\n"
	"    - \"nvcr.io/nvidia/cloud-native/*\"\n"
	"    - \"nvcr.io/nvidia/driver:*\"\n"
	"    - \"*nvidia/k8s-dra-driver*\"\n"
	"    - \"*nvidia/kubevirt-gpu-device-plugin*\"\n"
	"    - \"*nvidia-gpu-device-plugin*\"     # GKE's device plugin\n"
	"    - \"*nvidia-driver-installer*\"      # GKE's driver installers\n"
	"    - \"*cos-nvidia-installer*\"\n"
	"    - \"*cos-gpu-installer*\"\n"
	"    - \"*nvidia-partition-gpu*\"       # GKE's MIG partitioner\n"
	"    - \"*projecthami/hami*\"\n"
	"    - \"*/dra-driver-nvidia/*\"        # NVIDIA's DRA driver (registry.k8s.io)\n"
	"\n"
	"# The obsolete-gpu-component rule: fnmatch(3) patterns on container images\n"
	"# of the legacy stacks' own components, each with what to do instead (at\n"
	"# most 50 characters, quoted in findings). Sources for each are in docs/rules.md.\n"
	"components:\n"
	"  obsolete:\n"
	"    \"nvidia/k8s-device-plugin:1.*\": use NVIDIA device plugin v0.x or GPU Operator\n"
	"    \"*/nvidia/k8s-device-plugin:1.*\": use NVIDIA device plugin v0.x or GPU Operator\n"
	"    \"*device-plugin-recover*\": remove it with the gpushare device plugin\n"
	"    \"*k8s-gpushare-plugin*\": \"use NVIDIA device plugin, time-slicing or MPS\"\n"
	"    \"*gpushare-device-plugin*\": \"use NVIDIA device plugin, time-slicing or MPS\"\n"
	"    \"*gpushare-schd-extender*\": \"use default scheduler: pods need no extender\"\n"
	"    \"*gpushare-scheduler-extender*\": \"use default scheduler: pods need no extender\"\n"
	"    \"*schd-extender-deployer*\": \"remove it: it installs the gpushare extender\"\n"
	"    \"*device-plugin-evict*\": remove it with the gpushare device plugin\n"
	"    \"*scheduler-extender-configtool*\": \"remove it: it edits kube-scheduler for gpushare\"\n"
	"    \"*nvidia-docker-plugin*\": use NVIDIA container toolkit\n"
	"    \"*volcano-device-plugin*\": \"use NVIDIA device plugin, time-slicing or MPS\"\n"
	"    \"*tkestack/gpu-manager*\": \"use NVIDIA device plugin with MPS, or HAMi\"\n"
	"    \"*gputopology-schd-extender*\": \"use default scheduler: pods need no extender\"\n"
	"    \"*gputopology-scheduler-extender*\": \"use default scheduler: pods need no extender\"\n"
	"\n"
	"# The critical-pod-annotation rule: the PriorityClass that replaces the\n"
	"# annotation scheduler.alpha.kubernetes.io/critical-pod (removed in 1.16).\n"
	"priority:\n"
	"  daemonSetClass: system-node-critical     # for DaemonSet pods\n"
	"  defaultClass: system-cluster-critical    # for every other pod\n"
	"\n"
	"# The gpu-model-affinity rule.\n"
	"models:\n"
	"  annotation: gpumend.io/gpu-models  # pod annotation listing GPU models, comma-separated\n"
	"  namespaces: {}          # GPU models that the GPU pods of a namespace must run on, e.g.\n"
	"  #   ml-team: [\"Tesla K80\", \"A100-SXM4-80GB\"]\n"
	"\n"
	"# The dra target.\n"
	"dra:\n"
	"  deviceClassName: gpu.nvidia.com  # the DeviceClass of whole GPUs in claims\n"
	"  # true: a sharing pod whose GPU memory is known asks for it as claim\n"
	"  # capacity (Kubernetes 1.36, the DRA driver's alpha ConsumableShares);\n"
	"  # false: such a pod is a dra-unsupported error\n"
	"  consumableCapacity: false\n"
	"\n"
	"# Opt-out and bookkeeping annotations.\n"
	"annotations:\n"
	"  skip: gpumend.io/skip                # \"true\" skips the object\n"
	"  skipRules: gpumend.io/skip-rules     # comma-separated rule ids to skip\n"
	"  mutations: gpumend.io/mutations      # where the webhook records what it changed\n"
	"  # namespaces whose objects may opt out of rules in deny mode with skip\n"
	"  # or skipRules; elsewhere a deny rule applies whatever the annotations say\n"
	"  denyOptOutNamespaces: []\n"
	"\n"
	"# Input limits of the CLI and the webhook.\n"
	"limits:\n"
	"  maxDocumentBytes: 8388608  # largest file or request body\n"
	"  maxDepth: 128              # deepest nesting of mappings and sequences\n"
	"  maxAliasNodes: 100000      # most nodes YAML aliases may expand to\n"
	"  maxValues: 250000          # most JSON values in one admission review\n"
	"  maxReviewSteps: 50000000   # most steps of work one webhook review may take\n"
	"\n"
	"# The webhook.\n"
	"webhook:\n"
	"  # allow | deny: the answer when the webhook itself fails, on plain /mutate\n"
	"  # only; the paths gpumend webhook-config registers answer as their\n"
	"  # entry's failurePolicy (legacy: deny, advisory: allow)\n"
	"  failurePolicy: allow\n"
	"  timeoutSeconds: 10    # the registration's timeout (1 to 30); the server answers within it\n"
	"  # custom resources to register besides the built-in ones (gpumend\n"
	"  # webhook-config), with the paths of their pod specs, '*' for every\n"
	"  # element of a list or value of a mapping, e.g.\n"
	"  #   - group: example.com\n"
	"  #     resources: [trainjobs]\n"
	"  #     podSpecs: [\"spec.workers.*.template.spec\"]\n"
	"  customResources: []\n";

const char *config_default_yaml(void)
{
	return default_yaml;
}

/* ------------------------------------------------------------------ */
/* Loading                                                             */

/*
 * Records an error and returns -1. The error is at `pointer_new` (a string
 * from json_pointer_join, taken over) or, when that is NULL, at `pointer`.
 */
static int config_fail(struct rules_error *err, char *pointer_new,
		       const char *pointer, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int config_fail(struct rules_error *err, char *pointer_new,
		       const char *pointer, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->at_key = 0;
		snprintf(err->pointer, sizeof(err->pointer), "%s",
			 pointer_new ? pointer_new : pointer);
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	free(pointer_new);
	return -1;
}

static int config_fail_oom(struct rules_error *err, const char *pointer)
{
	return config_fail(err, NULL, pointer, "out of memory");
}

/* An unknown key (`what`: "key", "rule") at `pointer_new` (taken over),
 * `hint` after its name: the error is the key, not its value. -1. */
static int config_fail_key(struct rules_error *err, char *pointer_new,
			   const char *pointer, const char *what,
			   const char *key, const char *hint)
{
	config_fail(err, pointer_new, pointer, "unknown %s '%.60s'%s", what,
		    key, hint);
	if (err)
		err->at_key = 1;
	return -1;
}

static int is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int is_alnum(char c)
{
	return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* A DNS-1123 subdomain: lowercase labels of [a-z0-9-] joined by dots. */
static int dns_subdomain_valid(const char *s, size_t len)
{
	if (len == 0 || len > 253)
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (is_lower_alnum(s[i]))
			continue;
		if (i == 0 || i == len - 1)
			return 0;
		if (s[i] == '.' &&
		    (!is_lower_alnum(s[i - 1]) || !is_lower_alnum(s[i + 1])))
			return 0;
		if (s[i] != '.' && s[i] != '-')
			return 0;
	}
	return 1;
}

/* A DNS-1123 label, which is what a namespace name is. */
static int dns_label_valid(const char *s, size_t len)
{
	return len <= 63 && memchr(s, '.', len) == NULL &&
	       dns_subdomain_valid(s, len);
}

/* The name part of a qualified name, and also a (non-empty) label value. */
static int label_value_valid(const char *s, size_t len)
{
	if (len == 0 || len > 63 || !is_alnum(s[0]) || !is_alnum(s[len - 1]))
		return 0;
	for (size_t i = 1; i + 1 < len; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return 0;
	return 1;
}

/* A Kubernetes qualified name ([prefix/]name): label and annotation keys,
 * extended resource names. */
static int qualified_name_valid(const char *s, size_t len)
{
	const char *slash = memchr(s, '/', len);

	if (!slash)
		return label_value_valid(s, len);
	return dns_subdomain_valid(s, (size_t)(slash - s)) &&
	       label_value_valid(slash + 1, len - (size_t)(slash - s) - 1);
}

/* What a string of the config must look like. */
enum text_kind {
	TEXT_ANY,               /* anything but empty */
	TEXT_NAME,              /* a qualified name */
	TEXT_LABEL_VALUE,       /* a label value */
	TEXT_NAMESPACE,         /* a namespace name */
	TEXT_OBJECT_NAME,       /* an object name: a DNS-1123 subdomain */
	TEXT_LABEL_SUFFIX,      /* text that keeps a label value valid */
	TEXT_RESOURCE,          /* an API resource's plural: a DNS label */
};

/*
 * Checks the string `s` (of `len` bytes, as JSON gave it) against `kind`.
 * `subject` names it in messages ("gpu", "an item of countResources").
 */
static int text_check(const char *s, size_t len, enum text_kind kind,
		      const char *subject, const char *pointer,
		      struct rules_error *err)
{
	if (len == 0)
		return config_fail(err, NULL, pointer, "%s must not be empty",
				   subject);
	if (strlen(s) != len)
		return config_fail(err, NULL, pointer,
				   "%s must not contain NUL characters", subject);
	switch (kind) {
	case TEXT_ANY:
		return 0;
	case TEXT_NAME:
		if (qualified_name_valid(s, len))
			return 0;
		return config_fail(err, NULL, pointer,
				   "'%.60s' is not a valid label, annotation or resource name",
				   s);
	case TEXT_LABEL_VALUE:
		if (label_value_valid(s, len))
			return 0;
		return config_fail(err, NULL, pointer,
				   "'%.60s' is not a valid label value", s);
	case TEXT_NAMESPACE:
		if (dns_label_valid(s, len))
			return 0;
		return config_fail(err, NULL, pointer,
				   "'%.60s' is not a valid namespace name", s);
	case TEXT_RESOURCE:
		if (dns_label_valid(s, len))
			return 0;
		return config_fail(err, NULL, pointer,
				   "'%.60s' is not a valid resource name (a lowercase plural such as 'trainjobs')",
				   s);
	case TEXT_OBJECT_NAME:
		if (dns_subdomain_valid(s, len))
			return 0;
		return config_fail(err, NULL, pointer,
				   "'%.60s' is not a valid object name", s);
	case TEXT_LABEL_SUFFIX:
		/* appended to a label value, which it must keep valid */
		for (size_t i = 0; i < len; i++)
			if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' &&
			    s[i] != '.')
				return config_fail(err, NULL, pointer,
						   "'%.60s' has characters a label value cannot hold",
						   s);
		if (len > 20 || !is_alnum(s[len - 1]))
			return config_fail(err, NULL, pointer,
					   "'%.60s' must end with a letter or digit and be at most 20 characters",
					   s);
		return 0;
	}
	return -1;
}

/* Reads the string `value` into *out (borrowed) and checks it. */
static int text_read(json_t *value, enum text_kind kind, const char *subject,
		     const char *pointer, const char **out,
		     struct rules_error *err)
{
	if (json_is_boolean(value) || json_is_number(value))
		/* an unquoted true, 1.0, ... in YAML */
		return config_fail(err, NULL, pointer,
				   "%s must be a string: quote it", subject);
	if (!json_is_string(value))
		return config_fail(err, NULL, pointer, "%s must be a string",
				   subject);
	*out = json_string_value(value);
	return text_check(*out, json_string_length(value), kind, subject,
			  pointer, err);
}

static int apply_name(struct config *cfg, const struct config_field *f,
		      json_t *value, const char *pointer,
		      struct rules_error *err)
{
	char **slot = MEMBER(cfg, f, char *);
	enum text_kind kind = f->kind == FIELD_SUFFIX ? TEXT_LABEL_SUFFIX :
			      f->kind == FIELD_OBJECT_NAME ? TEXT_OBJECT_NAME :
			      TEXT_NAME;
	const char *s;
	char *copy;

	if (text_read(value, kind, f->key, pointer, &s, err))
		return -1;
	if (!(copy = strdup(s)))
		return config_fail_oom(err, pointer);
	free(*slot);
	*slot = copy;
	return 0;
}

/* Reads a JSON array of strings into `list` (empty on entry; freed by the
 * caller on failure too). */
static int string_list_read(struct string_list *list, json_t *value,
			    enum text_kind kind, const char *subject,
			    const char *pointer, struct rules_error *err)
{
	size_t i;
	json_t *item;

	list->items = calloc(json_array_size(value) + 1, sizeof(char *));
	if (!list->items)
		return config_fail_oom(err, pointer);
	json_array_foreach(value, i, item) {
		char *at = json_pointer_join_index(pointer, i);
		const char *s;
		int rc;

		if (!at)
			return config_fail_oom(err, pointer);
		rc = text_read(item, kind, subject, at, &s, err);
		free(at);
		if (rc)
			return -1;
		if (!(list->items[i] = strdup(s)))
			return config_fail_oom(err, pointer);
		list->n++;
	}
	return 0;
}

static int apply_list(struct config *cfg, const struct config_field *f,
		      json_t *value, const char *pointer,
		      struct rules_error *err)
{
	struct string_list *slot = MEMBER(cfg, f, struct string_list);
	struct string_list list = { 0 };
	char subject[96];

	if (!json_is_array(value))
		return config_fail(err, NULL, pointer,
				   "%s must be a list of strings (use [] for none)",
				   f->key);
	snprintf(subject, sizeof(subject), "an item of %s", f->key);
	if (string_list_read(&list, value,
			     f->kind == FIELD_NAME_LIST ? TEXT_NAME : TEXT_ANY,
			     subject, pointer, err)) {
		string_list_clear(&list);
		return -1;
	}
	string_list_clear(slot);
	*slot = list;
	return 0;
}

static int apply_strategy(struct config *cfg, json_t *value,
			  const char *pointer, struct rules_error *err)
{
	const char *s = json_string_value(value);

	for (int i = SHARING_TIME_SLICING; s && i <= SHARING_KEEP; i++) {
		if (strcmp(s, sharing_strategy_name((enum sharing_strategy)i)))
			continue;
		cfg->strategy = (enum sharing_strategy)i;
		return 0;
	}
	return config_fail(err, NULL, pointer,
			   "strategy must be one of time-slicing, mps, hami, keep");
}

static int apply_failure_policy(struct config *cfg, json_t *value,
				const char *pointer, struct rules_error *err)
{
	const char *s = json_string_value(value);

	if (s && strcmp(s, "allow") == 0)
		cfg->failure_allow = 1;
	else if (s && strcmp(s, "deny") == 0)
		cfg->failure_allow = 0;
	else
		return config_fail(err, NULL, pointer,
				   "failurePolicy must be one of allow, deny");
	return 0;
}

static int apply_limit(struct config *cfg, const struct config_field *f,
		       json_t *value, const char *pointer,
		       struct rules_error *err)
{
	json_int_t n = json_integer_value(value);
	long long milli;

	/* a size: as the webhook's --max-body, a quantity too (64Mi, 8M) */
	if (f->kind == FIELD_BYTES && json_is_string(value)) {
		if (quantity_parse_milli(json_string_value(value), &milli) ||
		    milli % 1000 || milli <= 0)
			return config_fail(err, NULL, pointer,
					   "%s must be a positive whole number of bytes, such as 8388608 or 8Mi",
					   f->key);
		n = (json_int_t)(milli / 1000);
	} else if (!json_is_integer(value) || n <= 0) {
		return config_fail(err, NULL, pointer,
				   f->kind == FIELD_BYTES ?
				   "%s must be a positive whole number of bytes, such as 8388608 or 8Mi" :
				   "%s must be a positive integer", f->key);
	}
	if (f->kind == FIELD_INT || f->kind == FIELD_TIMEOUT) {
		int max = f->kind == FIELD_TIMEOUT ? 30 : INT_MAX;

		if (n > max)
			return config_fail(err, NULL, pointer,
					   "%s must be at most %d", f->key, max);
		*MEMBER(cfg, f, int) = (int)n;
		return 0;
	}
#if LLONG_MAX > SIZE_MAX
	if ((unsigned long long)n > SIZE_MAX)
		return config_fail(err, NULL, pointer, "%s must be at most %zu",
				   f->key, (size_t)SIZE_MAX);
#endif
	*MEMBER(cfg, f, size_t) = (size_t)n;
	return 0;
}

/*
 * Checks that `value` is a mapping: for the three maps that replace the
 * default wholesale, where null would be ambiguous ("none" or "default").
 */
static int map_check(json_t *value, const char *key, const char *pointer,
		     struct rules_error *err)
{
	if (!json_is_object(value))
		return config_fail(err, NULL, pointer,
				   "%s must be a mapping (use {} for none)", key);
	return 0;
}

/* Checks the key `key` of the mapping at `pointer`. */
static int map_key_check(const char *key, enum text_kind kind,
			 const char *subject, const char *pointer,
			 struct rules_error *err)
{
	char *at = json_pointer_join(pointer, key);
	int rc;

	if (!at)
		return config_fail_oom(err, pointer);
	rc = text_check(key, strlen(key), kind, subject, at, err);
	free(at);
	return rc;
}

/*
 * The size in MiB of a unit written "<N>MiB" (tkestack's gpu-manager
 * counts tencent.com/vcuda-memory in 256 MiB), N from 1 to 1048576
 * without a leading zero; 0 when `s` is not such a unit.
 */
static long long unit_of(const char *s)
{
	long long n = 0;
	size_t i;

	for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
		if (i == 0 && s[i] == '0')
			return 0;
		n = n * 10 + (s[i] - '0');
		if (n > 1048576)
			return 0;
	}
	if (i == 0 || strcmp(s + i, "MiB") != 0)
		return 0;
	return n;
}

static int apply_memory_resources(struct config *cfg, json_t *value,
				  const char *pointer, struct rules_error *err)
{
	struct memory_resource *items;
	size_t n = 0;
	const char *key;
	json_t *unit;

	if (map_check(value, "memoryResources", pointer, err))
		return -1;
	items = calloc(json_object_size(value) + 1, sizeof(*items));
	if (!items)
		return config_fail_oom(err, pointer);
	json_object_foreach(value, key, unit) {
		const char *s = json_string_value(unit);

		if (map_key_check(key, TEXT_NAME, "a key of memoryResources",
				  pointer, err))
			goto out_free_items;
		if (s && strcmp(s, "MiB") == 0) {
			items[n].unit_mib = 1;
		} else if (s && strcmp(s, "GiB") == 0) {
			items[n].unit_mib = 1024;
		} else if (!s || (items[n].unit_mib = unit_of(s)) == 0) {
			config_fail(err, json_pointer_join(pointer, key), pointer,
				    "the unit of '%.60s' must be MiB, GiB or a number of MiB such as 256MiB",
				    key);
			goto out_free_items;
		}
		if (!(items[n].name = strdup(key))) {
			config_fail_oom(err, pointer);
			goto out_free_items;
		}
		n++;
	}
	memory_resources_free(cfg->memory_resources, cfg->n_memory_resources);
	cfg->memory_resources = items;
	cfg->n_memory_resources = n;
	return 0;
out_free_items:
	memory_resources_free(items, n);
	return -1;
}

/* How the entries of a mapping of strings are checked. */
struct text_map_schema {
	const char *name;             /* the mapping's key, for messages */
	enum text_kind key_kind;
	const char *key_subject;      /* "a key of nodeSelectors" */
	enum text_kind value_kind;
	size_t value_max;             /* the longest value, 0: no bound */
};

/* The longest replacement text of an obsolete component: it is quoted in
 * findings, which admission warnings cap. */
#define REPLACEMENT_MAX 50

static const struct text_map_schema node_selectors_schema = {
	"nodeSelectors", TEXT_NAME, "a key of nodeSelectors", TEXT_LABEL_VALUE, 0
};

static const struct text_map_schema components_schema = {
	"obsolete", TEXT_ANY, "an image pattern", TEXT_ANY, REPLACEMENT_MAX
};

/* Reads the mapping `value` into `slot`, replacing it as a whole. */
static int apply_text_map(struct text_map *slot, json_t *value,
			  const struct text_map_schema *schema,
			  const char *pointer, struct rules_error *err)
{
	struct text_map map = { 0 };
	const char *key;
	json_t *text;

	if (map_check(value, schema->name, pointer, err))
		return -1;
	map.items = calloc(json_object_size(value) + 1, sizeof(*map.items));
	if (!map.items)
		return config_fail_oom(err, pointer);
	json_object_foreach(value, key, text) {
		char subject[96], *at;
		const char *s;
		int rc;

		if (map_key_check(key, schema->key_kind, schema->key_subject,
				  pointer, err))
			goto out_free_map;
		if (!(at = json_pointer_join(pointer, key))) {
			config_fail_oom(err, pointer);
			goto out_free_map;
		}
		snprintf(subject, sizeof(subject), "the value of '%.60s'", key);
		rc = text_read(text, schema->value_kind, subject, at, &s, err);
		if (!rc && schema->value_max && strlen(s) > schema->value_max)
			rc = config_fail(err, NULL, at,
					 "the value of '%.60s' must be at most %zu characters",
					 key, schema->value_max);
		free(at);
		if (rc)
			goto out_free_map;
		if (text_map_add(&map, key, s)) {
			config_fail_oom(err, pointer);
			goto out_free_map;
		}
	}
	text_map_free(slot);
	*slot = map;
	return 0;
out_free_map:
	text_map_free(&map);
	return -1;
}

/*
 * Reads the models of one namespace. They are stored as written, but each
 * must normalise to a valid node label value, since gpu-model-affinity
 * puts the normalised form into a node affinity.
 */
static int namespace_models_read(struct namespace_models *entry,
				 const char *namespace_name, json_t *value,
				 const char *pointer, struct rules_error *err)
{
	char subject[96];

	if (!json_is_array(value) || json_array_size(value) == 0)
		return config_fail(err, NULL, pointer,
				   "namespace '%.60s' must have a non-empty list of gpu models",
				   namespace_name);
	snprintf(subject, sizeof(subject), "a model of namespace '%.60s'",
		 namespace_name);
	if (string_list_read(&entry->models, value, TEXT_ANY, subject, pointer,
			     err))
		return -1;
	for (size_t i = 0; i < entry->models.n; i++) {
		char *label = gpu_name_normalize(entry->models.items[i]);
		int valid = label && label_value_valid(label, strlen(label));

		free(label);
		if (!label)
			return config_fail_oom(err, pointer);
		if (!valid)
			return config_fail(err, json_pointer_join_index(pointer, i),
					   pointer,
					   "gpu model '%.60s' does not give a valid node label value",
					   entry->models.items[i]);
	}
	return 0;
}

static int apply_namespace_models(struct config *cfg, json_t *value,
				  const char *pointer, struct rules_error *err)
{
	struct namespace_models *items;
	size_t n = 0;
	const char *key;
	json_t *models;

	if (map_check(value, "namespaces", pointer, err))
		return -1;
	items = calloc(json_object_size(value) + 1, sizeof(*items));
	if (!items)
		return config_fail_oom(err, pointer);
	json_object_foreach(value, key, models) {
		char *at;
		int rc;

		if (map_key_check(key, TEXT_NAMESPACE, "a namespace name",
				  pointer, err))
			goto out_free_items;
		if (!(items[n].namespace_name = strdup(key))) {
			config_fail_oom(err, pointer);
			goto out_free_items;
		}
		n++;
		if (!(at = json_pointer_join(pointer, key))) {
			config_fail_oom(err, pointer);
			goto out_free_items;
		}
		rc = namespace_models_read(&items[n - 1], key, models, at, err);
		free(at);
		if (rc)
			goto out_free_items;
	}
	namespace_models_free(cfg->namespace_models, cfg->n_namespace_models);
	cfg->namespace_models = items;
	cfg->n_namespace_models = n;
	return 0;
out_free_items:
	namespace_models_free(items, n);
	return -1;
}

/* Reads one item of webhook.customResources into `entry` (freed by the
 * caller on failure too). */
static int custom_resource_read(struct custom_resource *entry, json_t *value,
				const char *pointer, struct rules_error *err)
{
	static const char *const keys[] = { "group", "resources", "podSpecs" };
	const char *key, *group;
	json_t *member;

	if (!json_is_object(value))
		return config_fail(err, NULL, pointer,
				   "an item of customResources must be a mapping with group, resources and podSpecs");
	json_object_foreach(value, key, member) {
		size_t k = 0;

		while (k < 3 && strcmp(key, keys[k]) != 0)
			k++;
		if (k == 3)
			return config_fail_key(err, json_pointer_join(pointer, key),
					       pointer, "key", key,
					       " (expected group, resources, podSpecs)");
	}
	for (size_t k = 0; k < 3; k++) {
		char *at;
		int rc = 0;

		member = json_member(value, keys[k]);
		if (!member)
			return config_fail(err, NULL, pointer,
					   "an item of customResources needs '%s'",
					   keys[k]);
		if (!(at = json_pointer_join(pointer, keys[k])))
			return config_fail_oom(err, pointer);
		if (k == 0) {
			rc = text_read(member, TEXT_OBJECT_NAME, "group", at,
				       &group, err);
			if (!rc && !(entry->group = strdup(group)))
				rc = config_fail_oom(err, at);
		} else if (!json_is_array(member) ||
			   json_array_size(member) == 0) {
			rc = config_fail(err, NULL, at,
					 "%s must be a non-empty list of strings",
					 keys[k]);
		} else if (k == 1) {
			rc = string_list_read(&entry->resources, member,
					      TEXT_RESOURCE, "a resource", at,
					      err);
		} else {
			rc = string_list_read(&entry->pod_specs, member,
					      TEXT_ANY, "a pod spec path", at,
					      err);
			for (size_t i = 0; !rc && i < entry->pod_specs.n; i++) {
				char why[160];

				if (rules_pod_path_check(entry->pod_specs.items[i],
							 why, sizeof(why)))
					rc = config_fail(err,
							 json_pointer_join_index(at, i),
							 at, "pod spec path '%.60s': %s",
							 entry->pod_specs.items[i],
							 why);
			}
		}
		free(at);
		if (rc)
			return -1;
	}
	return 0;
}

static int apply_custom_resources(struct config *cfg, json_t *value,
				  const char *pointer, struct rules_error *err)
{
	struct custom_resource *items;
	size_t n = 0, i;
	json_t *item;

	if (!json_is_array(value))
		return config_fail(err, NULL, pointer,
				   "customResources must be a list (use [] for none)");
	items = calloc(json_array_size(value) + 1, sizeof(*items));
	if (!items)
		return config_fail_oom(err, pointer);
	json_array_foreach(value, i, item) {
		char *at = json_pointer_join_index(pointer, i);
		int rc;

		if (!at) {
			config_fail_oom(err, pointer);
			goto out_free_items;
		}
		n++;
		rc = custom_resource_read(&items[i], item, at, err);
		free(at);
		if (rc)
			goto out_free_items;
	}
	custom_resources_free(cfg->custom_resources, cfg->n_custom_resources);
	cfg->custom_resources = items;
	cfg->n_custom_resources = n;
	return 0;
out_free_items:
	custom_resources_free(items, n);
	return -1;
}

static int field_apply(struct config *cfg, const struct config_field *f,
		       json_t *value, const char *pointer,
		       struct rules_error *err)
{
	switch (f->kind) {
	case FIELD_NAME:
	case FIELD_SUFFIX:
	case FIELD_OBJECT_NAME:
		return apply_name(cfg, f, value, pointer, err);
	case FIELD_COMPONENTS:
		return apply_text_map(MEMBER(cfg, f, struct text_map), value,
				      &components_schema, pointer, err);
	case FIELD_NAME_LIST:
	case FIELD_TEXT_LIST:
		return apply_list(cfg, f, value, pointer, err);
	case FIELD_STRATEGY:
		return apply_strategy(cfg, value, pointer, err);
	case FIELD_MEMORY_RESOURCES:
		return apply_memory_resources(cfg, value, pointer, err);
	case FIELD_NODE_SELECTORS:
		return apply_text_map(MEMBER(cfg, f, struct text_map), value,
				      &node_selectors_schema, pointer, err);
	case FIELD_NAMESPACE_MODELS:
		return apply_namespace_models(cfg, value, pointer, err);
	case FIELD_SIZE:
	case FIELD_BYTES:
	case FIELD_INT:
	case FIELD_TIMEOUT:
		return apply_limit(cfg, f, value, pointer, err);
	case FIELD_FAILURE_POLICY:
		return apply_failure_policy(cfg, value, pointer, err);
	case FIELD_CUSTOM_RESOURCES:
		return apply_custom_resources(cfg, value, pointer, err);
	case FIELD_BOOL:
		if (!json_is_boolean(value))
			return config_fail(err, NULL, pointer,
					   "%s must be true or false", f->key);
		*MEMBER(cfg, f, int) = json_is_true(value);
		return 0;
	}
	return -1;
}

/*
 * Reads a rule's mode. A YAML 1.1 reader turns an unquoted `off` into
 * false, so false is taken as off too.
 */
static int rule_mode_read(const struct rule_info *info, json_t *value,
			  const char *pointer, enum rule_mode *mode,
			  struct rules_error *err)
{
	const char *s = json_string_value(value);
	int found = -1;

	if (json_is_false(value))
		found = RULE_MODE_OFF;
	for (int m = RULE_MODE_OFF; s && m <= RULE_MODE_MUTATE; m++)
		if (strcmp(s, rule_mode_name((enum rule_mode)m)) == 0)
			found = m;
	if (found == RULE_MODE_MUTATE && !info->can_mutate)
		return config_fail(err, NULL, pointer,
				   "rule '%s' cannot mutate: mode must be one of off, warn, deny",
				   info->name);
	if (found < 0 && !info->can_mutate)
		return config_fail(err, NULL, pointer,
				   "mode must be one of off, warn, deny");
	if (found < 0)
		return config_fail(err, NULL, pointer,
				   "mode must be one of off, warn, deny, mutate");
	*mode = (enum rule_mode)found;
	return 0;
}

/* One entry of "rules": the settings of the rule `info`. */
static int rule_settings_apply(struct config *cfg,
			       const struct rule_info *info, json_t *settings,
			       const char *pointer, struct rules_error *err)
{
	const char *key;
	json_t *value;

	if (json_is_null(settings))
		return 0;
	/* the short form: `rule-id: mode` */
	if (json_is_string(settings) || json_is_false(settings))
		return rule_mode_read(info, settings, pointer,
				      &cfg->mode[info->id], err);
	if (!json_is_object(settings))
		return config_fail(err, NULL, pointer,
				   "the settings of rule '%s' must be a mode or a mapping",
				   info->name);
	json_object_foreach(settings, key, value) {
		char *at = json_pointer_join(pointer, key);
		int rc;

		if (!at)
			return config_fail_oom(err, pointer);
		if (strcmp(key, "mode") != 0)
			return config_fail_key(err, at, pointer, "key", key, "");
		rc = rule_mode_read(info, value, at, &cfg->mode[info->id], err);
		free(at);
		if (rc)
			return -1;
	}
	return 0;
}

static int rules_apply_section(struct config *cfg, json_t *rules,
			       const char *pointer, struct rules_error *err)
{
	const char *key;
	json_t *settings;

	if (json_is_null(rules))
		return 0;
	if (!json_is_object(rules))
		return config_fail(err, NULL, pointer,
				   "rules must be a mapping of rule ids to settings");
	json_object_foreach(rules, key, settings) {
		const struct rule_info *info = rule_info_find(key);
		char *at = json_pointer_join(pointer, key);
		int rc;

		if (!at)
			return config_fail_oom(err, pointer);
		if (!info)
			return config_fail_key(err, at, pointer, "rule", key,
					       "");
		rc = rule_settings_apply(cfg, info, settings, at, err);
		free(at);
		if (rc)
			return -1;
	}
	return 0;
}

/*
 * Applies one section. A section left empty in YAML (every key under it
 * commented out) reads as null and changes nothing.
 */
static int section_apply(struct config *cfg,
			 const struct config_section *section, json_t *body,
			 const char *pointer, struct rules_error *err)
{
	const char *key;
	json_t *value;

	if (json_is_null(body))
		return 0;
	if (!json_is_object(body))
		return config_fail(err, NULL, pointer, "%s must be a mapping",
				   section->key);
	json_object_foreach(body, key, value) {
		const struct config_field *f = section->fields;
		char *at = json_pointer_join(pointer, key);
		int rc;

		if (!at)
			return config_fail_oom(err, pointer);
		while (f->key && strcmp(f->key, key) != 0)
			f++;
		if (!f->key)
			return config_fail_key(err, at, pointer, "key", key, "");
		rc = field_apply(cfg, f, value, at, err);
		free(at);
		if (rc)
			return -1;
	}
	return 0;
}

const char *rules_target_name(enum rules_target target)
{
	static const char *names[] = { "device-plugin", "dra" };

	return (unsigned)target < 2 ? names[target] : "?";
}

int rules_target_find(const char *name)
{
	for (int t = RULES_TARGET_DEVICE_PLUGIN; name && t <= RULES_TARGET_DRA;
	     t++)
		if (strcmp(name, rules_target_name((enum rules_target)t)) == 0)
			return t;
	return -1;
}

static int target_apply(struct config *cfg, json_t *value,
			const char *pointer, struct rules_error *err)
{
	int target = rules_target_find(json_string_value(value));

	if (target < 0)
		return config_fail(err, NULL, pointer,
				   "target must be one of device-plugin, dra");
	cfg->target = (enum rules_target)target;
	return 0;
}

/* Applies `doc` to `cfg`, which may be left half changed on failure. */
static int config_apply_all(struct config *cfg, json_t *doc,
			    struct rules_error *err)
{
	const char *key;
	json_t *body;

	json_object_foreach(doc, key, body) {
		const struct config_section *s = config_sections;
		char *at = json_pointer_join("", key);
		int rc;

		if (!at)
			return config_fail_oom(err, "");
		while (s->key && strcmp(s->key, key) != 0)
			s++;
		if (strcmp(key, "rules") == 0)
			rc = rules_apply_section(cfg, body, at, err);
		else if (strcmp(key, "target") == 0)
			rc = target_apply(cfg, body, at, err);
		else if (s->key)
			rc = section_apply(cfg, s, body, at, err);
		else
			return config_fail_key(err, at, "", "key", key, "");
		free(at);
		if (rc)
			return -1;
	}
	return 0;
}

/*
 * A stale-annotation prefix that matches an annotation gpumend writes or
 * reads would make the sharing rule remove gpumend's own bookkeeping on
 * the next run.
 */
static int stale_prefixes_coherent(const struct config *cfg,
				   struct rules_error *err)
{
	const char *const own[] = {
		cfg->memory_request_annotation, cfg->models_annotation,
		cfg->skip_annotation, cfg->skip_rules_annotation,
		cfg->mutations_annotation,
	};
	const struct string_list *prefixes = &cfg->stale_annotation_prefixes;

	for (size_t i = 0; i < prefixes->n; i++) {
		size_t len = strlen(prefixes->items[i]);

		for (size_t k = 0; k < sizeof(own) / sizeof(own[0]); k++) {
			char at[64];

			if (!own[k] || strncmp(own[k], prefixes->items[i], len))
				continue;
			snprintf(at, sizeof(at),
				 "/sharing/staleAnnotationPrefixes/%zu", i);
			return config_fail(err, NULL, at,
					   "prefix '%s' matches gpumend's own annotation '%s'",
					   prefixes->items[i], own[k]);
		}
	}
	return 0;
}

/*
 * The resources gpumend writes must not be ones it rewrites, or a second
 * run would change its own result (the rules must be idempotent).
 */
static int config_coherent(const struct config *cfg, struct rules_error *err)
{
	const struct {
		const char *name, *pointer;
	} targets[] = {
		{ cfg->gpu_resource, "/resources/gpu" },
		{ cfg->shared_gpu_resource, "/resources/sharedGPU" },
		{ cfg->gpu_memory_resource, "/resources/gpuMemory" },
	};

	for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
		const char *name = targets[t].name;
		int legacy = strcmp(name, cfg->legacy_gpu_resource) == 0 ||
			     is_count_resource(cfg, name) ||
			     string_list_has(&cfg->compute_resources, name) ||
			     string_list_has(&cfg->vendor_gpu_resources, name);

		for (size_t i = 0; i < cfg->n_memory_resources; i++)
			legacy |= strcmp(name, cfg->memory_resources[i].name) == 0;
		if (legacy)
			return config_fail(err, NULL, targets[t].pointer,
					   "'%s' is a legacy resource gpumend rewrites; it cannot be a target",
					   name);
	}
	for (size_t i = 0; i < cfg->vendor_gpu_resources.n; i++) {
		const char *name = cfg->vendor_gpu_resources.items[i];
		int shared = strcmp(name, cfg->legacy_gpu_resource) == 0 ||
			     is_count_resource(cfg, name) ||
			     string_list_has(&cfg->compute_resources, name);
		char at[48];

		for (size_t m = 0; m < cfg->n_memory_resources; m++)
			shared |= strcmp(name, cfg->memory_resources[m].name) == 0;
		if (!shared)
			continue;
		/* two rules would rewrite the same request */
		snprintf(at, sizeof(at), "/resources/vendorGPUs/%zu", i);
		return config_fail(err, NULL, at,
				   "'%s' is also a legacy GPU or sharing resource",
				   name);
	}
	if (strcmp(cfg->gpu_product_label, cfg->legacy_gpu_name_label) == 0)
		return config_fail(err, NULL, "/labels/gpuProduct",
				   "'%s' is the legacy label gpumend rewrites; it cannot be a target",
				   cfg->gpu_product_label);
	return stale_prefixes_coherent(cfg, err);
}

int config_apply(struct config *cfg, json_t *doc, struct rules_error *err)
{
	struct config *next, swap;

	if (err)
		err->pointer[0] = err->message[0] = '\0';
	/* an empty config file */
	if (!doc || json_is_null(doc))
		return 0;
	if (!json_is_object(doc))
		return config_fail(err, NULL, "", "the config must be a mapping");
	if (!(next = config_dup(cfg)))
		return config_fail_oom(err, "");
	if (config_apply_all(next, doc, err) || config_coherent(next, err)) {
		config_free(next);
		return -1;
	}
	if (patterns_prepare(next)) {
		config_free(next);
		return config_fail_oom(err, "");
	}
	swap = *cfg;
	*cfg = *next;
	*next = swap;
	config_free(next);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Printing                                                            */

/* Sets `key` of `obj` to `value_new` (stolen); -1 when either failed. */
static int object_set_new(json_t *obj, const char *key, json_t *value_new)
{
	if (!value_new)
		return -1;
	return json_object_set_new(obj, key, value_new);
}

static json_t *string_or_null(const char *s)
{
	return s ? json_text(s) : json_null();
}

static json_t *string_list_to_json(const struct string_list *list)
{
	json_t *array = json_array();

	for (size_t i = 0; array && i < list->n; i++) {
		if (json_array_append_new(array, json_text(list->items[i]))) {
			json_decref(array);
			return NULL;
		}
	}
	return array;
}

static json_t *field_to_json(const struct config *cfg,
			     const struct config_field *f)
{
	json_t *map;

	switch (f->kind) {
	case FIELD_NAME:
	case FIELD_SUFFIX:
	case FIELD_OBJECT_NAME:
		return string_or_null(*CONST_MEMBER(cfg, f, char *));
	case FIELD_NODE_SELECTORS:
	case FIELD_COMPONENTS: {
		const struct text_map *pairs = CONST_MEMBER(cfg, f,
							    struct text_map);

		if (!(map = json_object()))
			return NULL;
		for (size_t i = 0; i < pairs->n; i++)
			if (object_set_new(map, pairs->items[i].key,
					   json_text(pairs->items[i].value)))
				goto out_free_map;
		return map;
	}
	case FIELD_NAME_LIST:
	case FIELD_TEXT_LIST:
		return string_list_to_json(CONST_MEMBER(cfg, f,
							struct string_list));
	case FIELD_STRATEGY:
		return json_text(sharing_strategy_name(cfg->strategy));
	case FIELD_MEMORY_RESOURCES:
		if (!(map = json_object()))
			return NULL;
		for (size_t i = 0; i < cfg->n_memory_resources; i++) {
			const struct memory_resource *m =
				&cfg->memory_resources[i];
			char unit[32];

			if (m->unit_mib == 1024)
				snprintf(unit, sizeof(unit), "GiB");
			else if (m->unit_mib == 1)
				snprintf(unit, sizeof(unit), "MiB");
			else
				snprintf(unit, sizeof(unit), "%lldMiB",
					 m->unit_mib);
			if (object_set_new(map, m->name, json_text(unit)))
				goto out_free_map;
		}
		return map;
	case FIELD_NAMESPACE_MODELS:
		if (!(map = json_object()))
			return NULL;
		for (size_t i = 0; i < cfg->n_namespace_models; i++) {
			const struct namespace_models *ns =
				&cfg->namespace_models[i];

			if (object_set_new(map, ns->namespace_name,
					   string_list_to_json(&ns->models)))
				goto out_free_map;
		}
		return map;
	case FIELD_SIZE:
	case FIELD_BYTES:
		return json_integer((json_int_t)*CONST_MEMBER(cfg, f, size_t));
	case FIELD_INT:
	case FIELD_TIMEOUT:
		return json_integer(*CONST_MEMBER(cfg, f, int));
	case FIELD_FAILURE_POLICY:
		return json_text(cfg->failure_allow ? "allow" : "deny");
	case FIELD_BOOL:
		return json_boolean(*CONST_MEMBER(cfg, f, int));
	case FIELD_CUSTOM_RESOURCES:
		if (!(map = json_array()))
			return NULL;
		for (size_t i = 0; i < cfg->n_custom_resources; i++) {
			const struct custom_resource *cr =
				&cfg->custom_resources[i];

			if (json_array_append_new(map, json_pack("{s:o?,s:o?,s:o?}",
					"group", json_text(cr->group),
					"resources", string_list_to_json(&cr->resources),
					"podSpecs", string_list_to_json(&cr->pod_specs))))
				goto out_free_map;
		}
		return map;
	}
	return NULL;
out_free_map:
	json_decref(map);
	return NULL;
}

static json_t *rules_to_json(const struct config *cfg)
{
	json_t *rules = json_object();

	for (int r = 0; rules && r < RULE_COUNT; r++) {
		json_t *settings = json_object();

		if (object_set_new(rules, rule_info_get((enum rule_id)r)->name,
				   settings) ||
		    object_set_new(settings, "mode",
				   json_text(rule_mode_name(cfg->mode[r])))) {
			json_decref(rules);
			return NULL;
		}
	}
	return rules;
}

json_t *config_to_json(const struct config *cfg)
{
	json_t *doc = json_object();

	if (!doc ||
	    object_set_new(doc, "target",
			   json_text(rules_target_name(cfg->target))) ||
	    object_set_new(doc, "rules", rules_to_json(cfg)))
		goto out_free_doc;
	for (const struct config_section *s = config_sections; s->key; s++) {
		json_t *body = json_object();

		if (object_set_new(doc, s->key, body))
			goto out_free_doc;
		for (const struct config_field *f = s->fields; f->key; f++)
			if (object_set_new(body, f->key, field_to_json(cfg, f)))
				goto out_free_doc;
	}
	return doc;
out_free_doc:
	json_decref(doc);
	return NULL;
}
