/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_config.c - the configuration: applying a parsed config file, its
 * errors and their pointers, printing it back, the default file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "rules.h"

static int strings_same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int lists_same(const struct string_list *a, const struct string_list *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (!strings_same(a->items[i], b->items[i]))
			return 0;
	return 1;
}

/* Compares two configurations member by member, independently of
 * config_to_json, so that a member the schema forgets shows up. */
static int config_same(const struct config *a, const struct config *b)
{
	if (memcmp(a->mode, b->mode, sizeof(a->mode)) ||
	    a->target != b->target ||
	    !strings_same(a->dra_device_class, b->dra_device_class) ||
	    a->dra_consumable_capacity != b->dra_consumable_capacity ||
	    !strings_same(a->legacy_gpu_resource, b->legacy_gpu_resource) ||
	    !strings_same(a->gpu_resource, b->gpu_resource) ||
	    !strings_same(a->shared_gpu_resource, b->shared_gpu_resource) ||
	    !strings_same(a->gpu_memory_resource, b->gpu_memory_resource) ||
	    !lists_same(&a->vendor_gpu_resources, &b->vendor_gpu_resources) ||
	    !strings_same(a->gpu_present_label, b->gpu_present_label) ||
	    !strings_same(a->shared_product_suffix, b->shared_product_suffix) ||
	    a->max_gpu_memory_gib != b->max_gpu_memory_gib ||
	    !lists_same(&a->stack_images, &b->stack_images) ||
	    a->obsolete_components.n != b->obsolete_components.n ||
	    !strings_same(a->daemonset_priority_class,
			  b->daemonset_priority_class) ||
	    !strings_same(a->default_priority_class, b->default_priority_class) ||
	    !strings_same(a->legacy_gpu_name_label, b->legacy_gpu_name_label) ||
	    !strings_same(a->gpu_product_label, b->gpu_product_label) ||
	    !strings_same(a->sharing_strategy_label, b->sharing_strategy_label) ||
	    a->strategy != b->strategy ||
	    a->n_memory_resources != b->n_memory_resources ||
	    !lists_same(&a->count_resources, &b->count_resources) ||
	    a->share_selectors.n != b->share_selectors.n ||
	    !lists_same(&a->share_schedulers, &b->share_schedulers) ||
	    !lists_same(&a->stale_annotation_prefixes,
			&b->stale_annotation_prefixes) ||
	    !strings_same(a->sharing_label, b->sharing_label) ||
	    !strings_same(a->memory_request_annotation,
			  b->memory_request_annotation) ||
	    !lists_same(&a->obsolete_host_paths, &b->obsolete_host_paths) ||
	    !lists_same(&a->ambiguous_host_paths, &b->ambiguous_host_paths) ||
	    !lists_same(&a->ambiguous_mount_paths, &b->ambiguous_mount_paths) ||
	    !lists_same(&a->vendor_driver_dirs, &b->vendor_driver_dirs) ||
	    !lists_same(&a->gpu_images, &b->gpu_images) ||
	    !strings_same(a->models_annotation, b->models_annotation) ||
	    a->n_namespace_models != b->n_namespace_models ||
	    !strings_same(a->skip_annotation, b->skip_annotation) ||
	    !strings_same(a->skip_rules_annotation, b->skip_rules_annotation) ||
	    !strings_same(a->mutations_annotation, b->mutations_annotation) ||
	    !lists_same(&a->deny_opt_out_namespaces,
			&b->deny_opt_out_namespaces) ||
	    a->timeout_seconds != b->timeout_seconds ||
	    a->max_document_bytes != b->max_document_bytes ||
	    a->max_depth != b->max_depth ||
	    a->max_alias_nodes != b->max_alias_nodes ||
	    a->max_values != b->max_values ||
	    a->failure_allow != b->failure_allow)
		return 0;
	for (size_t i = 0; i < a->n_memory_resources; i++)
		if (!strings_same(a->memory_resources[i].name,
				  b->memory_resources[i].name) ||
		    a->memory_resources[i].unit_mib != b->memory_resources[i].unit_mib)
			return 0;
	for (size_t i = 0; i < a->share_selectors.n; i++)
		if (!strings_same(a->share_selectors.items[i].key,
				  b->share_selectors.items[i].key) ||
		    !strings_same(a->share_selectors.items[i].value,
				  b->share_selectors.items[i].value))
			return 0;
	for (size_t i = 0; i < a->obsolete_components.n; i++)
		if (!strings_same(a->obsolete_components.items[i].key,
				  b->obsolete_components.items[i].key) ||
		    !strings_same(a->obsolete_components.items[i].value,
				  b->obsolete_components.items[i].value))
			return 0;
	for (size_t i = 0; i < a->n_namespace_models; i++)
		if (!strings_same(a->namespace_models[i].namespace_name,
				  b->namespace_models[i].namespace_name) ||
		    !lists_same(&a->namespace_models[i].models,
				&b->namespace_models[i].models))
			return 0;
	return 1;
}

/* Applies the JSON text `text` to `cfg`; returns config_apply's result. */
static int apply_text(struct config *cfg, const char *text,
		      struct rules_error *err, int *failures)
{
	json_error_t jerr;
	json_t *doc = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	int rc;

	if (!doc) {
		fprintf(stderr, "  test config does not parse: %s\n", jerr.text);
		(*failures)++;
		return -2;
	}
	rc = config_apply(cfg, doc, err);
	json_decref(doc);
	return rc;
}

TEST(config_defaults_round_trip)
{
	struct config *def = config_new_default();
	struct config *cfg = config_new_default();
	struct rules_error err;
	json_t *doc = config_to_json(def), *again;

	CHECK(def && cfg && doc);
	CHECK(config_apply(cfg, doc, &err) == 0);
	CHECK(config_same(cfg, def));
	again = config_to_json(cfg);
	CHECK(json_equal(doc, again));
	json_decref(again);
	json_decref(doc);
	config_free(cfg);
	config_free(def);
}

