/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_rules_sharing.c - gpu-sharing: legacy shared-GPU requests, selectors,
 * schedulers and annotations under each sharing strategy.
 *
 * Inputs are written with ' for " to keep them readable.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "util.h"

#define GS RULE_GPU_SHARING

/*
 * The defaults, but for a cluster whose device plugin renames shared GPUs
 * (renameByDefault: true): most cases here are about that separate name.
 */
static struct config *config_renamed(void)
{
	struct config *cfg = config_new_default();
	json_t *doc = json_loads("{\"resources\":{\"sharedGPU\":"
				 "\"nvidia.com/gpu.shared\"}}", 0, NULL);
	struct rules_error err;

	if (cfg && (!doc || config_apply(cfg, doc, &err) != 0)) {
		config_free(cfg);
		cfg = NULL;
	}
	json_decref(doc);
	return cfg;
}

static struct config *config_with(enum sharing_strategy strategy,
				  enum rule_mode mode)
{
	struct config *cfg = config_renamed();

	if (cfg) {
		cfg->strategy = strategy;
		cfg->mode[GS] = mode;
	}
	return cfg;
}

static long long int_at(json_t *root, const char *pointer)
{
	json_t *v = json_pointer_get(root, pointer);

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

#define T "/spec/template"
#define C0 T "/spec/containers/0"
#define LIMITS C0 "/resources/limits"
#define LABEL T "/metadata/labels/gpumend.io~1gpu-sharing"
#define RECORD T "/metadata/annotations/gpumend.io~1gpu-memory-request"
#define STRATEGY_EXPR T "/spec/affinity/nodeAffinity/" \
	"requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/" \
	"matchExpressions/0"

/* The Alibaba gpushare example, as a Deployment. */
static const char binpack[] =
	"{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'binpack-1',"
	"'labels':{'app':'binpack-1'}},'spec':{'replicas':3,'selector':{'matchLabels':"
	"{'app':'binpack-1'}},'template':{'metadata':{'labels':{'app':'binpack-1'}},"
	"'spec':{'containers':[{'name':'binpack-1','image':'cheyang/gpu-player:v2',"
	"'resources':{'limits':{'aliyun.com/gpu-mem':3}}}]}}}}";

TEST(gpushare_time_slicing_memory)
{
	struct rules_result res;
	json_t *out = test_run_squoted(binpack, NULL, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, GS, LIMITS "/aliyun.com~1gpu-mem");

	CHECK(out != NULL);
	CHECK(int_at(out, LIMITS "/nvidia.com~1gpu") == 1);
	CHECK(json_pointer_get(out, LIMITS "/aliyun.com~1gpu-mem") == NULL);
	CHECK_STR(test_string_at(out, LABEL), "time-slicing");
	CHECK_STR(test_string_at(out, T "/metadata/labels/app"), "binpack-1");
	CHECK_STR(test_string_at(out, RECORD), "binpack-1=3072Mi");
	CHECK_STR(test_string_at(out, STRATEGY_EXPR "/key"),
		  "nvidia.com/gpu.sharing-strategy");
	CHECK_STR(test_string_at(out, STRATEGY_EXPR "/values/0"), "time-slicing");
	CHECK(f && f->fixed && f->severity == SEVERITY_WARNING);
	CHECK(f && strstr(f->message, "'nvidia.com/gpu' (time-slicing)"));
	CHECK(test_count_findings(&res, GS, NULL) == 1);
	CHECK(res.errors == 0);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(gpushare_fractional_gib_and_requests)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p'},'spec':{'containers':["
				       "{'name':'infer','resources':{'limits':{'cpu':'2','aliyun.com/gpu-mem':'1.5'},"
				       "'requests':{'cpu':'1','aliyun.com/gpu-mem':'1.5'}}}]}}",
				       NULL, NULL, &res, failures);

	CHECK(int_at(out, "/spec/containers/0/resources/limits/nvidia.com~1gpu") == 1);
	CHECK(int_at(out, "/spec/containers/0/resources/requests/nvidia.com~1gpu") == 1);
	CHECK_STR(test_string_at(out, "/spec/containers/0/resources/requests/cpu"), "1");
	CHECK(json_pointer_get(out, "/spec/containers/0/resources/requests/aliyun.com~1gpu-mem") == NULL);
	CHECK_STR(test_string_at(out, "/metadata/annotations/gpumend.io~1gpu-memory-request"),
		  "infer=1536Mi");
	/* one finding at each key: limits and requests */
	CHECK(test_count_findings(&res, GS, NULL) == 2);
	CHECK(test_finding_at(&res, GS, "/spec/containers/0/resources/requests/aliyun.com~1gpu-mem") != NULL);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(gpushare_volcano_count_and_memory)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'apiVersion':'batch/v1','kind':'Job','metadata':{'name':'j'},"
				       "'spec':{'template':{'spec':{'restartPolicy':'Never','containers':["
				       "{'name':'a','resources':{'limits':{'volcano.sh/gpu-memory':2048,"
				       "'volcano.sh/gpu-number':2}}},"
				       "{'name':'b','resources':{'limits':{'rancher.io/gpu-mem':'2'}}}]}}}}",
				       NULL, NULL, &res, failures);

	CHECK(int_at(out, LIMITS "/nvidia.com~1gpu") == 2);
	CHECK(json_pointer_get(out, LIMITS "/volcano.sh~1gpu-number") == NULL);
	CHECK(json_pointer_get(out, LIMITS "/volcano.sh~1gpu-memory") == NULL);
	CHECK(int_at(out, T "/spec/containers/1/resources/limits/nvidia.com~1gpu") == 1);
	CHECK_STR(test_string_at(out, RECORD), "a=2048Mi,b=2048Mi");
	/* created in the template, which had no metadata */
	CHECK_STR(test_string_at(out, LABEL), "time-slicing");
	CHECK(test_count_findings(&res, GS, NULL) == 3);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(gpushare_zero_memory_is_dropped)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p'},'spec':{'containers':["
				       "{'name':'c','resources':{'limits':{'aliyun.com/gpu-mem':0}}}]}}",
				       NULL, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, GS,
		"/spec/containers/0/resources/limits/aliyun.com~1gpu-mem");

	CHECK(json_pointer_get(out, "/spec/containers/0/resources/limits") == NULL);
	CHECK(json_pointer_get(out, "/metadata/labels") == NULL);
	CHECK(json_pointer_get(out, "/metadata/annotations") == NULL);
	CHECK(json_pointer_get(out, "/spec/affinity") == NULL);
	CHECK(f && f->fixed && strstr(f->message, "dropped"));
	json_decref(out);
	rules_result_clear(&res);
}

