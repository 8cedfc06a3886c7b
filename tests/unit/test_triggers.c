/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_triggers.c - rules_triggers(): the strings without which no rule
 * fires, for the webhook's prefilter. (Every object the other unit tests
 * run the rules on is also checked against the set, in util.c.)
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "util.h"

static int has(const struct string_list *list, const char *s)
{
	for (size_t i = 0; i < list->n; i++)
		if (strcmp(list->items[i], s) == 0)
			return 1;
	return 0;
}

/* Applies the JSON text `json` on top of `cfg`; 0 or -1. */
static int apply(struct config *cfg, const char *json)
{
	struct rules_error err;
	json_t *doc = json_loads(json, 0, NULL);
	int rc = doc ? config_apply(cfg, doc, &err) : -1;

	if (rc && doc)
		fprintf(stderr, "  config_apply: %s: %s\n", err.pointer,
			err.message);
	json_decref(doc);
	return rc;
}

/* 1 when an object holding `key` (as a key and as a value) holds a
 * trigger of `cfg`. */
static int covers(const struct config *cfg, const char *key)
{
	json_t *as_key = json_pack("{s:i}", key, 1);
	json_t *as_value = json_pack("{s:[{s:s}]}", "items", "name", key);
	int rc = as_key && as_value &&
		 test_triggers_cover(cfg, as_key) == 1 &&
		 test_triggers_cover(cfg, as_value) == 1;

	json_decref(as_key);
	json_decref(as_value);
	return rc;
}

TEST(triggers_default_set)
{
	static const char *const want[] = {
		"-gpu", "gpushare", "nvcr.io/", "/libcuda.so", "/libnvidia-",
		"nvidia/cuda", "Accelerators", "DevicePlugins",
		/* apps/v1 holds apps/v1beta1 and apps/v1beta2 */
		"apps/v1", "batch/v1beta1",
		"batch/v2alpha1", "extensions/v1beta1",
		/* the hostPath patterns' elements, kept in any spelling of
		 * the path: /usr/local/nvidia, /usr/lib64/nvidia,
		 * /usr/lib/nvidia-*, /opt/nvidia-driver,
		 * /var/lib/nvidia-docker/volumes/nvidia_driver/ */
		"/nvidia",
		/* aliyun.com/gpu (vendorGPUs) holds aliyun.com/gpu-mem and
		 * aliyun.com/gpu-count */
		"aliyun.com/gpu", "rancher.io/gpu-mem",
		"volcano.sh/gpu-memory", "volcano.sh/gpu-number",
		"tencent.com/vcuda-core", "tencent.com/vcuda-memory",
		"gpu.cattle.io/type", "ALIYUN_COM_GPU_MEM_",
		"gpumend.io/gpu-models", "nvidia.com/gpu.shared",
		"NVIDIA_VISIBLE_DEVICES",
		"scheduler.alpha.kubernetes.io/affinity",
		"scheduler.alpha.kubernetes.io/critical-pod",
		/* obsolete components: the gpushare ones hold "gpushare" */
		"nvidia/k8s-device-plugin:1.", "schd-extender-deployer",
		"device-plugin-evict", "nvidia-docker-plugin",
		"device-plugin-recover", "scheduler-extender-configtool",
		"volcano-device-plugin", "tkestack/gpu-manager",
		"gputopology-schd-extender", "gputopology-scheduler-extender",
		/* legacy-scheduler-config */
		"policy-config", "kubescheduler.config.k8s.io/v1beta",
		"predicates", "priorities", "extenders",
		"hardPodAffinitySymmetricWeight", "alwaysCheckAllPredicates",
		/* invalid-resource */
		"limits", "requests",
		/* removed-api; extensions/v1beta1 is above */
		"rbac.authorization.k8s.io/v1", "scheduling.k8s.io/v1",
		"node.k8s.io/v1beta1", "storage.k8s.io/v1beta1",
		"coordination.k8s.io/v1beta1", "apiregistration.k8s.io/v1beta1",
		"autoscaling/v2beta", "networking.k8s.io/v1beta1",
		"policy/v1beta1", "apiextensions.k8s.io/v1beta1",
		"admissionregistration.k8s.io/v1beta1",
		"certificates.k8s.io/v1beta1", "discovery.k8s.io/v1beta1",
		"events.k8s.io/v1beta1", "mlkube.io/v1beta1",
		"tensorflow.org/v1alpha1", "kubeflow.org/v1alpha",
		"node-role.kubernetes.io/master", "--address",
	};
	struct config *cfg = config_new_default();
	struct string_list list;

	CHECK(cfg != NULL);
	if (!cfg)
		return;
	CHECK(rules_triggers(cfg, &list) == 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (!has(&list, want[i]))
			fprintf(stderr, "  missing trigger '%s'\n", want[i]);
		CHECK(has(&list, want[i]));
	}
	CHECK(list.n == sizeof(want) / sizeof(want[0]));
	/* minimal: none empty, none holding another */
	for (size_t i = 0; i < list.n; i++) {
		CHECK(list.items[i][0] != '\0');
		for (size_t k = 0; k < list.n; k++)
			CHECK(k == i || !strstr(list.items[i], list.items[k]));
	}
	string_list_clear(&list);
	/* the legacy names are there, or a part of them is */
	CHECK(covers(cfg, "alpha.kubernetes.io/nvidia-gpu"));
	CHECK(covers(cfg, "alpha.kubernetes.io/nvidia-gpu-name"));
	CHECK(!covers(cfg, "nvidia.com/gpu"));
	config_free(cfg);
}