/* Every key of the schema, each set away from its default. */
static const char every_key[] =
	"{\"target\": \"dra\", \"rules\": {"
	"  \"deprecated-workload-api\": {\"mode\": \"off\"},"
	"  \"dra-unsupported\": {\"mode\": \"deny\"},"
	"  \"legacy-gpu-resource\": {\"mode\": \"warn\"},"
	"  \"legacy-gpu-node-label\": {\"mode\": \"deny\"},"
	"  \"legacy-affinity-annotation\": {\"mode\": \"off\"},"
	"  \"gpu-model-affinity\": {\"mode\": \"warn\"},"
	"  \"gpu-sharing\": {\"mode\": \"deny\"},"
	"  \"obsolete-cuda-hostpath\": {\"mode\": \"warn\"},"
	"  \"gpu-visibility\": {\"mode\": \"mutate\"},"
	"  \"removed-gpu-feature-gate\": {\"mode\": \"deny\"},"
	"  \"critical-pod-annotation\": {\"mode\": \"warn\"},"
	"  \"obsolete-gpu-component\": {\"mode\": \"deny\"},"
	"  \"legacy-scheduler-config\": {\"mode\": \"off\"},"
	"  \"invalid-resource\": {\"mode\": \"deny\"},"
	"  \"removed-api\": {\"mode\": \"warn\"}},"
	" \"resources\": {\"legacyGPU\": \"old.example/gpu\","
	"  \"gpu\": \"example.com/gpu\", \"sharedGPU\": \"example.com/gpu\","
	"  \"gpuMemory\": \"example.com/gpumem\","
	"  \"vendorGPUs\": [\"example.com/whole-gpu\"]},"
	" \"labels\": {\"legacyGPUName\": \"old.example/gpu-name\","
	"  \"gpuProduct\": \"example.com/product\","
	"  \"sharingStrategy\": \"example.com/sharing\","
	"  \"gpuPresent\": \"example.com/gpu\","
	"  \"sharedProductSuffix\": \"_shared\"},"
	" \"sharing\": {\"strategy\": \"hami\","
	"  \"memoryResources\": {\"example.com/mem-mb\": \"MiB\","
	"   \"example.com/mem-gb\": \"GiB\", \"example.com/mem-q\": \"256MiB\"},"
	"  \"countResources\": [\"example.com/count\", \"example.com/n\"],"
	"  \"computeResources\": [\"example.com/core\"],"
	"  \"nodeSelectors\": {\"share\": \"yes\"},"
	"  \"schedulerNames\": [\"my-scheduler\"],"
	"  \"staleAnnotationPrefixes\": [\"OLD_\", \"STALE_\"],"
	"  \"label\": \"example.com/sharing\","
	"  \"memoryAnnotation\": \"example.com/memory\","
	"  \"maxGPUMemoryGiB\": 96},"
	" \"hostPaths\": {\"obsolete\": [\"/opt/nvidia/*\"],"
	"  \"ambiguous\": [\"/opt/bin\", \"/opt/lib\"],"
	"  \"ambiguousMountPaths\": [\"/opt/nvidia\"],"
	"  \"vendorDriverDirs\": [\"/var/lib/vendor/nvidia\"]},"
	" \"visibility\": {\"images\": [\"example.com/cuda:*\"],"
	"  \"stackImages\": [\"example.com/plugin:*\"]},"
	" \"components\": {\"obsolete\": {\"old.example/plugin:*\": \"example.com/plugin\"}},"
	" \"priority\": {\"daemonSetClass\": \"node-agents\","
	"  \"defaultClass\": \"important.example.com\"},"
	" \"models\": {\"annotation\": \"example.com/models\","
	"  \"namespaces\": {\"ml-team\": [\"Tesla K80\", \"A100-SXM4-80GB\"],"
	"   \"infer\": [\"Tesla T4\"]}},"
	" \"dra\": {\"deviceClassName\": \"gpu.example.com\","
	" \"consumableCapacity\": true},"
	" \"annotations\": {\"skip\": \"example.com/skip\","
	"  \"skipRules\": \"example.com/skip-rules\","
	"  \"mutations\": \"example.com/mutations\","
	"  \"denyOptOutNamespaces\": [\"sandbox\"]},"
	" \"limits\": {\"maxDocumentBytes\": 1048576, \"maxDepth\": 64,"
	"  \"maxAliasNodes\": 5000, \"maxValues\": 1000, \"maxReviewSteps\": 1000000},"
	" \"webhook\": {\"failurePolicy\": \"deny\", \"timeoutSeconds\": 5,"
	"  \"customResources\": [{\"group\": \"example.com\","
	"   \"resources\": [\"trainjobs\", \"evaljobs\"],"
	"   \"podSpecs\": [\"spec.workers.*.template.spec\", \"spec.pod\"]}]}}";