TEST(gpushare_bad_values_leave_the_pod)
{
	static const char *const values[] = {
		"'lots'", "-1", "0.3", "'1e-9'", "true",
	};

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		struct rules_result res;
		char text[1024];
		json_t *out;
		const struct finding *bad, *sel;

		snprintf(text, sizeof(text),
			 "{'kind':'Pod','metadata':{'name':'p'},'spec':{"
			 "'nodeSelector':{'gpushare':'true'},'containers':["
			 "{'name':'c','resources':{'limits':{'aliyun.com/gpu-mem':%s}}},"
			 "{'name':'d','resources':{'limits':{'aliyun.com/gpu-mem':2}}}]}}",
			 values[i]);
		out = test_run_squoted(text, NULL, NULL, &res, failures);
		bad = test_finding_at(&res, GS, "/spec/containers/0/resources/limits/aliyun.com~1gpu-mem");
		sel = test_finding_at(&res, GS, "/spec/nodeSelector/gpushare");
		CHECK(bad && bad->severity == SEVERITY_ERROR && !bad->fixed);
		CHECK(sel && sel->severity == SEVERITY_WARNING && !sel->fixed);
		CHECK(test_ops_of(&res, GS) == 0);
		CHECK(res.errors == 1);
		CHECK(json_pointer_get(out, "/spec/containers/1/resources/limits/"
				       "aliyun.com~1gpu-mem") != NULL);
		if (!bad || res.errors != 1)
			fprintf(stderr, "  value %s\n", values[i]);
		json_decref(out);
		rules_result_clear(&res);
	}
}