TEST(triggers_mode_off_drops_rule)
{
	struct config *cfg = config_new_default();
	struct string_list list;

	if (!cfg)
		return;
	cfg->mode[RULE_GPU_VISIBILITY] = RULE_MODE_OFF;
	cfg->mode[RULE_REMOVED_GPU_FEATURE_GATE] = RULE_MODE_OFF;
	CHECK(rules_triggers(cfg, &list) == 0);
	CHECK(!has(&list, "NVIDIA_VISIBLE_DEVICES"));
	CHECK(!has(&list, "-gpu"));
	CHECK(!has(&list, "nvcr.io/"));
	CHECK(!has(&list, "Accelerators"));
	/* no longer hidden behind "-gpu", but behind "/nvidia" */
	CHECK(!has(&list, "alpha.kubernetes.io/nvidia-gpu"));
	CHECK(covers(cfg, "alpha.kubernetes.io/nvidia-gpu"));
	/* which holds the legacy label's name */
	CHECK(!has(&list, "alpha.kubernetes.io/nvidia-gpu-name"));
	CHECK(covers(cfg, "alpha.kubernetes.io/nvidia-gpu-name"));
	string_list_clear(&list);

	/* every rule off: nothing can fire, the empty set is complete */
	for (int r = 0; r < RULE_COUNT; r++)
		cfg->mode[r] = RULE_MODE_OFF;
	CHECK(rules_triggers(cfg, &list) == 0);
	CHECK(list.n == 0);
	string_list_clear(&list);

	/* warn and deny fire like mutate */
	cfg->mode[RULE_LEGACY_AFFINITY_ANNOTATION] = RULE_MODE_DENY;
	cfg->mode[RULE_GPU_SHARING] = RULE_MODE_WARN;
	CHECK(rules_triggers(cfg, &list) == 0);
	CHECK(has(&list, "scheduler.alpha.kubernetes.io/affinity"));
	CHECK(has(&list, "gpushare"));
	CHECK(!has(&list, "nvidia/cuda"));
	string_list_clear(&list);
	config_free(cfg);
}

TEST(triggers_wildcard_image_is_unbounded)
{
	struct config *cfg = config_new_default();
	struct string_list list;

	if (!cfg)
		return;
	CHECK(apply(cfg, "{\"visibility\": {\"images\": [\"nvidia/cuda\", \"*\"]}}") == 0);
	CHECK(rules_triggers(cfg, &list) == 1);
	CHECK(list.n == 0 && list.items == NULL);
	CHECK(covers(cfg, "anything"));
	string_list_clear(&list);

	CHECK(apply(cfg, "{\"visibility\": {\"images\": [\"[a-z]*?\"]}}") == 0);
	CHECK(rules_triggers(cfg, &list) == 1);
	string_list_clear(&list);

	/* with the rule off, the pattern does not matter */
	cfg->mode[RULE_GPU_VISIBILITY] = RULE_MODE_OFF;
	CHECK(rules_triggers(cfg, &list) == 0);
	CHECK(list.n > 0);
	string_list_clear(&list);
	config_free(cfg);
}