TEST(config_every_key_set_and_read_back)
{
	struct config *cfg = config_new_default();
	struct config *def = config_new_default();
	struct rules_error err;
	json_t *doc = json_loads(every_key, 0, NULL), *got, *defaults;

	CHECK(cfg && def && doc);
	CHECK(config_apply(cfg, doc, &err) == 0);

	CHECK(cfg->mode[RULE_DEPRECATED_WORKLOAD_API] == RULE_MODE_OFF);
	CHECK(cfg->mode[RULE_LEGACY_GPU_RESOURCE] == RULE_MODE_WARN);
	CHECK(cfg->mode[RULE_LEGACY_GPU_NODE_LABEL] == RULE_MODE_DENY);
	CHECK(cfg->mode[RULE_LEGACY_AFFINITY_ANNOTATION] == RULE_MODE_OFF);
	CHECK(cfg->mode[RULE_GPU_MODEL_AFFINITY] == RULE_MODE_WARN);
	CHECK(cfg->mode[RULE_GPU_SHARING] == RULE_MODE_DENY);
	CHECK(cfg->mode[RULE_OBSOLETE_CUDA_HOSTPATH] == RULE_MODE_WARN);
	CHECK(cfg->mode[RULE_GPU_VISIBILITY] == RULE_MODE_MUTATE);
	CHECK(cfg->mode[RULE_REMOVED_GPU_FEATURE_GATE] == RULE_MODE_DENY);
	CHECK(cfg->mode[RULE_CRITICAL_POD_ANNOTATION] == RULE_MODE_WARN);
	CHECK(cfg->mode[RULE_OBSOLETE_GPU_COMPONENT] == RULE_MODE_DENY);
	CHECK(cfg->mode[RULE_LEGACY_SCHEDULER_CONFIG] == RULE_MODE_OFF);

	CHECK_STR(cfg->legacy_gpu_resource, "old.example/gpu");
	CHECK_STR(cfg->gpu_resource, "example.com/gpu");
	CHECK_STR(cfg->shared_gpu_resource, "example.com/gpu");
	CHECK_STR(cfg->gpu_memory_resource, "example.com/gpumem");
	CHECK_STR(cfg->legacy_gpu_name_label, "old.example/gpu-name");
	CHECK_STR(cfg->gpu_product_label, "example.com/product");
	CHECK_STR(cfg->sharing_strategy_label, "example.com/sharing");
	CHECK_STR(cfg->gpu_present_label, "example.com/gpu");
	CHECK_STR(cfg->shared_product_suffix, "_shared");
	CHECK(cfg->vendor_gpu_resources.n == 1);
	if (cfg->vendor_gpu_resources.n == 1)
		CHECK_STR(cfg->vendor_gpu_resources.items[0], "example.com/whole-gpu");
	CHECK(cfg->max_gpu_memory_gib == 96);
	CHECK(cfg->stack_images.n == 1);
	CHECK(cfg->obsolete_components.n == 1);
	if (cfg->obsolete_components.n == 1) {
		CHECK_STR(cfg->obsolete_components.items[0].key, "old.example/plugin:*");
		CHECK_STR(cfg->obsolete_components.items[0].value, "example.com/plugin");
	}
	CHECK_STR(cfg->daemonset_priority_class, "node-agents");
	CHECK_STR(cfg->default_priority_class, "important.example.com");

	CHECK(cfg->strategy == SHARING_HAMI);
	CHECK(cfg->n_memory_resources == 3);
	if (cfg->n_memory_resources == 3) {
		CHECK_STR(cfg->memory_resources[0].name, "example.com/mem-mb");
		CHECK(cfg->memory_resources[0].unit_mib == 1);
		CHECK_STR(cfg->memory_resources[1].name, "example.com/mem-gb");
		CHECK(cfg->memory_resources[1].unit_mib == 1024);
		CHECK(cfg->memory_resources[2].unit_mib == 256);
	}
	CHECK(cfg->compute_resources.n == 1);
	CHECK(cfg->count_resources.n == 2);
	if (cfg->count_resources.n == 2) {
		CHECK_STR(cfg->count_resources.items[0], "example.com/count");
		CHECK_STR(cfg->count_resources.items[1], "example.com/n");
	}
	CHECK(cfg->share_selectors.n == 1);
	if (cfg->share_selectors.n == 1) {
		CHECK_STR(cfg->share_selectors.items[0].key, "share");
		CHECK_STR(cfg->share_selectors.items[0].value, "yes");
	}
	CHECK(cfg->share_schedulers.n == 1);
	if (cfg->share_schedulers.n == 1)
		CHECK_STR(cfg->share_schedulers.items[0], "my-scheduler");
	CHECK(cfg->stale_annotation_prefixes.n == 2);
	if (cfg->stale_annotation_prefixes.n == 2)
		CHECK_STR(cfg->stale_annotation_prefixes.items[1], "STALE_");
	CHECK_STR(cfg->sharing_label, "example.com/sharing");
	CHECK_STR(cfg->memory_request_annotation, "example.com/memory");

	CHECK(cfg->obsolete_host_paths.n == 1);
	if (cfg->obsolete_host_paths.n == 1)
		CHECK_STR(cfg->obsolete_host_paths.items[0], "/opt/nvidia/*");
	CHECK(cfg->ambiguous_host_paths.n == 2);
	if (cfg->ambiguous_host_paths.n == 2)
		CHECK_STR(cfg->ambiguous_host_paths.items[1], "/opt/lib");
	CHECK(cfg->vendor_driver_dirs.n == 1);
	if (cfg->vendor_driver_dirs.n == 1)
		CHECK_STR(cfg->vendor_driver_dirs.items[0], "/var/lib/vendor/nvidia");
	CHECK(cfg->ambiguous_mount_paths.n == 1);
	if (cfg->ambiguous_mount_paths.n == 1)
		CHECK_STR(cfg->ambiguous_mount_paths.items[0], "/opt/nvidia");
	CHECK(cfg->gpu_images.n == 1);
	if (cfg->gpu_images.n == 1)
		CHECK_STR(cfg->gpu_images.items[0], "example.com/cuda:*");

	CHECK_STR(cfg->models_annotation, "example.com/models");
	CHECK(cfg->n_namespace_models == 2);
	if (cfg->n_namespace_models == 2) {
		const struct namespace_models *ns = &cfg->namespace_models[0];

		CHECK_STR(ns->namespace_name, "ml-team");
		CHECK(ns->models.n == 2);
		/* stored as written: the rule normalises them */
		if (ns->models.n == 2) {
			CHECK_STR(ns->models.items[0], "Tesla K80");
			CHECK_STR(ns->models.items[1], "A100-SXM4-80GB");
		}
		CHECK_STR(cfg->namespace_models[1].namespace_name, "infer");
	}

	CHECK(cfg->target == RULES_TARGET_DRA);
	CHECK_STR(cfg->dra_device_class, "gpu.example.com");
	CHECK(cfg->dra_consumable_capacity == 1);
	CHECK_STR(cfg->skip_annotation, "example.com/skip");
	CHECK_STR(cfg->skip_rules_annotation, "example.com/skip-rules");
	CHECK_STR(cfg->mutations_annotation, "example.com/mutations");
	CHECK(cfg->max_document_bytes == 1048576);
	CHECK(cfg->max_depth == 64);
	CHECK(cfg->max_alias_nodes == 5000);
	CHECK(cfg->max_values == 1000);
	CHECK(cfg->max_review_steps == 1000000);
	CHECK(cfg->failure_allow == 0);
	CHECK(cfg->timeout_seconds == 5);
	CHECK(cfg->deny_opt_out_namespaces.n == 1);
	if (cfg->deny_opt_out_namespaces.n == 1)
		CHECK_STR(cfg->deny_opt_out_namespaces.items[0], "sandbox");

	/* printing gives back exactly what was loaded, key for key */
	got = config_to_json(cfg);
	CHECK(json_equal(got, doc));
	defaults = config_to_json(def);
	CHECK(!json_equal(got, defaults));
	json_decref(defaults);

	/* and loading the printed form again changes nothing */
	CHECK(config_apply(def, got, &err) == 0);
	CHECK(config_same(def, cfg));
	json_decref(got);
	json_decref(doc);
	config_free(def);
	config_free(cfg);
}

