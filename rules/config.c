/*
 * config.c - the configuration: built-in defaults, loading a config file's
 * parsed form on top of them, and printing it back.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

static void string_list_free(struct string_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->items[i]);
	free(list->items);
	list->items = NULL;
	list->n = 0;
}

/* Fills `list` with copies of the NULL-terminated `items`. */
static int string_list_set(struct string_list *list, const char *const *items)
{
	size_t n = 0;

	while (items[n])
		n++;
	string_list_free(list);
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

void config_free(struct config *cfg)
{
	if (!cfg)
		return;
	free(cfg->legacy_gpu_resource);
	free(cfg->gpu_resource);
	free(cfg->shared_gpu_resource);
	free(cfg->gpu_memory_resource);
	free(cfg->legacy_gpu_name_label);
	free(cfg->gpu_product_label);
	free(cfg->sharing_strategy_label);
	for (size_t i = 0; i < cfg->n_memory_resources; i++)
		free(cfg->memory_resources[i].name);
	free(cfg->memory_resources);
	string_list_free(&cfg->count_resources);
	for (size_t i = 0; i < cfg->n_share_selectors; i++) {
		free(cfg->share_selectors[i].key);
		free(cfg->share_selectors[i].value);
	}
	free(cfg->share_selectors);
	string_list_free(&cfg->share_schedulers);
	string_list_free(&cfg->stale_annotation_prefixes);
	free(cfg->sharing_label);
	free(cfg->memory_request_annotation);
	string_list_free(&cfg->obsolete_host_paths);
	string_list_free(&cfg->ambiguous_host_paths);
	string_list_free(&cfg->ambiguous_mount_paths);
	string_list_free(&cfg->gpu_images);
	free(cfg->models_annotation);
	for (size_t i = 0; i < cfg->n_namespace_models; i++) {
		free(cfg->namespace_models[i].namespace_name);
		string_list_free(&cfg->namespace_models[i].models);
	}
	free(cfg->namespace_models);
	free(cfg->skip_annotation);
	free(cfg->skip_rules_annotation);
	free(cfg->mutations_annotation);
	free(cfg);
}

static const char *const default_obsolete_host_paths[] = {
	"/usr/lib/nvidia-[0-9]*",
	"/usr/local/nvidia",
	"/usr/local/nvidia/*",
	"/var/lib/nvidia-docker/volumes/nvidia_driver/*",
	"/usr/lib64/nvidia",
	"/usr/lib64/nvidia/*",
	"*/libcuda.so*",
	"*/libnvidia-*.so*",
	NULL
};

static const char *const default_ambiguous_host_paths[] = {
	"/usr/bin", "/bin", "/usr/lib", "/usr/lib64", "/usr/lib/x86_64-linux-gnu",
	NULL
};

static const char *const default_ambiguous_mount_paths[] = {
	"/usr/local/nvidia", "/usr/local/nvidia/*", NULL
};

static const char *const default_gpu_images[] = {
	"nvidia/cuda", "nvidia/cuda:*", "*/nvidia/cuda", "*/nvidia/cuda:*",
	"nvcr.io/*", "*:*-gpu", "*:*-gpu-*", NULL
};

static const char *const default_count_resources[] = {
	"volcano.sh/gpu-number", NULL
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
	};
	static const struct {
		const char *key, *value;
	} selectors[] = {
		{ "gpushare", "true" },
		{ "gpu.cattle.io/type", "share" },
	};

	if (!cfg)
		return NULL;
	for (int r = 0; r < RULE_COUNT; r++)
		cfg->mode[r] = rule_info_get((enum rule_id)r)->default_mode;
	cfg->strategy = SHARING_TIME_SLICING;
	cfg->max_document_bytes = 8u << 20;
	cfg->max_depth = 128;
	cfg->max_alias_nodes = 100000;
	cfg->failure_allow = 1;

	if (!(cfg->legacy_gpu_resource = strdup("alpha.kubernetes.io/nvidia-gpu")) ||
	    !(cfg->gpu_resource = strdup("nvidia.com/gpu")) ||
	    !(cfg->shared_gpu_resource = strdup("nvidia.com/gpu.shared")) ||
	    !(cfg->gpu_memory_resource = strdup("nvidia.com/gpumem")) ||
	    !(cfg->legacy_gpu_name_label = strdup("alpha.kubernetes.io/nvidia-gpu-name")) ||
	    !(cfg->gpu_product_label = strdup("nvidia.com/gpu.product")) ||
	    !(cfg->sharing_strategy_label = strdup("nvidia.com/gpu.sharing-strategy")) ||
	    !(cfg->sharing_label = strdup("gpumend.io/gpu-sharing")) ||
	    !(cfg->memory_request_annotation = strdup("gpumend.io/gpu-memory-request")) ||
	    !(cfg->models_annotation = strdup("gpumend.io/gpu-models")) ||
	    !(cfg->skip_annotation = strdup("gpumend.io/skip")) ||
	    !(cfg->skip_rules_annotation = strdup("gpumend.io/skip-rules")) ||
	    !(cfg->mutations_annotation = strdup("gpumend.io/mutations")))
		goto out_free;

	cfg->memory_resources = calloc(3, sizeof(*cfg->memory_resources));
	if (!cfg->memory_resources)
		goto out_free;
	for (size_t i = 0; i < 3; i++) {
		cfg->memory_resources[i].unit_mib = memory[i].unit_mib;
		if (!(cfg->memory_resources[i].name = strdup(memory[i].name)))
			goto out_free;
		cfg->n_memory_resources++;
	}
	cfg->share_selectors = calloc(2, sizeof(*cfg->share_selectors));
	if (!cfg->share_selectors)
		goto out_free;
	for (size_t i = 0; i < 2; i++) {
		if (!(cfg->share_selectors[i].key = strdup(selectors[i].key)) ||
		    !(cfg->share_selectors[i].value = strdup(selectors[i].value)))
			goto out_free;
		cfg->n_share_selectors++;
	}
	if (string_list_set(&cfg->count_resources, default_count_resources) ||
	    string_list_set(&cfg->share_schedulers, default_share_schedulers) ||
	    string_list_set(&cfg->stale_annotation_prefixes,
			    default_stale_prefixes) ||
	    string_list_set(&cfg->obsolete_host_paths,
			    default_obsolete_host_paths) ||
	    string_list_set(&cfg->ambiguous_host_paths,
			    default_ambiguous_host_paths) ||
	    string_list_set(&cfg->ambiguous_mount_paths,
			    default_ambiguous_mount_paths) ||
	    string_list_set(&cfg->gpu_images, default_gpu_images))
		goto out_free;
	return cfg;
out_free:
	config_free(cfg);
	return NULL;
}