TEST(gpushare_request_differs_from_limit)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p'},'spec':{'containers':["
				       "{'name':'c','resources':{'limits':{'volcano.sh/gpu-number':2},"
				       "'requests':{'volcano.sh/gpu-number':1}}}]}}",
				       NULL, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, GS, "/spec/containers/0/resources/requests");

	CHECK(f && f->severity == SEVERITY_ERROR);
	CHECK(test_ops_of(&res, GS) == 0);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(gpushare_request_only_gets_a_limit)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p'},'spec':{'containers':["
				       "{'name':'c','resources':{'requests':{'volcano.sh/gpu-number':'3'}}}]}}",
				       NULL, NULL, &res, failures);

	CHECK_STR(test_string_at(out, "/spec/containers/0/resources/requests/nvidia.com~1gpu"),
		  "3");
	CHECK(int_at(out, "/spec/containers/0/resources/limits/nvidia.com~1gpu") == 3);
	/* no memory asked: no record */
	CHECK(json_pointer_get(out, "/metadata/annotations") == NULL);
	CHECK_STR(test_string_at(out, "/metadata/labels/gpumend.io~1gpu-sharing"),
		  "time-slicing");
	json_decref(out);
	rules_result_clear(&res);
}

/* A Rancher-era pod with every legacy signal. */
static const char rancher_pod[] =
	"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'share',"
	"'labels':{'app':'share'},'annotations':{'ALIYUN_COM_GPU_MEM_IDX':'0',"
	"'ALIYUN_COM_GPU_MEM_POD':'2','ALIYUN_COM_GPU_MEM_DEV':'16'}},"
	"'spec':{'schedulerName':'rancher-gpushare-scheduler',"
	"'nodeSelector':{'gpushare':'true','gpu.cattle.io/type':'share'},"
	"'containers':[{'name':'c','image':'trainer:1','resources':{'limits':"
	"{'rancher.io/gpu-mem':2}}}]}}";