TEST(config_only_present_keys_change)
{
	struct config *cfg = config_new_default();
	struct config *def = config_new_default();
	struct rules_error err;

	CHECK(apply_text(cfg, "{\"resources\": {\"sharedGPU\": \"nvidia.com/gpu.shared\"},"
			 " \"sharing\": {\"strategy\": \"mps\"}}", &err, failures) == 0);
	CHECK_STR(cfg->shared_gpu_resource, "nvidia.com/gpu.shared");
	CHECK(cfg->strategy == SHARING_MPS);
	/* put those two back: everything else must still be the default */
	CHECK(apply_text(cfg, "{\"resources\": {\"sharedGPU\": \"nvidia.com/gpu\"},"
			 " \"sharing\": {\"strategy\": \"time-slicing\"}}", &err,
			 failures) == 0);
	CHECK(config_same(cfg, def));

	/* applying twice on top: the second file wins for its keys only */
	CHECK(apply_text(cfg, "{\"limits\": {\"maxDepth\": 10}}", &err, failures) == 0);
	CHECK(apply_text(cfg, "{\"limits\": {\"maxAliasNodes\": 10}}", &err, failures) == 0);
	CHECK(cfg->max_depth == 10 && cfg->max_alias_nodes == 10);
	CHECK(cfg->max_document_bytes == def->max_document_bytes);
	config_free(def);
	config_free(cfg);
}

TEST(config_lists_and_maps_replace_wholesale)
{
	struct config *cfg = config_new_default();
	struct rules_error err;

	CHECK(apply_text(cfg, "{\"visibility\": {\"images\": [\"a/b\"]}}", &err,
			 failures) == 0);
	CHECK(cfg->gpu_images.n == 1);
	CHECK(apply_text(cfg, "{\"sharing\": {\"countResources\": [],"
			 " \"nodeSelectors\": {}, \"memoryResources\": {"
			 "\"aliyun.com/gpu-mem\": \"MiB\"}}}", &err, failures) == 0);
	CHECK(cfg->count_resources.n == 0);
	CHECK(cfg->share_selectors.n == 0);
	CHECK(cfg->n_memory_resources == 1);
	if (cfg->n_memory_resources == 1)
		CHECK(cfg->memory_resources[0].unit_mib == 1);
	CHECK(apply_text(cfg, "{\"models\": {\"namespaces\": {\"a\": [\"T4\"]}}}",
			 &err, failures) == 0);
	CHECK(apply_text(cfg, "{\"models\": {\"namespaces\": {\"b\": [\"K80\"]}}}",
			 &err, failures) == 0);
	CHECK(cfg->n_namespace_models == 1);
	if (cfg->n_namespace_models == 1)
		CHECK_STR(cfg->namespace_models[0].namespace_name, "b");
	CHECK(apply_text(cfg, "{\"models\": {\"namespaces\": {}}}", &err,
			 failures) == 0);
	CHECK(cfg->n_namespace_models == 0);
	config_free(cfg);
}

/* A stale prefix matching gpumend's own annotations is refused. */
TEST(config_stale_prefix_not_own_annotation)
{
	struct config *cfg = config_new_default();
	struct rules_error err;

	CHECK(apply_text(cfg, "{\"sharing\": {\"staleAnnotationPrefixes\":"
			 " [\"ALIYUN_\", \"gpumend.io/gpu-m\"]}}", &err,
			 failures) == -1);
	CHECK_STR(err.pointer, "/sharing/staleAnnotationPrefixes/1");
	CHECK_STR(err.message,
		  "prefix 'gpumend.io/gpu-m' matches gpumend's own annotation 'gpumend.io/gpu-memory-request'");
	CHECK(apply_text(cfg, "{\"sharing\": {\"staleAnnotationPrefixes\": [\"\"]}}",
			 &err, failures) == -1);
	CHECK(apply_text(cfg, "{\"sharing\": {\"staleAnnotationPrefixes\": [\"gpumend.io/old-\"]}}",
			 &err, failures) == 0);
	config_free(cfg);
}

TEST(config_empty_file_and_sections)
{
	struct config *cfg = config_new_default();
	struct config *def = config_new_default();
	struct rules_error err;

	CHECK(config_apply(cfg, NULL, &err) == 0);
	CHECK(apply_text(cfg, "null", &err, failures) == 0);
	CHECK(apply_text(cfg, "{}", &err, failures) == 0);
	/* a section whose keys are all commented out reads as null */
	CHECK(apply_text(cfg, "{\"rules\": null, \"sharing\": null}", &err,
			 failures) == 0);
	CHECK(apply_text(cfg, "{\"rules\": {\"gpu-sharing\": null}}", &err,
			 failures) == 0);
	CHECK(config_same(cfg, def));
	config_free(def);
	config_free(cfg);
}