/* The triggers of obsolete-cuda-hostpath alone with these patterns. */
static int hostpath_triggers(const char *obsolete, const char *host,
			     const char *mount, struct string_list *out)
{
	struct config *cfg = test_config_only(RULE_OBSOLETE_CUDA_HOSTPATH,
					      RULE_MODE_MUTATE);
	char json[512];
	int rc = -1;

	snprintf(json, sizeof(json),
		 "{\"hostPaths\": {\"obsolete\": %s, \"ambiguous\": %s, \"ambiguousMountPaths\": %s,"
		 " \"vendorDriverDirs\": []}}",
		 obsolete, host, mount);
	if (cfg && apply(cfg, json) == 0)
		rc = rules_triggers(cfg, out);
	config_free(cfg);
	return rc;
}

TEST(triggers_pattern_literals)
{
	static const struct {
		const char *pattern, *literal;
	} cases[] = {
		/* an element with the slashes around it: what survives any
		 * spelling of the path (// /./ /x/../), the longest, the
		 * last of equals; "." and ".." elements never */
		{ "/usr/lib/nvidia-[0-9]*", "/nvidia-" },
		{ "/usr/local/nvidia", "/nvidia" },
		{ "/var/lib/nvidia-docker/volumes/nvidia_driver/*",
		  "/nvidia_driver/" },
		{ "/opt/./nvidia/../cuda", "/nvidia/" },
		{ "*/libnvidia-*.so*", "/libnvidia-" },
		{ "*/libcuda.so*", "/libcuda.so" },
		{ "/opt/\\\\*cuda*", "/*cuda" },
		{ "[[:digit:]]]abc*", "]abc" },
		{ "[]x]yz", "yz" },
		{ "[!]x]yz", "yz" },
		{ "xy[^]ab]c", "xy" },
		{ "ab[cdef", "ab" },
		{ "abc\\\\", "abc" },
		{ "a?bcd*e", "bcd" },
		{ "[[.-.]]long[[=a=]]", "long" },
		{ "*", "hostPath" },
		{ "?*[a-z]", "hostPath" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct string_list list;
		char obsolete[128];

		snprintf(obsolete, sizeof(obsolete), "[\"%s\"]", cases[i].pattern);
		CHECK(hostpath_triggers(obsolete, "[]", "[]", &list) == 0);
		if (list.n != 1 || strcmp(list.items[0], cases[i].literal))
			fprintf(stderr, "  pattern '%s': got '%s', want '%s'\n",
				cases[i].pattern, list.n ? list.items[0] : "",
				cases[i].literal);
		CHECK(list.n == 1 && !strcmp(list.items[0], cases[i].literal));
		string_list_clear(&list);
	}
}

TEST(triggers_hostpath_sides)
{
	struct string_list list;

	/* ambiguous volumes need both paths: the side with longer literals
	 * (here /mnt/nvidia/ holds /nvidia, which the obsolete path gives) */
	CHECK(hostpath_triggers("[\"/usr/local/nvidia\"]", "[\"/bin\"]",
				"[\"/mnt/nvidia/*\"]", &list) == 0);
	CHECK(list.n == 1 && has(&list, "/nvidia"));
	string_list_clear(&list);
	CHECK(hostpath_triggers("[]", "[\"/usr/bin\"]", "[\"*\"]", &list) == 0);
	CHECK(list.n == 1 && has(&list, "/bin"));
	string_list_clear(&list);
	CHECK(hostpath_triggers("[]", "[\"*\"]", "[\"/mnt/*\"]", &list) == 0);
	CHECK(list.n == 1 && has(&list, "/mnt/"));
	string_list_clear(&list);
	/* neither side has a literal: the key every finding needs */
	CHECK(hostpath_triggers("[\"/usr/lib64/nvidia\"]", "[\"*\"]", "[\"*\"]",
				&list) == 0);
	CHECK(list.n == 1 && has(&list, "hostPath"));
	string_list_clear(&list);
	/* a vendor's driver directory is on the host side, by its longest
	 * path piece (kept through any spelling the kubelet cleans) */
	{
		struct config *cfg = test_config_only(RULE_OBSOLETE_CUDA_HOSTPATH,
						      RULE_MODE_MUTATE);

		CHECK(cfg && apply(cfg, "{\"hostPaths\": {\"obsolete\": [], \"ambiguous\": [],"
				   " \"ambiguousMountPaths\": [\"*\"],"
				   " \"vendorDriverDirs\": [\"/home/kubernetes/bin/nvidia/*\"]}}") == 0);
		CHECK(cfg && rules_triggers(cfg, &list) == 0);
		CHECK(list.n == 1 && has(&list, "/kubernetes/"));
		string_list_clear(&list);
		config_free(cfg);
	}
	/* one side empty: ambiguous volumes are never reported */
	CHECK(hostpath_triggers("[\"/usr/lib64/nvidia\"]", "[]", "[\"*\"]",
				&list) == 0);
	CHECK(list.n == 1 && has(&list, "/nvidia"));
	string_list_clear(&list);
}

TEST(triggers_config_names)
{
	struct config *cfg = config_new_default();
	struct string_list list;

	if (!cfg)
		return;
	cfg->mode[RULE_GPU_VISIBILITY] = RULE_MODE_OFF;
	CHECK(apply(cfg, "{\"resources\": {\"legacyGPU\": \"example.com/oldgpu\"},"
		    " \"labels\": {\"legacyGPUName\": \"example.com/gpu-model\"},"
		    " \"sharing\": {\"memoryResources\": {\"example.com/vram\": \"MiB\"},"
		    " \"countResources\": [\"example.com/vgpu\"],"
		    " \"nodeSelectors\": {\"example.com/pool\": \"shared\"},"
		    " \"schedulerNames\": [\"my-scheduler\"],"
		    " \"staleAnnotationPrefixes\": [\"EXAMPLE_\"]},"
		    " \"models\": {\"annotation\": \"example.com/models\"}}") == 0);
	CHECK(rules_triggers(cfg, &list) == 0);
	CHECK(has(&list, "example.com/oldgpu"));
	CHECK(has(&list, "example.com/gpu-model"));
	CHECK(has(&list, "example.com/vram"));
	CHECK(has(&list, "example.com/vgpu"));
	CHECK(has(&list, "example.com/pool"));
	CHECK(has(&list, "my-scheduler"));
	CHECK(has(&list, "EXAMPLE_"));
	CHECK(has(&list, "example.com/models"));
	CHECK(!has(&list, "alpha.kubernetes.io/nvidia-gpu"));
	CHECK(!has(&list, "aliyun.com/gpu-mem"));
	CHECK(!has(&list, "gpushare"));
	CHECK(!has(&list, "gpumend.io/gpu-models"));
	/* a namespace policy needs no annotation, only a GPU request */
	CHECK(!has(&list, "nvidia.com/gpu"));
	string_list_clear(&list);
	CHECK(apply(cfg, "{\"models\": {\"namespaces\": {\"ml\": [\"Tesla K80\"]}}}") == 0);
	CHECK(rules_triggers(cfg, &list) == 0);
	CHECK(has(&list, "nvidia.com/gpu"));
	CHECK(!has(&list, "example.com/models"));
	string_list_clear(&list);
	config_free(cfg);
}

TEST(triggers_shared_resource_only_when_distinct)
{
	struct config *cfg = test_config_only(RULE_GPU_SHARING, RULE_MODE_MUTATE);
	struct string_list list;

	if (!cfg)
		return;
	CHECK(rules_triggers(cfg, &list) == 0);
	CHECK(has(&list, "nvidia.com/gpu.shared"));
	string_list_clear(&list);
	/* the plain GPU resource is no sharing signal */
	CHECK(apply(cfg, "{\"resources\": {\"sharedGPU\": \"nvidia.com/gpu\"}}") == 0);
	CHECK(rules_triggers(cfg, &list) == 0);
	CHECK(!has(&list, "nvidia.com/gpu"));
	string_list_clear(&list);
	config_free(cfg);
}

TEST(triggers_empty_name_is_unbounded)
{
	struct config *cfg = test_config_only(RULE_GPU_SHARING, RULE_MODE_WARN);
	struct string_list list;

	if (!cfg)
		return;
	/* config_apply refuses it; a config built in code may not */
	free(cfg->stale_annotation_prefixes.items[0]);
	cfg->stale_annotation_prefixes.items[0] = strdup("");
	CHECK(rules_triggers(cfg, &list) == 1);
	CHECK(list.n == 0);
	config_free(cfg);
}

/*
 * Soundness of the literal taken from a pattern, against fnmatch(3)
 * itself: for pseudo-random patterns over bytes that matter to it, every
 * short string the pattern matches contains the literal.
 */
TEST(triggers_pattern_literal_against_fnmatch)
{
	static const char pattern_bytes[] = "ab/*?[]!^\\:.=-";
	static const char string_bytes[] = "ab/]!\\:";
	struct config *cfg = test_config_only(RULE_OBSOLETE_CUDA_HOSTPATH,
					      RULE_MODE_MUTATE);
	size_t n_bytes = sizeof(string_bytes) - 1, n_strings = 0;
	char (*strings)[8];
	unsigned long seed = 12345;
	long matches = 0, checked = 0;

	if (!cfg)
		return;
	string_list_clear(&cfg->ambiguous_host_paths);
	string_list_clear(&cfg->ambiguous_mount_paths);
	/* every string of up to 4 bytes */
	strings = calloc(4000, sizeof(*strings));
	if (!strings) {
		config_free(cfg);
		return;
	}
	for (size_t len = 0; len <= 4; len++) {
		size_t total = 1;

		for (size_t k = 0; k < len; k++)
			total *= n_bytes;
		for (size_t v = 0; v < total; v++) {
			size_t x = v;

			for (size_t k = 0; k < len; k++, x /= n_bytes)
				strings[n_strings][k] = string_bytes[x % n_bytes];
			strings[n_strings++][len] = '\0';
		}
	}
	for (int p = 0; p < 1500; p++) {
		struct string_list list;
		char pattern[8];
		int len;

		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		len = 1 + (int)((seed >> 33) % 6);
		for (int k = 0; k < len; k++) {
			seed = seed * 6364136223846793005UL + 1442695040888963407UL;
			pattern[k] = pattern_bytes[(seed >> 33) %
						   (sizeof(pattern_bytes) - 1)];
		}
		pattern[len] = '\0';
		string_list_clear(&cfg->obsolete_host_paths);
		cfg->obsolete_host_paths.items = malloc(sizeof(char *));
		if (!cfg->obsolete_host_paths.items ||
		    !(cfg->obsolete_host_paths.items[0] = strdup(pattern)))
			break;
		cfg->obsolete_host_paths.n = 1;
		CHECK(rules_triggers(cfg, &list) == 0);
		CHECK(list.n == 1);
		if (list.n != 1 || !strcmp(list.items[0], "hostPath")) {
			string_list_clear(&list);
			continue;
		}
		checked++;
		for (size_t s = 0; s < n_strings; s++) {
			if (fnmatch(pattern, strings[s], 0) != 0)
				continue;
			matches++;
			if (!strstr(strings[s], list.items[0])) {
				fprintf(stderr, "  pattern '%s' matches '%s' without '%s'\n",
					pattern, strings[s], list.items[0]);
				(*failures)++;
			}
		}
		string_list_clear(&list);
	}
	/* the test means something only if patterns with literals matched */
	CHECK(checked > 500 && matches > 1000);
	free(strings);
	config_free(cfg);
}

/* Runs the rules over `doc` with `opts`; checks the set covers it. */
static void check_document(const struct config *cfg, json_t *doc,
			   const struct rules_options *opts, const char *name,
			   int *acted, int *failures)
{
	struct rules_result res;
	struct rules_error err;
	json_t *copy = json_deep_copy(doc);

	rules_result_init(&res);
	if (!copy || rules_apply(cfg, opts, copy, &res, &err) != 0) {
		fprintf(stderr, "  %s: rules_apply failed: %s %s\n", name, err.pointer, err.message);
		(*failures)++;
	} else if (res.n_findings || res.n_ops) {
		(*acted)++;
		if (test_triggers_cover(cfg, doc) != 1) {
			fprintf(stderr, "  %s: no trigger, yet rule '%s' acts\n",
				name, rule_info_get(res.n_findings ?
						    res.findings[0].rule :
						    res.ops[0].rule)->name);
			(*failures)++;
		}
	}
	rules_result_clear(&res);
	json_decref(copy);
}

struct cover_count {
	int acted;
	int *failures;
};

/* Each document as the CLI runs, and as the webhook does, with each
 * namespace that has a model policy. */
static void check_each(const struct config *cfg, json_t *doc,
		       const char *path, void *arg)
{
	struct cover_count *count = arg;
	struct rules_options offline = { .offline = 1 };
	struct rules_options webhook = { 0 };

	check_document(cfg, doc, &offline, path, &count->acted,
		       count->failures);
	check_document(cfg, doc, &webhook, path, &count->acted,
		       count->failures);
	for (size_t i = 0; i < cfg->n_namespace_models; i++) {
		webhook.namespace_name = cfg->namespace_models[i].namespace_name;
		check_document(cfg, doc, &webhook, path, &count->acted,
			       count->failures);
	}
}

/*
 * The golden cases (tests/golden/NAME/input.* with its config.yaml):
 * whatever the rules do to them, the set must announce. Run from the
 * top of the tree, as `make test` does.
 */
TEST(triggers_cover_golden_inputs)
{
	struct cover_count count = { 0, failures };
	int files = test_each_document(NULL, check_each, &count, failures);

	CHECK(files >= 40);
	CHECK(count.acted >= 40);
}
