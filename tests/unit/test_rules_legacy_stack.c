/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_rules_legacy_stack.c - the legacy stacks' own components and
 * configuration: critical-pod-annotation, obsolete-gpu-component,
 * legacy-scheduler-config; and what real manifests showed the older rules:
 * a finding per legacy key, vendor whole-GPU resources, MiB values of a GiB
 * resource, sharing selectors replaced, the GPU stack left alone,
 * gpu.product under sharing without rename, apps/v1 without a selector.
 *
 * Inputs are written with ' for " to keep them readable. Every run also
 * goes through test_migrate(): patch replay, idempotence, triggers and the
 * webhook's gating.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "rules_private.h"
#include "util.h"

#define TPL "/spec/template"
#define REQUIRED_EXPR(n) "/affinity/nodeAffinity/" \
	"requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/" \
	"matchExpressions/" #n

/* Applies the JSON text `text` (with ' for ") to `cfg`; config_apply's
 * result. */
static int apply_squoted(struct config *cfg, const char *squoted,
			 struct rules_error *err)
{
	char *text = strdup(squoted);
	json_t *doc;
	int rc;

	if (!text)
		return -2;
	for (char *p = text; *p; p++)
		if (*p == '\'')
			*p = '"';
	doc = json_loads(text, 0, NULL);
	free(text);
	if (!doc)
		return -2;
	rc = config_apply(cfg, doc, err);
	json_decref(doc);
	return rc;
}

/* ------------------------------------------------------------------ */
/* critical-pod-annotation                                             */

#define CP RULE_CRITICAL_POD_ANNOTATION