TEST(config_rule_modes)
{
	struct config *cfg = config_new_default();
	struct rules_error err;

	CHECK(apply_text(cfg, "{\"rules\": {\"removed-gpu-feature-gate\":"
			 " {\"mode\": \"mutate\"}}}", &err, failures) == -1);
	CHECK_STR(err.pointer, "/rules/removed-gpu-feature-gate/mode");
	CHECK_STR(err.message, "rule 'removed-gpu-feature-gate' cannot mutate: "
		  "mode must be one of off, warn, deny");
	CHECK(cfg->mode[RULE_REMOVED_GPU_FEATURE_GATE] == RULE_MODE_WARN);

	CHECK(apply_text(cfg, "{\"rules\": {\"removed-gpu-feature-gate\":"
			 " {\"mode\": \"loud\"}}}", &err, failures) == -1);
	CHECK_STR(err.message, "mode must be one of off, warn, deny");

	CHECK(apply_text(cfg, "{\"rules\": {\"removed-gpu-feature-gate\":"
			 " {\"mode\": \"deny\"}, \"gpu-visibility\": {\"mode\": \"mutate\"}}}",
			 &err, failures) == 0);
	CHECK(cfg->mode[RULE_REMOVED_GPU_FEATURE_GATE] == RULE_MODE_DENY);
	CHECK(cfg->mode[RULE_GPU_VISIBILITY] == RULE_MODE_MUTATE);

	/* a YAML 1.1 reader makes an unquoted off into false */
	CHECK(apply_text(cfg, "{\"rules\": {\"gpu-sharing\": {\"mode\": false}}}",
			 &err, failures) == 0);
	CHECK(cfg->mode[RULE_GPU_SHARING] == RULE_MODE_OFF);
	CHECK(apply_text(cfg, "{\"rules\": {\"gpu-sharing\": {\"mode\": true}}}",
			 &err, failures) == -1);
	CHECK_STR(err.pointer, "/rules/gpu-sharing/mode");

	/* every rule id is accepted, every mode of a mutating rule too */
	for (int r = 0; r < RULE_COUNT; r++) {
		const struct rule_info *info = rule_info_get((enum rule_id)r);

		for (int m = RULE_MODE_OFF; m <= RULE_MODE_MUTATE; m++) {
			char text[256];
			int rc;

			snprintf(text, sizeof(text),
				 "{\"rules\": {\"%s\": {\"mode\": \"%s\"}}}",
				 info->name, rule_mode_name((enum rule_mode)m));
			rc = apply_text(cfg, text, &err, failures);
			if (m == RULE_MODE_MUTATE && !info->can_mutate) {
				CHECK(rc == -1);
			} else {
				CHECK(rc == 0);
				CHECK(cfg->mode[r] == (enum rule_mode)m);
			}
		}
	}
	config_free(cfg);
}

struct bad_case {
	const char *doc;
	const char *pointer;
	const char *message;
};