TEST(gpushare_removes_selectors_scheduler_annotations)
{
	struct rules_result res;
	json_t *out = test_run_squoted(rancher_pod, NULL, NULL, &res, failures);
	json_t *annotations;

	CHECK(out != NULL);
	CHECK(json_pointer_get(out, "/spec/nodeSelector") == NULL);
	CHECK(json_pointer_get(out, "/spec/schedulerName") == NULL);
	annotations = json_pointer_get(out, "/metadata/annotations");
	CHECK(json_object_size(annotations) == 1);
	CHECK_STR(test_string_at(out, "/metadata/annotations/gpumend.io~1gpu-memory-request"),
		  "c=2048Mi");
	CHECK(test_finding_at(&res, GS, "/spec/nodeSelector/gpushare") != NULL);
	CHECK(test_finding_at(&res, GS, "/spec/nodeSelector/gpu.cattle.io~1type") != NULL);
	CHECK(test_finding_at(&res, GS, "/spec/schedulerName") != NULL);
	CHECK(test_finding_at(&res, GS, "/metadata/annotations/ALIYUN_COM_GPU_MEM_IDX") != NULL);
	CHECK(test_finding_at(&res, GS, "/metadata/annotations/ALIYUN_COM_GPU_MEM_DEV") != NULL);
	CHECK(test_count_findings(&res, GS, NULL) == 7);
	CHECK(res.errors == 0);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(gpushare_warn_mode)
{
	struct config *cfg = config_with(SHARING_TIME_SLICING, RULE_MODE_WARN);
	struct rules_result res;
	json_t *out = test_run_squoted(rancher_pod, cfg, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, GS, "/spec/containers/0/resources/limits/"
						  "rancher.io~1gpu-mem");

	CHECK(test_ops_of(&res, GS) == 0);
	CHECK(test_count_findings(&res, GS, NULL) == 7);
	for (size_t i = 0; i < res.n_findings; i++)
		CHECK(!res.findings[i].fixed);
	CHECK(f && strstr(f->message, "use 'nvidia.com/gpu.shared'"));
	CHECK(!res.denied && res.errors == 0);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(gpushare_deny_mode)
{
	struct config *cfg = config_with(SHARING_TIME_SLICING, RULE_MODE_DENY);
	struct rules_result res;
	json_t *out = test_run_squoted(binpack, cfg, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, GS, LIMITS "/aliyun.com~1gpu-mem");

	CHECK(res.denied);
	CHECK(f && f->severity == SEVERITY_ERROR);
	CHECK(test_ops_of(&res, GS) == 0);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(gpushare_mps)
{
	struct config *cfg = config_with(SHARING_MPS, RULE_MODE_MUTATE);
	struct rules_result res;
	json_t *out = test_run_squoted(binpack, cfg, NULL, &res, failures);

	CHECK(int_at(out, LIMITS "/nvidia.com~1gpu.shared") == 1);
	CHECK_STR(test_string_at(out, LABEL), "mps");
	CHECK_STR(test_string_at(out, STRATEGY_EXPR "/values/0"), "mps");
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(gpushare_unrenamed_cluster)
{
	struct config *cfg = config_new_default();
	struct rules_result res;
	json_t *out;

	free(cfg->shared_gpu_resource);
	cfg->shared_gpu_resource = strdup("nvidia.com/gpu");
	out = test_run_squoted(binpack, cfg, NULL, &res, failures);
	CHECK(int_at(out, LIMITS "/nvidia.com~1gpu") == 1);
	CHECK_STR(test_string_at(out, LABEL), "time-slicing");
	json_decref(out);
	rules_result_clear(&res);

	/* then a plain GPU pod is no sharing signal */
	out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p'},'spec':{'containers':["
			       "{'name':'c','resources':{'limits':{'nvidia.com/gpu':1}}}]}}",
			       cfg, NULL, &res, failures);
	CHECK(test_count_findings(&res, GS, NULL) == 0);
	CHECK(res.n_ops == 0);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(gpushare_hami)
{
	struct config *cfg = config_with(SHARING_HAMI, RULE_MODE_MUTATE);
	struct rules_result res;
	json_t *out = test_run_squoted("{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'d'},"
				       "'spec':{'template':{'metadata':{'labels':{'app':'d'},'annotations':"
				       "{'ALIYUN_COM_GPU_MEM_IDX':'1'}},'spec':{"
				       "'nodeSelector':{'gpushare':'true'},'containers':["
				       "{'name':'a','resources':{'limits':{'aliyun.com/gpu-mem':4},"
				       "'requests':{'aliyun.com/gpu-mem':4}}},"
				       "{'name':'b','resources':{'limits':{'volcano.sh/gpu-number':2}}},"
				       "{'name':'c','resources':{'limits':{'nvidia.com/gpu.shared':1}}}]}}}}",
				       cfg, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, GS, LIMITS "/aliyun.com~1gpu-mem");

	CHECK(int_at(out, LIMITS "/nvidia.com~1gpu") == 1);
	CHECK(int_at(out, LIMITS "/nvidia.com~1gpumem") == 4096);
	CHECK(int_at(out, C0 "/resources/requests/nvidia.com~1gpu") == 1);
	CHECK(int_at(out, C0 "/resources/requests/nvidia.com~1gpumem") == 4096);
	CHECK(int_at(out, T "/spec/containers/1/resources/limits/nvidia.com~1gpu") == 2);
	CHECK(json_pointer_get(out, T "/spec/containers/1/resources/limits/nvidia.com~1gpumem") == NULL);
	CHECK(int_at(out, T "/spec/containers/2/resources/limits/nvidia.com~1gpu") == 1);
	CHECK(json_pointer_get(out, T "/spec/containers/2/resources/limits/nvidia.com~1gpu.shared") == NULL);
	CHECK(json_pointer_get(out, T "/spec/nodeSelector") == NULL);
	/* the selector's replacement: HAMi shares every GPU node */
	CHECK_STR(test_string_at(out, T "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions/0/key"),
		  "nvidia.com/gpu.present");
	CHECK_STR(test_string_at(out, T "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions/0/values/0"),
		  "true");
	CHECK_STR(test_string_at(out, LABEL), "hami");
	CHECK_STR(test_string_at(out, RECORD), "a=4096Mi");
	CHECK(json_pointer_get(out, T "/metadata/annotations/ALIYUN_COM_GPU_MEM_IDX") == NULL);
	CHECK(f && f->fixed && strstr(f->message, "'nvidia.com/gpumem' (hami)"));
	CHECK(test_finding_at(&res, GS, T "/spec/containers/2/resources/limits/nvidia.com~1gpu.shared") != NULL);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(gpushare_keep)
{
	struct config *cfg = config_with(SHARING_KEEP, RULE_MODE_MUTATE);
	struct rules_result res;
	json_t *out = test_run_squoted(rancher_pod, cfg, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, GS, "/spec/containers/0/resources/limits/"
						  "rancher.io~1gpu-mem");

	CHECK(int_at(out, "/spec/containers/0/resources/limits/rancher.io~1gpu-mem") == 2);
	CHECK_STR(test_string_at(out, "/spec/nodeSelector/gpushare"), "true");
	CHECK_STR(test_string_at(out, "/spec/schedulerName"), "rancher-gpushare-scheduler");
	CHECK_STR(test_string_at(out, "/metadata/labels/gpumend.io~1gpu-sharing"), "keep");
	CHECK_STR(test_string_at(out, "/metadata/annotations/gpumend.io~1gpu-memory-request"),
		  "c=2048Mi");
	/* the scheduler's stale bookkeeping goes in every strategy */
	CHECK(json_pointer_get(out, "/metadata/annotations/ALIYUN_COM_GPU_MEM_IDX") == NULL);
	CHECK(json_pointer_get(out, "/spec/affinity") == NULL);
	CHECK(f && f->severity == SEVERITY_INFO && !f->fixed);
	CHECK(res.errors == 0);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(gpushare_shared_resource_signal)
{
	struct rules_result res;
	struct config *cfg;
	const char *at = "/spec/containers/0/resources/limits/nvidia.com~1gpu.shared";
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p'},'spec':{'containers':["
				       "{'name':'c','resources':{'limits':{'nvidia.com/gpu.shared':1}}}]}}",
				       NULL, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, GS, at);

	/* gpumend's own output of before: what the device plugin serves by
	 * default now */
	CHECK(f && f->fixed);
	CHECK(int_at(out, "/spec/containers/0/resources/limits/nvidia.com~1gpu") == 1);
	CHECK(json_pointer_get(out, at) == NULL);
	CHECK_STR(test_string_at(out, "/metadata/labels/gpumend.io~1gpu-sharing"),
		  "time-slicing");
	CHECK(json_pointer_get(out, "/spec/affinity") != NULL);
	CHECK(json_pointer_get(out, "/metadata/annotations") == NULL);
	json_decref(out);
	rules_result_clear(&res);

	/* already migrated for a device plugin that renames shared GPUs:
	 * nothing to say */
	cfg = config_renamed();
	out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p','labels':{'gpumend.io/gpu-sharing':"
			       "'time-slicing'}},'spec':{'nodeSelector':{'nvidia.com/gpu.sharing-strategy':"
			       "'time-slicing'},'containers':["
			       "{'name':'c','resources':{'limits':{'nvidia.com/gpu.shared':1}}}]}}",
			       cfg, NULL, &res, failures);
	CHECK(test_count_findings(&res, GS, NULL) == 0);
	CHECK(res.n_ops == 0);
	json_decref(out);
	rules_result_clear(&res);

	/* a label for another strategy is corrected */
	out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p','labels':{'gpumend.io/gpu-sharing':"
			       "'mps'}},'spec':{'nodeSelector':{'nvidia.com/gpu.sharing-strategy':"
			       "'mps'},'containers':["
			       "{'name':'c','resources':{'limits':{'nvidia.com/gpu.shared':1}}}]}}",
			       cfg, NULL, &res, failures);
	CHECK_STR(test_string_at(out, "/metadata/labels/gpumend.io~1gpu-sharing"),
		  "time-slicing");
	CHECK(test_ops_of(&res, GS) == 1);
	json_decref(out);
	rules_result_clear(&res);	config_free(cfg);
}

TEST(gpushare_existing_affinity_and_record_order)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p','annotations':{'a':'b'}},"
				       "'spec':{'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':"
				       "{'nodeSelectorTerms':[{'matchExpressions':[{'key':'zone','operator':'In',"
				       "'values':['a']}]}]}}},"
				       "'initContainers':[{'name':'warm','resources':{'limits':{'aliyun.com/gpu-mem':1}}}],"
				       "'containers':[{'name':'main','resources':{'limits':{'aliyun.com/gpu-mem':2}}},"
				       "{'name':'side','image':'busybox'}]}}",
				       NULL, NULL, &res, failures);

	CHECK_STR(test_string_at(out, "/metadata/annotations/gpumend.io~1gpu-memory-request"),
		  "warm=1024Mi,main=2048Mi");
	CHECK_STR(test_string_at(out, "/metadata/annotations/a"), "b");
	CHECK_STR(test_string_at(out, "/spec/affinity/nodeAffinity/"
				 "requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/"
				 "matchExpressions/1/key"), "nvidia.com/gpu.sharing-strategy");
	CHECK(int_at(out, "/spec/initContainers/0/resources/limits/nvidia.com~1gpu") == 1);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(gpushare_opt_out_cronjob_list_tfjob)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'apiVersion':'v1','kind':'List','items':["
				       "{'apiVersion':'batch/v1','kind':'CronJob','metadata':{'name':'cj'},"
				       "'spec':{'schedule':'@hourly','jobTemplate':{'spec':{'template':{"
				       "'metadata':{'annotations':{'gpumend.io/skip-rules':'gpu-sharing'}},"
				       "'spec':{'containers':[{'name':'c','resources':{'limits':"
				       "{'aliyun.com/gpu-mem':1}}}]}}}}}},"
				       "{'apiVersion':'batch/v1','kind':'CronJob','metadata':{'name':'cj2'},"
				       "'spec':{'schedule':'@hourly','jobTemplate':{'spec':{'template':{"
				       "'spec':{'containers':[{'name':'c','resources':{'limits':"
				       "{'aliyun.com/gpu-mem':1}}}]}}}}}},"
				       "{'apiVersion':'kubeflow.org/v1','kind':'TFJob','metadata':{'name':'tf'},"
				       "'spec':{'tfReplicaSpecs':{'Worker':{'replicas':4,'template':{"
				       "'metadata':{'annotations':{'gpumend.io/skip':'false'}},"
				       "'spec':{'containers':[{'name':'tensorflow','resources':{'limits':"
				       "{'volcano.sh/gpu-memory':'4096'}}}]}}}}}},"
				       "{'kind':'Pod','metadata':{'name':'skipped','annotations':{'gpumend.io/skip':'true'}},"
				       "'spec':{'containers':[{'name':'c','resources':{'limits':"
				       "{'aliyun.com/gpu-mem':1}}}]}}]}",
				       NULL, NULL, &res, failures);

	CHECK(json_pointer_get(out, "/items/0/spec/jobTemplate/spec/template/spec/containers/0/"
			       "resources/limits/aliyun.com~1gpu-mem") != NULL);
	CHECK(int_at(out, "/items/1/spec/jobTemplate/spec/template/spec/containers/0/"
		     "resources/limits/nvidia.com~1gpu") == 1);
	CHECK_STR(test_string_at(out, "/items/1/spec/jobTemplate/spec/template/metadata/labels/"
				 "gpumend.io~1gpu-sharing"), "time-slicing");
	CHECK(int_at(out, "/items/2/spec/tfReplicaSpecs/Worker/template/spec/containers/0/"
		     "resources/limits/nvidia.com~1gpu") == 1);
	CHECK_STR(test_string_at(out, "/items/2/spec/tfReplicaSpecs/Worker/template/metadata/"
				 "annotations/gpumend.io~1gpu-memory-request"),
		  "tensorflow=4096Mi");
	CHECK(json_pointer_get(out, "/items/3/spec/containers/0/resources/limits/"
			       "aliyun.com~1gpu-mem") != NULL);
	CHECK(test_count_findings(&res, GS, NULL) == 2);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(gpushare_boolean_selector_and_no_metadata)
{
	struct rules_result res;
	/* a custom resource whose pod spec is not under "spec": no labels */
	json_t *out = test_run_squoted("{'apiVersion':'example.com/v1','kind':'Runner','metadata':{'name':'r'},"
				       "'spec':{'podSpec':{'nodeSelector':{'gpushare':true},"
				       "'containers':[{'name':'c','resources':{'limits':"
				       "{'aliyun.com/gpu-mem':2}}}]}}}",
				       NULL, NULL, &res, failures);

	CHECK(json_pointer_get(out, "/spec/podSpec/nodeSelector") == NULL);
	CHECK(int_at(out, "/spec/podSpec/containers/0/resources/limits/nvidia.com~1gpu") == 1);
	CHECK(json_pointer_get(out, "/metadata/labels") == NULL);
	CHECK(json_pointer_get(out, "/spec/podSpec/affinity") != NULL);
	CHECK(test_finding_at(&res, GS, "/spec/podSpec/nodeSelector/gpushare") != NULL);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(gpushare_keep_is_idempotent_with_findings)
{
	struct config *cfg = config_with(SHARING_KEEP, RULE_MODE_MUTATE);
	struct rules_result res;
	/* already labelled and recorded: info findings, no operation */
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p','labels':{'gpumend.io/gpu-sharing':"
				       "'keep'},'annotations':{'gpumend.io/gpu-memory-request':'c=1024Mi'}},"
				       "'spec':{'containers':[{'name':'c','resources':{'limits':"
				       "{'aliyun.com/gpu-mem':1}}}]}}",
				       cfg, NULL, &res, failures);

	CHECK(res.n_ops == 0);
	CHECK(test_count_findings(&res, GS, NULL) == 1);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(gpushare_real_and_quantity_values)
{
	struct rules_result res;
	json_t *out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p'},'spec':{'containers':["
				       "{'name':'a','resources':{'limits':{'aliyun.com/gpu-mem':1.5}}},"
				       "{'name':'b','resources':{'limits':{'volcano.sh/gpu-memory':'1Ki'}}},"
				       "{'name':'c','resources':{'limits':{'rancher.io/gpu-mem':'500m'}}}]}}",
				       NULL, NULL, &res, failures);

	CHECK_STR(test_string_at(out, "/metadata/annotations/gpumend.io~1gpu-memory-request"),
		  "a=1536Mi,b=1024Mi,c=512Mi");
	CHECK(res.errors == 0);
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted("{'kind':'Pod','metadata':{'name':'p'},'spec':{'containers':["
			       "{'name':'a','resources':{'limits':{'aliyun.com/gpu-mem':0.3}}}]}}",
			       NULL, NULL, &res, failures);
	CHECK(res.n_findings > 0 &&
	      strstr(res.findings[0].message, "MiB, not 0.3") != NULL);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(gpushare_keep_lint_is_informational)
{
	struct config *cfg = config_with(SHARING_KEEP, RULE_MODE_WARN);
	struct rules_result res;
	json_t *out = test_run_squoted(rancher_pod, cfg, NULL, &res, failures);
	const struct finding *f = test_finding_at(&res, GS, "/spec/containers/0/resources/limits/"
						  "rancher.io~1gpu-mem");
	const struct finding *sel = test_finding_at(&res, GS, "/spec/nodeSelector/gpushare");
	const struct finding *stale = test_finding_at(&res, GS,
		"/metadata/annotations/ALIYUN_COM_GPU_MEM_IDX");

	CHECK(f && f->severity == SEVERITY_INFO);
	CHECK(sel && sel->severity == SEVERITY_INFO);
	/* stale bookkeeping is a fault in every strategy */
	CHECK(stale && stale->severity == SEVERITY_WARNING);
	CHECK(test_ops_of(&res, GS) == 0);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}