TEST(critical_pod_daemonset_and_deployment)
{
	static const char ds[] =
		"{'apiVersion':'apps/v1','kind':'DaemonSet','metadata':{'name':'d'},"
		"'spec':{'selector':{'matchLabels':{'a':'b'}},'template':{'metadata':"
		"{'labels':{'a':'b'},'annotations':{'scheduler.alpha.kubernetes.io/critical-pod':'',"
		"'keep':'me'}},'spec':{'tolerations':[{'key':'CriticalAddonsOnly','operator':'Exists'}],"
		"'containers':[{'name':'c','image':'i'}]}}}}";
	static const char deploy[] =
		"{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'d'},"
		"'spec':{'selector':{'matchLabels':{'a':'b'}},'template':{'metadata':"
		"{'labels':{'a':'b'},'annotations':{'scheduler.alpha.kubernetes.io/critical-pod':''}},"
		"'spec':{'containers':[{'name':'c','image':'i'}]}}}}";
	struct rules_result res;
	const struct finding *f;
	json_t *out;

	out = test_run_squoted(ds, NULL, NULL, &res, failures);
	CHECK_STR(test_string_at(out, TPL "/spec/priorityClassName"), "system-node-critical");
	CHECK(json_pointer_get(out, TPL "/metadata/annotations/scheduler.alpha.kubernetes.io~1critical-pod") == NULL);
	/* other annotations and the tolerations stay */
	CHECK_STR(test_string_at(out, TPL "/metadata/annotations/keep"), "me");
	CHECK_STR(test_string_at(out, TPL "/spec/tolerations/0/key"), "CriticalAddonsOnly");
	f = test_finding_at(&res, CP, TPL "/metadata/annotations/scheduler.alpha.kubernetes.io~1critical-pod");
	CHECK(f && f->fixed && f->severity == SEVERITY_WARNING);
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted(deploy, NULL, NULL, &res, failures);
	CHECK_STR(test_string_at(out, TPL "/spec/priorityClassName"), "system-cluster-critical");
	/* the annotations mapping it leaves empty goes too */
	CHECK(json_pointer_get(out, TPL "/metadata/annotations") == NULL);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(critical_pod_owner_existing_class_and_config)
{
	static const char owned[] =
		"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','annotations':"
		"{'scheduler.alpha.kubernetes.io/critical-pod':''},'ownerReferences':"
		"[{'kind':'DaemonSet','name':'d','controller':%s}]},"
		"'spec':{'containers':[{'name':'c','image':'i'}]}}";
	static const char with_class[] =
		"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','annotations':"
		"{'scheduler.alpha.kubernetes.io/critical-pod':'true'}},"
		"'spec':{'priorityClassName':'high','containers':[{'name':'c','image':'i'}]}}";
	static const char null_class[] =
		"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','annotations':"
		"{'scheduler.alpha.kubernetes.io/critical-pod':''}},"
		"'spec':{'priorityClassName':null,'containers':[{'name':'c','image':'i'}]}}";
	/* as the webhook sees a pod: the API server resolved its priority
	 * already (no class: 0), and would refuse it against a new class */
	static const char resolved[] =
		"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','annotations':"
		"{'scheduler.alpha.kubernetes.io/critical-pod':''}},"
		"'spec':{'priorityClassName':'','priority':0,'preemptionPolicy':'PreemptLowerPriority',"
		"'containers':[{'name':'c','image':'i'}]}}";
	struct config *cfg = config_new_default();
	struct rules_error err;
	struct rules_result res;
	char text[512];
	json_t *out;

	snprintf(text, sizeof(text), owned, "true");
	out = test_run_squoted(text, NULL, NULL, &res, failures);
	CHECK_STR(test_string_at(out, "/spec/priorityClassName"), "system-node-critical");
	json_decref(out);
	rules_result_clear(&res);
	/* an owner that does not control the pod does not make it a node agent */
	snprintf(text, sizeof(text), owned, "false");
	out = test_run_squoted(text, NULL, NULL, &res, failures);
	CHECK_STR(test_string_at(out, "/spec/priorityClassName"), "system-cluster-critical");
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted(with_class, NULL, NULL, &res, failures);
	CHECK_STR(test_string_at(out, "/spec/priorityClassName"), "high");
	CHECK(json_pointer_get(out, "/metadata/annotations") == NULL);
	CHECK(test_ops_of(&res, CP) == 1);
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted(null_class, NULL, NULL, &res, failures);
	CHECK_STR(test_string_at(out, "/spec/priorityClassName"), "system-cluster-critical");
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted(resolved, NULL, NULL, &res, failures);
	CHECK_STR(test_string_at(out, "/spec/priorityClassName"), "system-cluster-critical");
	CHECK(json_pointer_get(out, "/spec/priority") == NULL);
	CHECK_STR(test_string_at(out, "/spec/preemptionPolicy"), "PreemptLowerPriority");
	json_decref(out);
	rules_result_clear(&res);
	/* a kept class keeps its priority */
	out = test_run_squoted("{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','annotations':"
			       "{'scheduler.alpha.kubernetes.io/critical-pod':''}},'spec':{"
			       "'priorityClassName':'high','priority':1000,'containers':[{'name':'c','image':'i'}]}}",
			       NULL, NULL, &res, failures);
	CHECK(json_integer_value(json_pointer_get(out, "/spec/priority")) == 1000);
	json_decref(out);
	rules_result_clear(&res);

	/* the classes come from the config */
	CHECK(cfg && apply_squoted(cfg, "{'priority':{'defaultClass':'addons.example.com'}}", &err) == 0);
	out = test_run_squoted(null_class, cfg, NULL, &res, failures);
	CHECK_STR(test_string_at(out, "/spec/priorityClassName"), "addons.example.com");
	json_decref(out);
	rules_result_clear(&res);

	/* warn: reported, nothing changed */
	cfg->mode[CP] = RULE_MODE_WARN;
	out = test_run_squoted(with_class, cfg, NULL, &res, failures);
	CHECK(res.n_ops == 0 && test_count_findings(&res, CP, NULL) == 1);
	CHECK(res.findings[0].severity == SEVERITY_WARNING && !res.findings[0].fixed);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

/* ------------------------------------------------------------------ */
/* obsolete-gpu-component                                              */

#define OC RULE_OBSOLETE_GPU_COMPONENT

/* The number of obsolete-gpu-component findings for a pod with `image`. */
static int component_findings(const char *image, const struct config *cfg,
			      int *failures)
{
	char text[512];
	struct rules_result res;
	json_t *out;
	int n;

	snprintf(text, sizeof(text),
		 "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p'},"
		 "'spec':{'initContainers':[{'name':'init','image':'busybox'}],"
		 "'containers':[{'name':'c','image':'%s'}]}}", image);
	out = test_run_squoted(text, cfg, NULL, &res, failures);
	n = test_count_findings(&res, OC, "/spec/containers/0/image");
	CHECK(test_ops_of(&res, OC) == 0);
	json_decref(out);
	rules_result_clear(&res);
	return n;
}

TEST(obsolete_component_images)
{
	static const char *const obsolete[] = {
		"nvidia/k8s-device-plugin:1.8", "nvidia/k8s-device-plugin:1.9",
		"nvidia/k8s-device-plugin:1.11",
		"nvidia/k8s-device-plugin:1.0.0-beta4",
		"nvcr.io/nvidia/k8s-device-plugin:1.0.0-beta6",
		"mcr.example.com/oss/nvidia/k8s-device-plugin:1.10",
		"registry.example.com/acs/k8s-gpushare-plugin:v2-1.11-aff8a23",
		"registry.example.com/acs/k8s-gpushare-schd-extender:1.11-d170d8a",
		"example/gpushare-device-plugin:2.0",
		"example/gpushare-scheduler-extender:v1.0",
		"example/schd-extender-deployer:201904162314",
		"example/device-plugin-evict:201904162318",
		"example/nvidia-docker-plugin:1.0.1",
	};
	static const char *const current[] = {
		"nvcr.io/nvidia/k8s-device-plugin:v0.14.1",
		"nvidia/k8s-device-plugin:v0.9.0",
		"nvcr.io/nvidia/k8s-device-plugin@sha256:0123",
		/* AMD's plugin of the same name is no NVIDIA plugin */
		"docker.io/rocm/k8s-device-plugin:1.0",
		"rocm/k8s-device-plugin:1.25.2.5",
		"nvcr.io/nvidia/gpu-operator:v24.9.0",
		"nvidia/cuda:12.2.0-base-ubuntu22.04",
	};

	for (size_t i = 0; i < sizeof(obsolete) / sizeof(obsolete[0]); i++) {
		int n = component_findings(obsolete[i], NULL, failures);

		if (n != 1)
			fprintf(stderr, "  '%s': %d findings, want 1\n", obsolete[i], n);
		CHECK(n == 1);
	}
	for (size_t i = 0; i < sizeof(current) / sizeof(current[0]); i++) {
		int n = component_findings(current[i], NULL, failures);

		if (n != 0)
			fprintf(stderr, "  '%s': %d findings, want 0\n", current[i], n);
		CHECK(n == 0);
	}
}

TEST(obsolete_component_messages_and_config)
{
	static const char long_image[] =
		"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p'},'spec':{'containers':["
		"{'name':'a-container-name-long-enough-to-leave-no-room-for-its-image-xxxx',"
		"'image':'registry.example.com/a/very/long/path/k8s-gpushare-plugin:v2-1.11-aff8a23'},"
		"{'name':'short','image':'registry.example.com/a/very/long/path/k8s-gpushare-plugin:v2-1.11-aff8a23'},"
		"{'name':'dp','image':'nvidia/k8s-device-plugin:1.9'}]}}";
	struct config *cfg = config_new_default();
	struct rules_error err;
	struct rules_result res;
	struct string_list triggers = { 0 };
	const struct finding *f;
	json_t *out;

	out = test_run_squoted(long_image, NULL, NULL, &res, failures);
	f = test_finding_at(&res, OC, "/spec/containers/0/image");
	CHECK_STR(f ? f->message : NULL,
		  "obsolete GPU component; use NVIDIA device plugin, time-slicing or MPS");
	f = test_finding_at(&res, OC, "/spec/containers/1/image");
	CHECK_STR(f ? f->message : NULL,
		  "container 'short' is obsolete; use NVIDIA device plugin, time-slicing or MPS");
	f = test_finding_at(&res, OC, "/spec/containers/2/image");
	CHECK_STR(f ? f->message : NULL,
		  "'nvidia/k8s-device-plugin:1.9' is obsolete; use NVIDIA device plugin v0.x or GPU Operator");
	json_decref(out);
	rules_result_clear(&res);

	/* lint only: mutate is refused */
	CHECK(cfg && apply_squoted(cfg, "{'rules':{'obsolete-gpu-component':'mutate'}}", &err) == -1);
	CHECK(cfg && strstr(err.message, "cannot mutate") != NULL);
	/* the list replaces the default; a replacement is short */
	CHECK(apply_squoted(cfg, "{'components':{'obsolete':{'old/plugin:*':'use new/plugin'}}}", &err) == 0);
	CHECK(component_findings("old/plugin:3", cfg, failures) == 1);
	CHECK(component_findings("nvidia/k8s-device-plugin:1.9", cfg, failures) == 0);
	CHECK(apply_squoted(cfg, "{'components':{'obsolete':{'x:*':'"
			    "use a replacement whose description is far too long'}}}", &err) == -1);
	CHECK_STR(err.pointer, "/components/obsolete/x:*");
	CHECK(apply_squoted(cfg, "{'components':{'obsolete':['x:*']}}", &err) == -1);
	CHECK_STR(err.pointer, "/components/obsolete");
	/* a pattern without a literal could match any image: no trigger set */
	CHECK(apply_squoted(cfg, "{'components':{'obsolete':{'*':'use something'}}}", &err) == 0);
	CHECK(rules_triggers(cfg, &triggers) == 1 && triggers.n == 0);
	string_list_clear(&triggers);
	config_free(cfg);
}

/* ------------------------------------------------------------------ */
/* legacy-scheduler-config                                             */

#define SC RULE_LEGACY_SCHEDULER_CONFIG

TEST(scheduler_policy_documents)
{
	static const char policy[] =
		"{'kind':'Policy','apiVersion':'v1','predicates':[{'name':'PodFitsResources'}],"
		"'extenders':[{'urlPrefix':'http://x','managedResources':[{'name':'aliyun.com/gpu-count'},"
		"{'name':'example.com/other'},{'name':'aliyun.com/gpu'}]}]}";
	static const char *const not_scheduler[] = {
		/* Kyverno's and the audit log's Policy kinds */
		"{'apiVersion':'kyverno.io/v1','kind':'Policy','metadata':{'name':'p'},"
		"'spec':{'rules':[{'name':'priorities'}]}}",
		"{'apiVersion':'audit.k8s.io/v1','kind':'Policy','rules':[{'level':'Metadata'}],"
		"'omitStages':['RequestReceived']}",
		/* no Policy member at all */
		"{'apiVersion':'v1','kind':'Policy'}",
	};
	struct rules_result res;
	json_t *out;

	out = test_run_squoted(policy, NULL, NULL, &res, failures);
	CHECK(test_finding_at(&res, SC, "/kind") &&
	      test_finding_at(&res, SC, "/kind")->severity == SEVERITY_ERROR);
	CHECK(test_finding_at(&res, SC, "/extenders/0/managedResources/0"));
	CHECK(!test_finding_at(&res, SC, "/extenders/0/managedResources/1"));
	/* a vendor whole-GPU resource is migrated too */
	CHECK(test_finding_at(&res, SC, "/extenders/0/managedResources/2"));
	CHECK(res.errors == 1 && res.n_ops == 0);
	json_decref(out);
	rules_result_clear(&res);
	/* without apiVersion, as files often were */
	out = test_run_squoted("{'kind':'Policy','priorities':[{'name':'LeastRequestedPriority','weight':1}]}",
			       NULL, NULL, &res, failures);
	CHECK(test_count_findings(&res, SC, "/kind") == 1);
	json_decref(out);
	rules_result_clear(&res);

	for (size_t i = 0; i < sizeof(not_scheduler) / sizeof(not_scheduler[0]); i++) {
		out = test_run_squoted(not_scheduler[i], NULL, NULL, &res, failures);
		CHECK(test_count_findings(&res, SC, NULL) == 0);
		json_decref(out);
		rules_result_clear(&res);
	}
}

TEST(scheduler_configuration_versions)
{
	static const char kept[] =
		"{'apiVersion':'kubescheduler.config.k8s.io/v1beta3','kind':'KubeSchedulerConfiguration',"
		"'parallelism':16,'percentageOfNodesToScore':50,'clientConnection':{'kubeconfig':'/k'},"
		"'profiles':[{'schedulerName':'default-scheduler'},{'schedulerName':'gpu'}],"
		"'extenders':[{'urlPrefix':'http://x','filterVerb':'filter','weight':1}]}";
	static const char *const unkept[][2] = {
		{ "{'apiVersion':'kubescheduler.config.k8s.io/v1beta2','kind':'KubeSchedulerConfiguration',"
		  "'metricsBindAddress':'0.0.0.0:10251'}", "/metricsBindAddress" },
		{ "{'apiVersion':'kubescheduler.config.k8s.io/v1beta1','kind':'KubeSchedulerConfiguration',"
		  "'extenders':[{'urlPrefix':'http://x','apiVersion':'v1'}]}", "/extenders/0/apiVersion" },
		{ "{'apiVersion':'kubescheduler.config.k8s.io/v1beta3','kind':'KubeSchedulerConfiguration',"
		  "'profiles':[{'schedulerName':'s','pluginConfig':[]}]}", "/profiles/0/pluginConfig" },
	};
	struct config *warn = test_config_only(SC, RULE_MODE_WARN);
	struct rules_result res;
	const struct finding *f;
	json_t *out;

	out = test_run_squoted(kept, NULL, NULL, &res, failures);
	CHECK_STR(test_string_at(out, "/apiVersion"), "kubescheduler.config.k8s.io/v1");
	f = test_finding_at(&res, SC, "/apiVersion");
	CHECK(f && f->fixed);
	CHECK_STR(f ? f->message : NULL,
		  "moved KubeSchedulerConfiguration from v1beta3 (removed in 1.29) to v1");
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted(kept, warn, NULL, &res, failures);
	CHECK(res.n_ops == 0 && test_count_findings(&res, SC, "/apiVersion") == 1);
	json_decref(out);
	rules_result_clear(&res);

	for (size_t i = 0; i < sizeof(unkept) / sizeof(unkept[0]); i++) {
		out = test_run_squoted(unkept[i][0], NULL, NULL, &res, failures);
		f = test_finding_at(&res, SC, unkept[i][1]);
		CHECK(f && f->severity == SEVERITY_ERROR);
		CHECK(res.n_ops == 0);
		json_decref(out);
		rules_result_clear(&res);
	}
	/* v1 and the alpha of another group are left alone */
	out = test_run_squoted("{'apiVersion':'kubescheduler.config.k8s.io/v1','kind':'KubeSchedulerConfiguration',"
			       "'healthzBindAddress':'x'}", NULL, NULL, &res, failures);
	CHECK(test_count_findings(&res, SC, NULL) == 0);
	json_decref(out);
	rules_result_clear(&res);
	config_free(warn);
}

TEST(scheduler_flags_and_configmaps)
{
	static const char pod[] =
		"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'kube-scheduler'},"
		"'spec':{'containers':[{'name':'s','image':'k8s/kube-scheduler:v1.18.0',"
		"'command':['kube-scheduler','--policy-config-file=/p.json',"
		"'--policy-configmap','sched','--policy-configmap-namespace=kube-system',"
		"'--policy-config-files=/not/a/flag','--use-legacy-policy-config']},"
		"{'name':'sh','image':'k8s/kube-scheduler:v1.18.0','command':['sh','-c'],"
		"'args':['exec kube-scheduler --policy-configmap=sched --v=2']}]}}";
	static const char configmap[] =
		"{'apiVersion':'v1','kind':'ConfigMap','metadata':{'name':'c'},'data':{"
		"'json':'{\\'apiVersion\\': \\'kubescheduler.config.k8s.io/v1beta2\\', \\'kind\\': \\'KubeSchedulerConfiguration\\'}',"
		"'yaml':'apiVersion: v1\\nkind: Policy\\npriorities:\\n- name: MostRequestedPriority\\n',"
		"'other':'kind: Policyholder\\npriorities: []\\n',"
		"'text':'plain text that mentions predicates'}}";
	struct rules_result res;
	const char *base = "/spec/containers/0/command/";
	json_t *out;

	out = test_run_squoted(pod, NULL, NULL, &res, failures);
	CHECK(res.n_ops == 0);
	CHECK(test_count_findings(&res, SC, "/spec/containers/0/command/1") == 1);
	CHECK(test_count_findings(&res, SC, "/spec/containers/0/command/2") == 1);
	/* the namespace flag is reported as itself, not as --policy-configmap */
	CHECK(test_count_findings(&res, SC, "/spec/containers/0/command/4") == 1);
	CHECK(strstr(test_finding_at(&res, SC, "/spec/containers/0/command/4")->message,
		     "'--policy-configmap-namespace'") != NULL);
	CHECK(test_count_findings(&res, SC, "/spec/containers/0/command/5") == 0);
	CHECK(test_count_findings(&res, SC, "/spec/containers/0/command/6") == 1);
	CHECK(test_count_findings(&res, SC, "/spec/containers/1/args/0") == 1);
	(void)base;
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted(configmap, NULL, NULL, &res, failures);
	CHECK(test_count_findings(&res, SC, "/data/json") == 1);
	CHECK(test_count_findings(&res, SC, "/data/yaml") == 1);
	CHECK(test_count_findings(&res, SC, "/data/other") == 0);
	CHECK(test_count_findings(&res, SC, "/data/text") == 0);
	CHECK(res.n_ops == 0);
	json_decref(out);
	rules_result_clear(&res);
}

/* ------------------------------------------------------------------ */
/* legacy-gpu-resource: every occurrence, vendor whole GPUs            */

#define LR RULE_LEGACY_GPU_RESOURCE
#define C0R "/spec/containers/0/resources"

TEST(legacy_resource_every_occurrence_and_vendor_gpus)
{
	static const char both[] =
		"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p'},'spec':{'containers':["
		"{'name':'c','image':'i','resources':{'limits':{'alpha.kubernetes.io/nvidia-gpu':1},"
		"'requests':{'alpha.kubernetes.io/nvidia-gpu':1}}}]}}";
	static const char vendor[] =
		"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p'},'spec':{'containers':["
		"{'name':'c','image':'nvidia/cuda:10.0-base','resources':{'requests':{'aliyun.com/gpu':2}}}]}}";
	static const char conflict[] =
		"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p'},'spec':{'containers':["
		"{'name':'c','image':'i','resources':{'limits':{'aliyun.com/gpu':2,'nvidia.com/gpu':1}}}]}}";
	struct config *lint = config_new_default();
	struct rules_options report_only = { .offline = 1, .report_only = 1 };
	struct rules_result res;
	json_t *out;

	/* lint: one finding at each key, at its own place */
	out = test_run_squoted(both, lint, &report_only, &res, failures);
	CHECK(test_count_findings(&res, LR, NULL) == 2);
	CHECK(test_finding_at(&res, LR, C0R "/limits/alpha.kubernetes.io~1nvidia-gpu"));
	CHECK(test_finding_at(&res, LR, C0R "/requests/alpha.kubernetes.io~1nvidia-gpu"));
	json_decref(out);
	rules_result_clear(&res);
	/* migrate: both renamed, both reported as fixed */
	out = test_run_squoted(both, NULL, NULL, &res, failures);
	CHECK(test_count_findings(&res, LR, NULL) == 2);
	for (size_t i = 0; i < res.n_findings; i++)
		CHECK(res.findings[i].fixed);
	json_decref(out);
	rules_result_clear(&res);

	/* aliyun.com/gpu counts whole GPUs: renamed, the limit added, and the
	 * CUDA image is no gpu-visibility finding */
	out = test_run_squoted(vendor, NULL, NULL, &res, failures);
	CHECK(json_integer_value(json_pointer_get(out, C0R "/limits/nvidia.com~1gpu")) == 2);
	CHECK(json_integer_value(json_pointer_get(out, C0R "/requests/nvidia.com~1gpu")) == 2);
	CHECK(test_count_findings(&res, RULE_GPU_VISIBILITY, NULL) == 0);
	CHECK(test_count_findings(&res, RULE_GPU_SHARING, NULL) == 0);
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted(conflict, NULL, NULL, &res, failures);
	CHECK(res.errors == 1 && res.n_ops == 0);
	json_decref(out);
	rules_result_clear(&res);
	config_free(lint);
}

TEST(legacy_resource_vendor_config_checks)
{
	struct config *cfg = config_new_default();
	struct rules_error err;

	/* a vendor GPU that is also a sharing resource would be rewritten twice */
	CHECK(cfg && apply_squoted(cfg, "{'resources':{'vendorGPUs':['aliyun.com/gpu-count']}}", &err) == -1);
	CHECK_STR(err.pointer, "/resources/vendorGPUs/0");
	/* and the GPU resource cannot be one: the rename would never end */
	CHECK(apply_squoted(cfg, "{'resources':{'vendorGPUs':['nvidia.com/gpu']}}", &err) == -1);
	CHECK_STR(err.pointer, "/resources/gpu");
	CHECK(apply_squoted(cfg, "{'resources':{'vendorGPUs':[]}}", &err) == 0);
	CHECK(cfg->vendor_gpu_resources.n == 0);
	config_free(cfg);
}

/* ------------------------------------------------------------------ */
/* gpu-sharing: units, sizes, selectors                                 */

#define GS RULE_GPU_SHARING

/* The MiB that the record annotation holds for a pod asking for `value`
 * of `resource`, or -1 when the pod is refused (and -2 when it is left
 * otherwise). */
static long long recorded_mib(const char *resource, const char *value,
			      const struct config *cfg, int *warned,
			      int *failures)
{
	char text[512];
	struct rules_result res;
	const char *record;
	long long mib = -2;
	json_t *out;

	snprintf(text, sizeof(text),
		 "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p'},'spec':{'containers':["
		 "{'name':'c','image':'i','resources':{'limits':{'%s':%s}}}]}}",
		 resource, value);
	out = test_run_squoted(text, cfg, NULL, &res, failures);
	record = test_string_at(out, "/metadata/annotations/gpumend.io~1gpu-memory-request");
	if (res.errors)
		mib = -1;
	else if (record && strncmp(record, "c=", 2) == 0)
		mib = strtoll(record + 2, NULL, 10);
	*warned = 0;
	for (size_t i = 0; i < res.n_findings; i++)
		*warned |= strstr(res.findings[i].message, "as MiB") != NULL;
	json_decref(out);
	rules_result_clear(&res);
	return mib;
}

TEST(sharing_memory_units_and_sizes)
{
	struct config *cfg = config_new_default();
	struct rules_error err;
	int warned;

	/* 288 GiB is a GPU's size: kept as GiB */
	CHECK(recorded_mib("aliyun.com/gpu-mem", "288", NULL, &warned, failures) == 288 * 1024 && !warned);
	/* more GiB than any GPU has: MiB, and said so */
	CHECK(recorded_mib("aliyun.com/gpu-mem", "289", NULL, &warned, failures) == 289 && warned);
	CHECK(recorded_mib("aliyun.com/gpu-mem", "8138", NULL, &warned, failures) == 8138 && warned);
	CHECK(recorded_mib("aliyun.com/gpu-mem", "'16276'", NULL, &warned, failures) == 16276 && warned);
	/* the largest size in MiB too; one MiB more is refused */
	CHECK(recorded_mib("aliyun.com/gpu-mem", "294912", NULL, &warned, failures) == 294912);
	CHECK(recorded_mib("aliyun.com/gpu-mem", "294913", NULL, &warned, failures) == -1);
	/* a byte quantity of a GiB resource is 2 Gi units: impossible */
	CHECK(recorded_mib("aliyun.com/gpu-mem", "'2Gi'", NULL, &warned, failures) == -1);
	/* a MiB resource is never reread; too much is refused */
	CHECK(recorded_mib("volcano.sh/gpu-memory", "1024", NULL, &warned, failures) == 1024 && !warned);
	CHECK(recorded_mib("volcano.sh/gpu-memory", "400000", NULL, &warned, failures) == -1);
	/* the bound comes from the config */
	CHECK(cfg && apply_squoted(cfg, "{'sharing':{'maxGPUMemoryGiB':16}}", &err) == 0);
	CHECK(recorded_mib("aliyun.com/gpu-mem", "24", cfg, &warned, failures) == 24 && warned);
	CHECK(recorded_mib("aliyun.com/gpu-mem", "16", cfg, &warned, failures) == 16384 && !warned);
	CHECK(apply_squoted(cfg, "{'sharing':{'maxGPUMemoryGiB':0}}", &err) == -1);
	config_free(cfg);
}

TEST(sharing_gpu_count_beside_memory)
{
	static const char pod[] =
		"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p'},'spec':{'containers':["
		"{'name':'c','image':'i','resources':{'limits':{'aliyun.com/gpu-mem':4064,"
		"'aliyun.com/gpu-count':2}}}]}}";
	struct rules_result res;
	json_t *out = test_run_squoted(pod, NULL, NULL, &res, failures);
	json_t *limits = json_pointer_get(out, C0R "/limits");

	/* one resource left, the count of shared GPUs */
	CHECK(json_object_size(limits) == 1);
	CHECK(json_integer_value(json_object_get(limits, "nvidia.com/gpu")) == 2);
	CHECK_STR(test_string_at(out, "/metadata/annotations/gpumend.io~1gpu-memory-request"), "c=4064Mi");
	json_decref(out);
	rules_result_clear(&res);
}

TEST(sharing_selector_replaced_never_dropped)
{
	static const char plugin[] =
		"{'apiVersion':'apps/v1','kind':'DaemonSet','metadata':{'name':'d'},"
		"'spec':{'selector':{'matchLabels':{'a':'b'}},'template':{'metadata':{'labels':{'a':'b'}},"
		"'spec':{'nodeSelector':{'gpushare':true},%s"
		"'containers':[{'name':'c','image':'example/plugin:1'}]}}}}";
	static const char placed[] =
		"'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':"
		"{'nodeSelectorTerms':[{'matchExpressions':[{'key':'nvidia.com/gpu.sharing-strategy',"
		"'operator':'In','values':['time-slicing']}]}]}}},";
	static const char two_terms[] =
		"'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':"
		"{'nodeSelectorTerms':[{'matchExpressions':[{'key':'zone','operator':'In','values':['a']}]},"
		"{'matchExpressions':[{'key':'zone','operator':'In','values':['b']}]}]}}},";
	const char *expr = TPL "/spec" REQUIRED_EXPR(0);
	struct config *cfg = config_new_default();
	struct rules_result res;
	const struct finding *f;
	char text[1024];
	json_t *out;

	/* a pod that requests no GPU (a boolean true, as YAML reads it) */
	snprintf(text, sizeof(text), plugin, "");
	out = test_run_squoted(text, NULL, NULL, &res, failures);
	CHECK(json_pointer_get(out, TPL "/spec/nodeSelector") == NULL);
	CHECK_STR(test_string_at(out, TPL "/spec" REQUIRED_EXPR(0) "/key"), "nvidia.com/gpu.sharing-strategy");
	CHECK_STR(test_string_at(out, TPL "/spec" REQUIRED_EXPR(0) "/values/0"), "time-slicing");
	f = test_finding_at(&res, GS, TPL "/spec/nodeSelector/gpushare");
	CHECK_STR(f ? f->message : NULL,
		  "replaced selector 'gpushare: true' by node affinity on 'nvidia.com/gpu.sharing-strategy'");
	/* no sharing label: the pod shares nothing */
	CHECK(json_pointer_get(out, TPL "/metadata/labels/gpumend.io~1gpu-sharing") == NULL);
	json_decref(out);
	rules_result_clear(&res);

	/* already placed on sharing nodes: the selector just goes */
	snprintf(text, sizeof(text), plugin, placed);
	out = test_run_squoted(text, NULL, NULL, &res, failures);
	CHECK(json_array_size(json_pointer_get(out, TPL "/spec/affinity/nodeAffinity/"
		"requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions")) == 1);
	f = test_finding_at(&res, GS, TPL "/spec/nodeSelector/gpushare");
	CHECK(f && strstr(f->message, "removed legacy GPU-sharing node selector"));
	json_decref(out);
	rules_result_clear(&res);

	/* every term gets the requirement: terms are ORed */
	snprintf(text, sizeof(text), plugin, two_terms);
	out = test_run_squoted(text, NULL, NULL, &res, failures);
	CHECK_STR(test_string_at(out, TPL "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/"
				 "nodeSelectorTerms/1/matchExpressions/1/key"), "nvidia.com/gpu.sharing-strategy");
	json_decref(out);
	rules_result_clear(&res);

	/* mps labels mps nodes; keep keeps the selector */
	cfg->strategy = SHARING_MPS;
	snprintf(text, sizeof(text), plugin, "");
	out = test_run_squoted(text, cfg, NULL, &res, failures);
	CHECK_STR(test_string_at(out, TPL "/spec" REQUIRED_EXPR(0) "/values/0"), "mps");
	json_decref(out);
	rules_result_clear(&res);
	cfg->strategy = SHARING_KEEP;
	out = test_run_squoted(text, cfg, NULL, &res, failures);
	CHECK(json_pointer_get(out, TPL "/spec/nodeSelector/gpushare") != NULL);
	CHECK(json_pointer_get(out, TPL "/spec/affinity") == NULL);
	json_decref(out);
	rules_result_clear(&res);
	(void)expr;
	config_free(cfg);
}

/* ------------------------------------------------------------------ */
/* gpu-visibility and obsolete-cuda-hostpath: the stack's own parts    */

TEST(visibility_leaves_the_stack_and_all_alone)
{
	static const char pod[] =
		"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p'},'spec':{'containers':["
		"{'name':'dp','image':'nvcr.io/nvidia/k8s-device-plugin:v0.17.1',"
		" 'env':[{'name':'NVIDIA_VISIBLE_DEVICES','value':'all'}]},"
		"{'name':'legacy','image':'registry.example.com/acs/k8s-gpushare-plugin:v2'},"
		"{'name':'exporter','image':'nvcr.io/nvidia/k8s/dcgm-exporter:3.3.9-3.6.1-ubuntu22.04'},"
		"{'name':'all','image':'nvidia/cuda:12.2.0-base-ubuntu22.04',"
		" 'env':[{'name':'NVIDIA_VISIBLE_DEVICES','value':'all'}]},"
		"{'name':'some','image':'busybox','env':[{'name':'NVIDIA_VISIBLE_DEVICES','value':'0'}]},"
		"{'name':'cuda','image':'nvidia/cuda:12.2.0-base-ubuntu22.04'}]}}";
	struct config *cfg = test_config_only(RULE_GPU_VISIBILITY, RULE_MODE_MUTATE);
	struct rules_result res;
	json_t *out = test_run_squoted(pod, cfg, NULL, &res, failures);

	CHECK(test_count_findings(&res, RULE_GPU_VISIBILITY, NULL) == 2);
	CHECK(test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/containers/4/env/0") != NULL);
	CHECK(test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/containers/5/image") != NULL);
	CHECK_STR(test_string_at(out, "/spec/containers/0/env/0/value"), "all");
	CHECK_STR(test_string_at(out, "/spec/containers/3/env/0/value"), "all");
	CHECK(json_pointer_get(out, "/spec/containers/1/env") == NULL);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(hostpath_stack_volumes_and_new_paths)
{
	static const char pod[] =
		"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p'},'spec':{"
		"'initContainers':[{'name':'install','image':'example/cos-nvidia-installer:fixed',"
		" 'volumeMounts':[{'name':'shared','mountPath':'/usr/local/nvidia'}]}],"
		"'containers':[{'name':'app','image':'example/app:1','resources':{'limits':{'nvidia.com/gpu':1}},"
		" 'volumeMounts':[{'name':'shared','mountPath':'/usr/local/nvidia'},"
		"  {'name':'copy','mountPath':'/usr/local/nvidia'},"
		"  {'name':'gke','mountPath':'/usr/local/nvidia/lib64'},"
		"  {'name':'data','mountPath':'/usr/local/nvidia/data'},"
		"  {'name':'elsewhere','mountPath':'/gke'}]}],"
		"'volumes':[{'name':'shared','hostPath':{'path':'/usr/local/nvidia'}},"
		" {'name':'copy','hostPath':{'path':'/opt/nvidia-driver/current'}},"
		" {'name':'gke','hostPath':{'path':'/home/kubernetes/bin/nvidia/lib64'}},"
		" {'name':'data','hostPath':{'path':'/srv/data'}},"
		" {'name':'elsewhere','hostPath':{'path':'/home/kubernetes/bin/nvidia'}}]}}";
	struct rules_result res;
	const struct finding *f;
	json_t *out = test_run_squoted_any_length(pod, NULL, NULL, &res, failures);
	json_t *volumes = json_pointer_get(out, "/spec/volumes");

	/* the installer's volume is its own, obsolete path or not */
	CHECK(!test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/volumes/0"));
	/* a copy of nvidia-docker's driver volume goes */
	f = test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/volumes/1");
	CHECK(f && f->fixed);
	/* GKE's directory, mounted by hand into a GPU container where the
	 * device plugin mounts it: goes */
	f = test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/volumes/2");
	CHECK(f && f->fixed);
	/* any other host path mounted there: warned about */
	f = test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/volumes/3");
	CHECK(f && !f->fixed);
	/* mounted elsewhere, not a driver mount */
	CHECK(!test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/volumes/4"));
	CHECK(json_array_size(volumes) == 3);
	CHECK_STR(test_string_at(out, "/spec/volumes/0/name"), "shared");
	CHECK_STR(test_string_at(out, "/spec/volumes/1/name"), "data");
	json_decref(out);
	rules_result_clear(&res);
}

/* ------------------------------------------------------------------ */
/* deprecated-workload-api: apps/v1 without a selector                 */

TEST(workload_apps_v1_selector)
{
	static const char *const kinds[] = { "Deployment", "DaemonSet", "ReplicaSet", "StatefulSet" };
	static const char tpl[] =
		"{'apiVersion':'apps/v1','kind':'%s','metadata':{'name':'w'},"
		"'spec':{%s'template':{'metadata':{'labels':{'app':'w'}},"
		"'spec':{'containers':[{'name':'c','image':'i'}]}}}}";
	struct rules_result res;
	char text[512];
	json_t *out;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		snprintf(text, sizeof(text), tpl, kinds[i], "");
		out = test_run_squoted(text, NULL, NULL, &res, failures);
		CHECK_STR(test_string_at(out, "/spec/selector/matchLabels/app"), "w");
		CHECK_STR(test_string_at(out, "/apiVersion"), "apps/v1");
		json_decref(out);
		rules_result_clear(&res);
	}
	/* a null selector is filled; one that is there is kept */
	snprintf(text, sizeof(text), tpl, "Deployment", "'selector':null,");
	out = test_run_squoted(text, NULL, NULL, &res, failures);
	CHECK_STR(test_string_at(out, "/spec/selector/matchLabels/app"), "w");
	json_decref(out);
	rules_result_clear(&res);
	snprintf(text, sizeof(text), tpl, "Deployment", "'selector':{'matchLabels':{'app':'w'}},");
	out = test_run_squoted(text, NULL, NULL, &res, failures);
	CHECK(res.n_findings == 0 && res.n_ops == 0);
	json_decref(out);
	rules_result_clear(&res);
	/* without template labels: an error, nothing changed */
	out = test_run_squoted("{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'w'},"
			       "'spec':{'template':{'spec':{'containers':[{'name':'c','image':'i'}]}}}}",
			       NULL, NULL, &res, failures);
	CHECK(res.errors == 1 && res.n_ops == 0);
	json_decref(out);
	rules_result_clear(&res);
	/* the webhook never runs the rule: the API server refuses such objects */
	{
		static const struct rules_options webhook = { .offline = 0 };

		snprintf(text, sizeof(text), tpl, "Deployment", "");
		out = test_run_squoted(text, NULL, &webhook, &res, failures);
		CHECK(res.n_findings == 0 && res.n_ops == 0);
		json_decref(out);
		rules_result_clear(&res);
	}
}

/* ------------------------------------------------------------------ */
/* gpu.product under sharing without rename                            */

TEST(product_values_with_shared_spelling)
{
	struct config *cfg = config_new_default();
	json_t *values = json_pack("[s,s,s,s]", "Tesla-T4", "A100-SXM4-80GB-SHARED",
				   "Tesla-T4-SHARED", "");
	char name[64];

	CHECK(cfg && values);
	if (!cfg || !values)
		goto out;
	/* unrenamed shared GPUs (the default), but a pod that does not
	 * share: nothing to add */
	CHECK(product_label_drifts(cfg, 0) == 0);
	CHECK(product_values_add_shared(cfg, 0, values) == 0 && json_array_size(values) == 4);
	/* renamed shared GPUs: nothing to add either */
	free(cfg->shared_gpu_resource);
	cfg->shared_gpu_resource = strdup("nvidia.com/gpu.shared");
	CHECK(product_label_drifts(cfg, 1) == 0);
	CHECK(product_values_add_shared(cfg, 1, values) == 0 && json_array_size(values) == 4);
	free(cfg->shared_gpu_resource);
	cfg->shared_gpu_resource = strdup(cfg->gpu_resource);
	CHECK(product_label_drifts(cfg, 1) == 1);
	CHECK(product_values_add_shared(cfg, 1, values) == 0);
	/* present already, or ending with the suffix, or empty: nothing new */
	CHECK(json_array_size(values) == 4);
	json_array_clear(values);
	memset(name, 'x', 60);
	name[60] = '\0';
	json_array_append_new(values, json_string(name));
	json_array_append_new(values, json_string("Tesla-K80"));
	CHECK(product_values_add_shared(cfg, 1, values) == 0);
	/* a name the suffix would make too long a label value is left */
	CHECK(json_array_size(values) == 3);
	CHECK_STR(json_string_value(json_array_get(values, 2)), "Tesla-K80-SHARED");
	/* only time-slicing and MPS append the suffix */
	cfg->strategy = SHARING_HAMI;
	CHECK(product_label_drifts(cfg, 1) == 0);
	cfg->strategy = SHARING_MPS;
	CHECK(product_label_drifts(cfg, 1) == 1);
out:
	json_decref(values);
	config_free(cfg);
}

TEST(product_drift_in_rules)
{
	static const char selector_pod[] =
		"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p'},'spec':{"
		"'nodeSelector':{'alpha.kubernetes.io/nvidia-gpu-name':'Tesla K80','zone':'a'},"
		"'containers':[{'name':'c','image':'i','resources':{'limits':{'aliyun.com/gpu-mem':4}}}]}}";
	static const char exclusive_pod[] =
		"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p'},'spec':{"
		"'nodeSelector':{'alpha.kubernetes.io/nvidia-gpu-name':'Tesla K80'},"
		"'containers':[{'name':'c','image':'i','resources':{'limits':{'nvidia.com/gpu':1}}}]}}";
	static const char policy_pod[] =
		"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','namespace':'ml',"
		"'labels':{'gpumend.io/gpu-sharing':'time-slicing'}},'spec':{"
		"'containers':[{'name':'c','image':'i','resources':{'limits':{'nvidia.com/gpu':1}}}]}}";
	struct config *cfg = config_new_default();
	struct rules_error err;
	struct rules_result res;
	json_t *out;

	CHECK(cfg && apply_squoted(cfg, "{'resources':{'sharedGPU':'nvidia.com/gpu'},"
				   "'models':{'namespaces':{'ml':['Tesla T4']}}}", &err) == 0);
	out = test_run_squoted(selector_pod, cfg, NULL, &res, failures);
	/* the legacy selector became affinity; the other one stays */
	CHECK(json_pointer_get(out, "/spec/nodeSelector/alpha.kubernetes.io~1nvidia-gpu-name") == NULL);
	CHECK_STR(test_string_at(out, "/spec/nodeSelector/zone"), "a");
	CHECK_STR(test_string_at(out, "/spec" REQUIRED_EXPR(0) "/values/0"), "Tesla-K80");
	CHECK_STR(test_string_at(out, "/spec" REQUIRED_EXPR(0) "/values/1"), "Tesla-K80-SHARED");
	json_decref(out);
	rules_result_clear(&res);

	/* a pod with a GPU of its own stays off the shared nodes */
	out = test_run_squoted(exclusive_pod, cfg, NULL, &res, failures);
	CHECK_STR(test_string_at(out, "/spec/nodeSelector/nvidia.com~1gpu.product"), "Tesla-K80");
	CHECK(json_pointer_get(out, "/spec/affinity") == NULL);
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted(policy_pod, cfg, NULL, &res, failures);
	CHECK_STR(test_string_at(out, "/spec" REQUIRED_EXPR(0) "/values/1"), "Tesla-T4-SHARED");
	json_decref(out);
	rules_result_clear(&res);

	/* the suffix is checked: it must keep a label value valid */
	CHECK(apply_squoted(cfg, "{'labels':{'sharedProductSuffix':'-SHARED-'}}", &err) == -1);
	CHECK(apply_squoted(cfg, "{'labels':{'sharedProductSuffix':'-shared gpu'}}", &err) == -1);
	CHECK(apply_squoted(cfg, "{'labels':{'sharedProductSuffix':'.shared'}}", &err) == 0);
	CHECK(apply_squoted(cfg, "{'priority':{'defaultClass':'System_Critical'}}", &err) == -1);
	CHECK_STR(err.pointer, "/priority/defaultClass");
	config_free(cfg);
}