static const struct bad_case bad_cases[] = {
	{ "[]", "", "the config must be a mapping" },
	{ "\"rules\"", "", "the config must be a mapping" },
	{ "{\"foo\": 1}", "/foo", "unknown key 'foo'" },
	{ "{\"a/b~c\": 1}", "/a~1b~0c", "unknown key 'a/b~c'" },
	{ "{\"resources\": {\"gpus\": \"x\"}}", "/resources/gpus",
	  "unknown key 'gpus'" },
	{ "{\"resources\": []}", "/resources", "resources must be a mapping" },
	{ "{\"resources\": {\"gpu\": \"\"}}", "/resources/gpu",
	  "gpu must not be empty" },
	{ "{\"resources\": {\"gpu\": 3}}", "/resources/gpu",
	  "gpu must be a string: quote it" },
	{ "{\"resources\": {\"gpu\": null}}", "/resources/gpu",
	  "gpu must be a string" },
	{ "{\"resources\": {\"gpu\": \"a\\u0000b\"}}", "/resources/gpu",
	  "gpu must not contain NUL characters" },
	{ "{\"resources\": {\"gpu\": \"nvidia com/gpu\"}}", "/resources/gpu",
	  "'nvidia com/gpu' is not a valid label, annotation or resource name" },
	{ "{\"labels\": {\"gpuProduct\": \"Nvidia.com/gpu.product\"}}",
	  "/labels/gpuProduct",
	  "'Nvidia.com/gpu.product' is not a valid label, annotation or resource name" },
	{ "{\"annotations\": {\"skip\": \"gpumend.io/-skip\"}}",
	  "/annotations/skip",
	  "'gpumend.io/-skip' is not a valid label, annotation or resource name" },
	{ "{\"annotations\": {\"sk~ip\": \"x\"}}", "/annotations/sk~0ip",
	  "unknown key 'sk~ip'" },
	{ "{\"rules\": []}", "/rules",
	  "rules must be a mapping of rule ids to settings" },
	{ "{\"rules\": {\"nope\": {\"mode\": \"warn\"}}}", "/rules/nope",
	  "unknown rule 'nope'" },
	{ "{\"rules\": {\"gpu-visibility\": {\"mode\": \"loud\"}}}",
	  "/rules/gpu-visibility/mode",
	  "mode must be one of off, warn, deny, mutate" },
	{ "{\"rules\": {\"gpu-visibility\": {\"mode\": 1}}}",
	  "/rules/gpu-visibility/mode",
	  "mode must be one of off, warn, deny, mutate" },
	{ "{\"rules\": {\"gpu-visibility\": {\"mod\": \"warn\"}}}",
	  "/rules/gpu-visibility/mod", "unknown key 'mod'" },
	{ "{\"rules\": {\"gpu-visibility\": \"loud\"}}", "/rules/gpu-visibility",
	  "mode must be one of off, warn, deny, mutate" },
	{ "{\"rules\": {\"gpu-visibility\": 3}}", "/rules/gpu-visibility",
	  "the settings of rule 'gpu-visibility' must be a mode or a mapping" },
	{ "{\"sharing\": {\"strategy\": \"mig\"}}", "/sharing/strategy",
	  "strategy must be one of time-slicing, mps, hami, keep" },
	{ "{\"sharing\": {\"strategy\": null}}", "/sharing/strategy",
	  "strategy must be one of time-slicing, mps, hami, keep" },
	{ "{\"sharing\": {\"memoryResources\": {\"aliyun.com/gpu-mem\": \"GB\"}}}",
	  "/sharing/memoryResources/aliyun.com~1gpu-mem",
	  "the unit of 'aliyun.com/gpu-mem' must be MiB, GiB or a number of MiB such as 256MiB" },
	{ "{\"sharing\": {\"memoryResources\": {\"aliyun.com/gpu-mem\": \"0256MiB\"}}}",
	  "/sharing/memoryResources/aliyun.com~1gpu-mem",
	  "the unit of 'aliyun.com/gpu-mem' must be MiB, GiB or a number of MiB such as 256MiB" },
	{ "{\"sharing\": {\"memoryResources\": {\"aliyun.com/gpu-mem\": \"2097152MiB\"}}}",
	  "/sharing/memoryResources/aliyun.com~1gpu-mem",
	  "the unit of 'aliyun.com/gpu-mem' must be MiB, GiB or a number of MiB such as 256MiB" },
	{ "{\"sharing\": {\"memoryResources\": {\"aliyun.com/gpu-mem\": 1024}}}",
	  "/sharing/memoryResources/aliyun.com~1gpu-mem",
	  "the unit of 'aliyun.com/gpu-mem' must be MiB, GiB or a number of MiB such as 256MiB" },
	{ "{\"sharing\": {\"memoryResources\": {\"\": \"GiB\"}}}",
	  "/sharing/memoryResources/",
	  "a key of memoryResources must not be empty" },
	{ "{\"sharing\": {\"memoryResources\": {\"a b\": \"GiB\"}}}",
	  "/sharing/memoryResources/a b",
	  "'a b' is not a valid label, annotation or resource name" },
	{ "{\"sharing\": {\"memoryResources\": null}}", "/sharing/memoryResources",
	  "memoryResources must be a mapping (use {} for none)" },
	{ "{\"sharing\": {\"countResources\": \"volcano.sh/gpu-number\"}}",
	  "/sharing/countResources",
	  "countResources must be a list of strings (use [] for none)" },
	{ "{\"sharing\": {\"countResources\": [\"a.io/n\", \"\"]}}",
	  "/sharing/countResources/1",
	  "an item of countResources must not be empty" },
	{ "{\"sharing\": {\"countResources\": [\"a.io/n\", \"a.io/\"]}}",
	  "/sharing/countResources/1",
	  "'a.io/' is not a valid label, annotation or resource name" },
	{ "{\"sharing\": {\"nodeSelectors\": {\"gpushare\": true}}}",
	  "/sharing/nodeSelectors/gpushare",
	  "the value of 'gpushare' must be a string: quote it" },
	{ "{\"sharing\": {\"nodeSelectors\": {\"gpushare\": \"-bad\"}}}",
	  "/sharing/nodeSelectors/gpushare", "'-bad' is not a valid label value" },
	{ "{\"sharing\": {\"nodeSelectors\": {\"a..b/c\": \"x\"}}}",
	  "/sharing/nodeSelectors/a..b~1c",
	  "'a..b/c' is not a valid label, annotation or resource name" },
	{ "{\"sharing\": {\"nodeSelectors\": []}}", "/sharing/nodeSelectors",
	  "nodeSelectors must be a mapping (use {} for none)" },
	{ "{\"sharing\": {\"schedulerNames\": [\"\"]}}",
	  "/sharing/schedulerNames/0",
	  "an item of schedulerNames must not be empty" },
	{ "{\"sharing\": {\"staleAnnotationPrefixes\": [1]}}",
	  "/sharing/staleAnnotationPrefixes/0",
	  "an item of staleAnnotationPrefixes must be a string: quote it" },
	{ "{\"sharing\": {\"label\": \"\"}}", "/sharing/label",
	  "label must not be empty" },
	{ "{\"sharing\": {\"memoryAnnotation\": [\"x\"]}}",
	  "/sharing/memoryAnnotation", "memoryAnnotation must be a string" },
	{ "{\"hostPaths\": {\"obsolete\": [\"/x\", null]}}",
	  "/hostPaths/obsolete/1", "an item of obsolete must be a string" },
	{ "{\"hostPaths\": {\"ambiguous\": null}}", "/hostPaths/ambiguous",
	  "ambiguous must be a list of strings (use [] for none)" },
	{ "{\"hostPaths\": {\"ambiguousMountPaths\": [\"\"]}}",
	  "/hostPaths/ambiguousMountPaths/0",
	  "an item of ambiguousMountPaths must not be empty" },
	{ "{\"visibility\": {\"images\": {}}}", "/visibility/images",
	  "images must be a list of strings (use [] for none)" },
	{ "{\"visibility\": \"nvidia/cuda\"}", "/visibility",
	  "visibility must be a mapping" },
	{ "{\"models\": {\"annotation\": \"gpumend.io/gpu models\"}}",
	  "/models/annotation",
	  "'gpumend.io/gpu models' is not a valid label, annotation or resource name" },
	{ "{\"models\": {\"namespaces\": {\"ML_team\": [\"A100\"]}}}",
	  "/models/namespaces/ML_team", "'ML_team' is not a valid namespace name" },
	{ "{\"models\": {\"namespaces\": {\"a.b\": [\"A100\"]}}}",
	  "/models/namespaces/a.b", "'a.b' is not a valid namespace name" },
	{ "{\"models\": {\"namespaces\": {\"ml\": []}}}", "/models/namespaces/ml",
	  "namespace 'ml' must have a non-empty list of gpu models" },
	{ "{\"models\": {\"namespaces\": {\"ml\": \"A100\"}}}",
	  "/models/namespaces/ml",
	  "namespace 'ml' must have a non-empty list of gpu models" },
	{ "{\"models\": {\"namespaces\": {\"ml\": [\"A100\", 7]}}}",
	  "/models/namespaces/ml/1",
	  "a model of namespace 'ml' must be a string: quote it" },
	{ "{\"models\": {\"namespaces\": {\"ml\": [\"A100\", \"!!!\"]}}}",
	  "/models/namespaces/ml/1",
	  "gpu model '!!!' does not give a valid node label value" },
	{ "{\"models\": {\"namespaces\": null}}", "/models/namespaces",
	  "namespaces must be a mapping (use {} for none)" },
	{ "{\"dra\": {\"consumableCapacity\": \"true\"}}",
	  "/dra/consumableCapacity", "consumableCapacity must be true or false" },
	{ "{\"limits\": {\"maxDepth\": 0}}", "/limits/maxDepth",
	  "maxDepth must be a positive integer" },
	{ "{\"limits\": {\"maxDepth\": -3}}", "/limits/maxDepth",
	  "maxDepth must be a positive integer" },
	{ "{\"limits\": {\"maxDepth\": 3000000000}}", "/limits/maxDepth",
	  "maxDepth must be at most 2147483647" },
	{ "{\"limits\": {\"maxDocumentBytes\": \"1.5\"}}",
	  "/limits/maxDocumentBytes",
	  "maxDocumentBytes must be a positive whole number of bytes, such as 8388608 or 8Mi" },
	{ "{\"limits\": {\"maxDocumentBytes\": 0}}",
	  "/limits/maxDocumentBytes",
	  "maxDocumentBytes must be a positive whole number of bytes, such as 8388608 or 8Mi" },
	{ "{\"limits\": {\"maxDocumentBytes\": true}}",
	  "/limits/maxDocumentBytes",
	  "maxDocumentBytes must be a positive whole number of bytes, such as 8388608 or 8Mi" },
	{ "{\"limits\": {\"maxAliasNodes\": 1.5}}", "/limits/maxAliasNodes",
	  "maxAliasNodes must be a positive integer" },
	{ "{\"limits\": {\"maxAliasNodes\": false}}", "/limits/maxAliasNodes",
	  "maxAliasNodes must be a positive integer" },
	{ "{\"webhook\": {\"failurePolicy\": \"Ignore\"}}",
	  "/webhook/failurePolicy", "failurePolicy must be one of allow, deny" },
	{ "{\"webhook\": {\"timeoutSeconds\": 31}}", "/webhook/timeoutSeconds",
	  "timeoutSeconds must be at most 30" },
	{ "{\"webhook\": {\"timeoutSeconds\": 0}}", "/webhook/timeoutSeconds",
	  "timeoutSeconds must be a positive integer" },
	{ "{\"webhook\": {\"listen\": \":8443\"}}", "/webhook/listen",
	  "unknown key 'listen'" },
	{ "{\"webhook\": {\"customResources\": {}}}",
	  "/webhook/customResources",
	  "customResources must be a list (use [] for none)" },
	{ "{\"webhook\": {\"customResources\": [{\"group\": \"x.io\","
	  " \"resources\": [\"a\"]}]}}", "/webhook/customResources/0",
	  "an item of customResources needs 'podSpecs'" },
	{ "{\"webhook\": {\"customResources\": [{\"group\": \"x.io\","
	  " \"resources\": [\"a\"], \"podSpecs\": [\"spec\"], \"kind\": \"A\"}]}}",
	  "/webhook/customResources/0/kind",
	  "unknown key 'kind' (expected group, resources, podSpecs)" },
	{ "{\"webhook\": {\"customResources\": [{\"group\": \"X_Y\","
	  " \"resources\": [\"a\"], \"podSpecs\": [\"spec\"]}]}}",
	  "/webhook/customResources/0/group", "'X_Y' is not a valid object name" },
	{ "{\"webhook\": {\"customResources\": [{\"group\": \"x.io\","
	  " \"resources\": [\"TrainJobs\"], \"podSpecs\": [\"spec\"]}]}}",
	  "/webhook/customResources/0/resources/0",
	  "'TrainJobs' is not a valid resource name (a lowercase plural such as 'trainjobs')" },
	{ "{\"webhook\": {\"customResources\": [{\"group\": \"x.io\","
	  " \"resources\": [], \"podSpecs\": [\"spec\"]}]}}",
	  "/webhook/customResources/0/resources",
	  "resources must be a non-empty list of strings" },
	{ "{\"webhook\": {\"customResources\": [{\"group\": \"x.io\","
	  " \"resources\": [\"a\"], \"podSpecs\": [\"spec.*.b.*.spec\"]}]}}",
	  "/webhook/customResources/0/podSpecs/0",
	  "pod spec path 'spec.*.b.*.spec': at most one '*' per path" },
	{ "{\"webhook\": {\"customResources\": [{\"group\": \"x.io\","
	  " \"resources\": [\"a\"], \"podSpecs\": [\"*.spec\"]}]}}",
	  "/webhook/customResources/0/podSpecs/0",
	  "pod spec path '*.spec': '*' cannot be the first member" },
	{ "{\"webhook\": {\"customResources\": [{\"group\": \"x.io\","
	  " \"resources\": [\"a\"], \"podSpecs\": [\"spec.namespace.pod\"]}]}}",
	  "/webhook/customResources/0/podSpecs/0",
	  "pod spec path 'spec.namespace.pod': 'namespace' is not a member name the conditions can read (letters, digits, '_', no CEL reserved word)" },
	{ "{\"webhook\": {\"customResources\": [{\"group\": \"x.io\","
	  " \"resources\": [\"a\"], \"podSpecs\": [\"spec..pod\"]}]}}",
	  "/webhook/customResources/0/podSpecs/0",
	  "pod spec path 'spec..pod': '' is not a member name the conditions can read (letters, digits, '_', no CEL reserved word)" },
};

TEST(config_bad_values)
{
	struct config *def = config_new_default();

	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct config *cfg = config_new_default();
		struct rules_error err;
		int rc = apply_text(cfg, c->doc, &err, failures);

		if (rc != -1) {
			fprintf(stderr, "  accepted: %s\n", c->doc);
			(*failures)++;
		} else if (strcmp(err.pointer, c->pointer) != 0 ||
			   strcmp(err.message, c->message) != 0) {
			fprintf(stderr, "  %s\n    got  '%s': %s\n"
				"    want '%s': %s\n", c->doc, err.pointer,
				err.message, c->pointer, c->message);
			(*failures)++;
		}
		CHECK(config_same(cfg, def));
		config_free(cfg);
	}
	config_free(def);
}

TEST(config_failure_leaves_cfg_unchanged)
{
	struct config *cfg = config_new_default();
	struct config *before;
	struct rules_error err;
	json_t *printed;

	/* start from something other than the defaults */
	CHECK(apply_text(cfg, every_key, &err, failures) == 0);
	before = config_new_default();
	printed = config_to_json(cfg);
	CHECK(config_apply(before, printed, &err) == 0);
	json_decref(printed);

	/* valid keys first, every kind of member touched, then a bad one */
	CHECK(apply_text(cfg,
			 "{\"rules\": {\"gpu-sharing\": {\"mode\": \"mutate\"}},"
			 " \"resources\": {\"gpu\": \"nvidia.com/gpu\"},"
			 " \"sharing\": {\"strategy\": \"keep\","
			 "  \"memoryResources\": {}, \"nodeSelectors\": {\"a\": \"b\"},"
			 "  \"countResources\": [\"x.io/y\"]},"
			 " \"models\": {\"namespaces\": {\"z\": [\"T4\"]}},"
			 " \"limits\": {\"maxDepth\": 5, \"maxDocumentBytes\": 5},"
			 " \"webhook\": {\"failurePolicy\": \"allow\"},"
			 " \"visibility\": {\"images\": [\"\"]}}", &err,
			 failures) == -1);
	CHECK_STR(err.pointer, "/visibility/images/0");
	CHECK(config_same(cfg, before));

	/* a failure deep inside a map that replaces wholesale */
	CHECK(apply_text(cfg, "{\"models\": {\"namespaces\": {\"a\": [\"T4\"],"
			 " \"b\": [\"K80\", \"\"]}}}", &err, failures) == -1);
	CHECK_STR(err.pointer, "/models/namespaces/b/1");
	CHECK(config_same(cfg, before));
	config_free(before);
	config_free(cfg);
}

TEST(config_error_cleared_and_long_names_bounded)
{
	struct config *cfg = config_new_default();
	struct rules_error err;
	char doc[2048], key[1200];

	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	snprintf(doc, sizeof(doc), "{\"%s\": 1}", key);
	CHECK(apply_text(cfg, doc, &err, failures) == -1);
	/* the pointer is cut at the buffer, the message quotes a prefix */
	CHECK(strlen(err.pointer) == sizeof(err.pointer) - 1);
	CHECK(strlen(err.message) < 100);
	CHECK(apply_text(cfg, "{}", &err, failures) == 0);
	CHECK_STR(err.pointer, "");
	CHECK_STR(err.message, "");
	config_free(cfg);
}

/* 1 when `text` holds `s` as a YAML key ("s:", or quoted: "\"s\":") or,
 * quoted or not, as a value. */
static int yaml_mentions(const char *text, const char *s, int key)
{
	char needle[256];

	snprintf(needle, sizeof(needle), key ? "%s:" : "%s", s);
	if (strstr(text, needle))
		return 1;
	snprintf(needle, sizeof(needle), "\"%s\":", s);
	return key && strstr(text, needle) != NULL;
}

/* Checks that every key and every scalar of `value` appear in `yaml`. */
static void check_yaml_mentions(const char *yaml, json_t *value, int *failures)
{
	const char *key;
	json_t *child;
	size_t i;
	char number[32];

	switch (json_typeof(value)) {
	case JSON_OBJECT:
		json_object_foreach(value, key, child) {
			if (!yaml_mentions(yaml, key, 1)) {
				fprintf(stderr, "  default yaml lacks key '%s'\n", key);
				(*failures)++;
			}
			check_yaml_mentions(yaml, child, failures);
		}
		break;
	case JSON_ARRAY:
		json_array_foreach(value, i, child)
			check_yaml_mentions(yaml, child, failures);
		break;
	case JSON_STRING:
		if (!yaml_mentions(yaml, json_string_value(value), 0)) {
			fprintf(stderr, "  default yaml lacks '%s'\n",
				json_string_value(value));
			(*failures)++;
		}
		break;
	case JSON_INTEGER:
		snprintf(number, sizeof(number), ": %lld",
			 (long long)json_integer_value(value));
		if (!strstr(yaml, number)) {
			fprintf(stderr, "  default yaml lacks '%s'\n", number);
			(*failures)++;
		}
		break;
	default:
		break;
	}
}

/*
 * Without a YAML reader in the engine this only checks that the default
 * file names every key and every default value; loading it for real is the
 * CLI's test.
 */
TEST(config_default_yaml_mentions_every_default)
{
	struct config *def = config_new_default();
	const char *yaml = config_default_yaml();
	json_t *doc = config_to_json(def);

	CHECK(yaml && strlen(yaml) > 0 && yaml[strlen(yaml) - 1] == '\n');
	CHECK(strchr(yaml, '\t') == NULL);
	check_yaml_mentions(yaml, doc, failures);
	json_decref(doc);
	config_free(def);
}
