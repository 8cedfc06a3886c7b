/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_rules_api.c - deprecated-workload-api, and removed-gpu-feature-gate
 * in KubeletConfiguration files.
 *
 * Inputs are written with single quotes for readability;
 * test_run_squoted() turns them into JSON before handing them to
 * test_migrate().
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "util.h"

/* ------------------------------------------------------------------ */
/* deprecated-workload-api                                             */

static const char old_deployment[] =
	"{'apiVersion': 'extensions/v1beta1', 'kind': 'Deployment',"
	" 'metadata': {'name': 'tf-serving', 'labels': {'app': 'tf-serving'}},"
	" 'spec': {'replicas': 2, 'rollbackTo': {'revision': 3},"
	"  'template': {'metadata': {'labels': {'app': 'tf-serving', 'tier': 'gpu'}},"
	"   'spec': {'containers': [{'name': 'serve', 'image': 'tensorflow/serving:1.4.0-gpu',"
	"     'resources': {'limits': {'alpha.kubernetes.io/nvidia-gpu': 1}}}]}}}}";

TEST(rules_api_deployment_selector)
{
	struct rules_result res;
	const struct finding *f;
	json_t *out = test_run_squoted(old_deployment, NULL, NULL, &res, failures);
	json_t *match, *labels;

	CHECK(out != NULL);
	if (!out)
		goto out_free;
	CHECK_STR(test_string_at(out, "/apiVersion"), "apps/v1");
	match = json_pointer_get(out, "/spec/selector/matchLabels");
	labels = json_pointer_get(out, "/spec/template/metadata/labels");
	CHECK(json_object_size(match) == 2);
	CHECK_STR(test_string_at(out, "/spec/selector/matchLabels/app"), "tf-serving");
	CHECK_STR(test_string_at(out, "/spec/selector/matchLabels/tier"), "gpu");
	/* a copy, not the template's labels themselves */
	CHECK(match != labels);
	CHECK(json_pointer_get(out, "/spec/rollbackTo") == NULL);
	CHECK(json_pointer_get(out, "/spec/replicas") != NULL);
	f = test_finding_at(&res, RULE_DEPRECATED_WORKLOAD_API, "/apiVersion");
	CHECK(f && f->fixed && f->severity == SEVERITY_WARNING);
	CHECK_STR(f ? f->message : NULL,
		  "moved Deployment from 'extensions/v1beta1' to 'apps/v1', selector taken from the template labels");
	CHECK(test_ops_of(&res, RULE_DEPRECATED_WORKLOAD_API) == 3);
	/* the engine ran the other rules after this one */
	CHECK(json_pointer_get(out, "/spec/template/spec/containers/0/resources/limits/nvidia.com~1gpu") != NULL);
	CHECK(res.n_ops > 0 && res.ops[0].rule == RULE_DEPRECATED_WORKLOAD_API);
out_free:
	json_decref(out);
	rules_result_clear(&res);
}

TEST(rules_api_daemonset_example)
{
	/* /work/shared/examples/legacy/daemonset-device-plugin-1.9.yaml, with
	 * the templateGeneration kubectl used to write back */
	static const char in[] =
		"{'apiVersion': 'extensions/v1beta1', 'kind': 'DaemonSet',"
		" 'metadata': {'name': 'nvidia-device-plugin-daemonset', 'namespace': 'kube-system'},"
		" 'spec': {'templateGeneration': 1, 'template': {"
		"  'metadata': {'labels': {'name': 'nvidia-device-plugin-ds'}},"
		"  'spec': {'containers': [{'image': 'nvidia/k8s-device-plugin:1.9',"
		"    'name': 'nvidia-device-plugin-ctr',"
		"    'securityContext': {'allowPrivilegeEscalation': false, 'capabilities': {'drop': ['ALL']}},"
		"    'volumeMounts': [{'name': 'device-plugin', 'mountPath': '/var/lib/kubelet/device-plugins'}]}],"
		"   'volumes': [{'name': 'device-plugin', 'hostPath': {'path': '/var/lib/kubelet/device-plugins'}}]}}}}";
	struct rules_result res;
	json_t *out = test_run_squoted(in, NULL, NULL, &res, failures);

	CHECK_STR(test_string_at(out, "/apiVersion"), "apps/v1");
	CHECK_STR(test_string_at(out, "/spec/selector/matchLabels/name"), "nvidia-device-plugin-ds");
	CHECK(json_pointer_get(out, "/spec/templateGeneration") == NULL);
	CHECK(test_count_findings(&res, RULE_DEPRECATED_WORKLOAD_API, "/apiVersion") == 1);
	/* the device plugin's own hostPath is not an obsolete one */
	CHECK(test_count_findings(&res, RULE_OBSOLETE_CUDA_HOSTPATH, NULL) == 0);
	CHECK(res.errors == 0);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(rules_api_kept_selector_and_cronjob)
{
	static const char statefulset[] =
		"{'apiVersion': 'apps/v1beta2', 'kind': 'StatefulSet', 'metadata': {'name': 's'},"
		" 'spec': {'serviceName': 's', 'selector': {'matchLabels': {'app': 's'}},"
		"  'template': {'metadata': {'labels': {'app': 's', 'extra': 'x'}},"
		"   'spec': {'containers': [{'name': 'c', 'image': 'busybox'}]}}}}";
	static const char beta_cronjob[] =
		"{'apiVersion': 'batch/v1beta1', 'kind': 'CronJob', 'metadata': {'name': 'nightly'},"
		" 'spec': {'schedule': '0 2 * * *', 'jobTemplate': {'spec': {'template': {"
		"  'spec': {'restartPolicy': 'Never', 'containers': [{'name': 'c', 'image': 'busybox'}]}}}}}}";
	static const char alpha_cronjob[] =
		"{'apiVersion': 'batch/v2alpha1', 'kind': 'CronJob', 'metadata': {'name': 'n'},"
		" 'spec': {'schedule': '@daily', 'jobTemplate': {'spec': {'template': {"
		"  'spec': {'restartPolicy': 'Never', 'containers': [{'name': 'c', 'image': 'busybox'}]}}}}}}";
	struct config *cfg = test_config_only(RULE_DEPRECATED_WORKLOAD_API, RULE_MODE_MUTATE);
	struct rules_result res;
	const struct finding *f;
	json_t *out;

	out = test_run_squoted(statefulset, cfg, NULL, &res, failures);
	CHECK_STR(test_string_at(out, "/apiVersion"), "apps/v1");
	/* an existing selector is kept as it is */
	CHECK(json_object_size(json_pointer_get(out, "/spec/selector/matchLabels")) == 1);
	CHECK(res.n_ops == 1);
	f = test_finding_at(&res, RULE_DEPRECATED_WORKLOAD_API, "/apiVersion");
	CHECK_STR(f ? f->message : NULL, "moved StatefulSet from 'apps/v1beta2' to 'apps/v1'");
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted(beta_cronjob, cfg, NULL, &res, failures);
	CHECK_STR(test_string_at(out, "/apiVersion"), "batch/v1");
	CHECK(res.n_ops == 1 && json_pointer_get(out, "/spec/selector") == NULL);
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted(alpha_cronjob, cfg, NULL, &res, failures);
	CHECK_STR(test_string_at(out, "/apiVersion"), "batch/v1");
	f = test_finding_at(&res, RULE_DEPRECATED_WORKLOAD_API, "/apiVersion");
	CHECK_STR(f ? f->message : NULL, "moved CronJob from 'batch/v2alpha1' to 'batch/v1'");
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(rules_api_null_selector_replicaset)
{
	static const char in[] =
		"{'apiVersion': 'extensions/v1beta1', 'kind': 'ReplicaSet', 'metadata': {'name': 'r'},"
		" 'spec': {'selector': null, 'template': {'metadata': {'labels': {'app': 'r'}},"
		"   'spec': {'containers': [{'name': 'c', 'image': 'busybox'}]}}}}";
	struct config *cfg = test_config_only(RULE_DEPRECATED_WORKLOAD_API, RULE_MODE_MUTATE);
	struct rules_result res;
	json_t *out = test_run_squoted(in, cfg, NULL, &res, failures);

	CHECK_STR(test_string_at(out, "/spec/selector/matchLabels/app"), "r");
	CHECK(res.n_ops == 2);
	if (res.n_ops == 2)
		CHECK(res.ops[1].kind == PATCH_REPLACE);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(rules_api_no_labels_is_error)
{
	static const char no_labels[] =
		"{'apiVersion': 'extensions/v1beta1', 'kind': 'Deployment', 'metadata': {'name': 'd'},"
		" 'spec': {'template': {'metadata': {'name': 'x'},"
		"   'spec': {'containers': [{'name': 'c', 'image': 'busybox'}]}}}}";
	static const char no_spec[] =
		"{'apiVersion': 'apps/v1beta1', 'kind': 'Deployment', 'metadata': {'name': 'd'}}";
	static const char bad_label[] =
		"{'apiVersion': 'apps/v1beta1', 'kind': 'Deployment', 'metadata': {'name': 'd'},"
		" 'spec': {'template': {'metadata': {'labels': {'app': 'd', 'version': 2}},"
		"   'spec': {'containers': [{'name': 'c', 'image': 'busybox'}]}}}}";
	struct config *cfg = test_config_only(RULE_DEPRECATED_WORKLOAD_API, RULE_MODE_MUTATE);
	struct rules_result res;
	const struct finding *f;
	json_t *out;

	out = test_run_squoted(no_labels, cfg, NULL, &res, failures);
	CHECK(res.n_ops == 0);
	CHECK_STR(test_string_at(out, "/apiVersion"), "extensions/v1beta1");
	CHECK(res.n_findings == 1 && res.errors == 1);
	f = test_finding_at(&res, RULE_DEPRECATED_WORKLOAD_API, "/spec/template");
	CHECK(f && f->severity == SEVERITY_ERROR && !f->fixed);
	CHECK_STR(f ? f->message : NULL,
		  "'apps/v1' requires spec.selector, and this Deployment has no template labels to derive it from");
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted(no_spec, cfg, NULL, &res, failures);
	CHECK(res.n_ops == 0 && res.errors == 1);
	CHECK(test_finding_at(&res, RULE_DEPRECATED_WORKLOAD_API, "/apiVersion") != NULL);
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted(bad_label, cfg, NULL, &res, failures);
	CHECK(res.n_ops == 0 && res.errors == 1);
	f = test_finding_at(&res, RULE_DEPRECATED_WORKLOAD_API, "/spec/template/metadata/labels/version");
	CHECK(f && f->severity == SEVERITY_ERROR);
	json_decref(out);
	rules_result_clear(&res);

	/* warn mode: the same error */
	cfg->mode[RULE_DEPRECATED_WORKLOAD_API] = RULE_MODE_WARN;
	out = test_run_squoted(no_labels, cfg, NULL, &res, failures);
	CHECK(res.n_ops == 0 && res.errors == 1);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(rules_api_modes_and_webhook)
{
	struct config *cfg = test_config_only(RULE_DEPRECATED_WORKLOAD_API, RULE_MODE_WARN);
	struct rules_options webhook = { .offline = 0 };
	struct rules_result res;
	const struct finding *f;
	json_t *out;

	if (!cfg)
		return;
	out = test_run_squoted(old_deployment, cfg, NULL, &res, failures);
	CHECK(res.n_ops == 0);
	f = test_finding_at(&res, RULE_DEPRECATED_WORKLOAD_API, "/apiVersion");
	CHECK(f && !f->fixed && f->severity == SEVERITY_WARNING);
	CHECK_STR(f ? f->message : NULL,
		  "'extensions/v1beta1' Deployment is no longer served; use 'apps/v1'");
	json_decref(out);
	rules_result_clear(&res);

	cfg->mode[RULE_DEPRECATED_WORKLOAD_API] = RULE_MODE_DENY;
	out = test_run_squoted(old_deployment, cfg, NULL, &res, failures);
	CHECK(res.denied && res.n_ops == 0);
	json_decref(out);
	rules_result_clear(&res);

	/* the webhook never runs it: the API server converts versions */
	cfg->mode[RULE_DEPRECATED_WORKLOAD_API] = RULE_MODE_MUTATE;
	out = test_run_squoted(old_deployment, cfg, &webhook, &res, failures);
	CHECK(res.n_ops == 0 && res.n_findings == 0);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(rules_api_list_and_skip)
{
	static const char in[] =
		"{'apiVersion': 'v1', 'kind': 'List', 'items': ["
		" {'apiVersion': 'extensions/v1beta1', 'kind': 'Ingress', 'metadata': {'name': 'i'},"
		"  'spec': {'backend': {'serviceName': 's', 'servicePort': 80}}},"
		" {'apiVersion': 'apps/v1beta1', 'kind': 'Deployment', 'metadata': {'name': 'kept',"
		"   'annotations': {'gpumend.io/skip-rules': 'deprecated-workload-api'}},"
		"  'spec': {'template': {'metadata': {'labels': {'app': 'kept'}},"
		"   'spec': {'containers': [{'name': 'c', 'image': 'busybox'}]}}}},"
		" {'apiVersion': 'apps/v1beta1', 'kind': 'Deployment', 'metadata': {'name': 'moved'},"
		"  'spec': {'template': {'metadata': {'labels': {'app': 'moved'}},"
		"   'spec': {'containers': [{'name': 'c', 'image': 'busybox'}]}}}},"
		" {'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'new'},"
		"  'spec': {'selector': {'matchLabels': {'app': 'new'}},"
		"   'template': {'metadata': {'labels': {'app': 'new'}},"
		"   'spec': {'containers': [{'name': 'c', 'image': 'busybox'}]}}}}]}";
	struct config *cfg = test_config_only(RULE_DEPRECATED_WORKLOAD_API, RULE_MODE_MUTATE);
	struct rules_result res;
	json_t *out = test_run_squoted(in, cfg, NULL, &res, failures);

	CHECK_STR(test_string_at(out, "/items/0/apiVersion"), "extensions/v1beta1");
	CHECK_STR(test_string_at(out, "/items/1/apiVersion"), "apps/v1beta1");
	CHECK_STR(test_string_at(out, "/items/2/apiVersion"), "apps/v1");
	CHECK_STR(test_string_at(out, "/items/2/spec/selector/matchLabels/app"), "moved");
	CHECK(res.n_findings == 1);
	CHECK(test_finding_at(&res, RULE_DEPRECATED_WORKLOAD_API, "/items/2/apiVersion") != NULL);
	CHECK(res.n_ops == 2);
	if (res.n_ops == 2) {
		CHECK_STR(res.ops[0].path, "/items/2/apiVersion");
		CHECK_STR(res.ops[1].path, "/items/2/spec/selector");
	}
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

/* ------------------------------------------------------------------ */
/* removed-gpu-feature-gate in a KubeletConfiguration                   */

TEST(rules_api_kubelet_config_gates)
{
	static const char in[] =
		"{'apiVersion': 'kubelet.config.k8s.io/v1beta1', 'kind': 'KubeletConfiguration',"
		" 'featureGates': {'Accelerators': true, 'DevicePlugins': true, 'RotateKubeletServerCertificate': true},"
		" 'cgroupDriver': 'systemd'}";
	static const char clean[] =
		"{'apiVersion': 'kubelet.config.k8s.io/v1beta1', 'kind': 'KubeletConfiguration',"
		" 'featureGates': {'RotateKubeletServerCertificate': true}}";
	static const char in_list[] =
		"{'apiVersion': 'v1', 'kind': 'List', 'items': ["
		" {'apiVersion': 'kubelet.config.k8s.io/v1beta1', 'kind': 'KubeletConfiguration',"
		"  'featureGates': {'DevicePlugins': false}}]}";
	struct rules_result res;
	const struct finding *f;
	json_t *out;

	out = test_run_squoted(in, NULL, NULL, &res, failures);
	CHECK(res.n_ops == 0);
	CHECK(test_count_findings(&res, RULE_REMOVED_GPU_FEATURE_GATE, NULL) == 2);
	f = test_finding_at(&res, RULE_REMOVED_GPU_FEATURE_GATE, "/featureGates/Accelerators");
	CHECK(f && f->severity == SEVERITY_ERROR && !f->fixed);
	CHECK(test_finding_at(&res, RULE_REMOVED_GPU_FEATURE_GATE, "/featureGates/DevicePlugins") != NULL);
	CHECK(res.errors == 2 && !res.denied);
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted(clean, NULL, NULL, &res, failures);
	CHECK(res.n_findings == 0);
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted(in_list, NULL, NULL, &res, failures);
	CHECK(test_finding_at(&res, RULE_REMOVED_GPU_FEATURE_GATE,
			      "/items/0/featureGates/DevicePlugins") != NULL);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(rules_api_kubelet_config_deny_off)
{
	static const char in[] =
		"{'apiVersion': 'kubelet.config.k8s.io/v1beta1', 'kind': 'KubeletConfiguration',"
		" 'featureGates': {'Accelerators': true}}";
	struct config *cfg = test_config_only(RULE_REMOVED_GPU_FEATURE_GATE, RULE_MODE_DENY);
	struct rules_result res;
	json_t *out;

	if (!cfg)
		return;
	out = test_run_squoted(in, cfg, NULL, &res, failures);
	CHECK(res.denied && res.errors == 1);
	json_decref(out);
	rules_result_clear(&res);

	cfg->mode[RULE_REMOVED_GPU_FEATURE_GATE] = RULE_MODE_OFF;
	out = test_run_squoted(in, cfg, NULL, &res, failures);
	CHECK(res.n_findings == 0);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

/* ------------------------------------------------------------------ */
/* The work budget                                                     */

/*
 * A budget of steps fails the rules at the same point on any machine;
 * a deadline already past fails them at the next read of the clock; a
 * spent budget stays spent.
 */
TEST(rules_budget_steps_and_deadline)
{
	struct config *cfg = config_new_default();
	struct rules_budget budget;
	struct rules_options opts = { .budget = &budget };
	struct rules_result res;
	struct rules_error err;
	json_t *object = json_loads(
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},"
		"\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"x\","
		"\"resources\":{\"limits\":{\"alpha.kubernetes.io/nvidia-gpu\":1}}},"
		"{\"name\":\"b\",\"image\":\"x\",\"resources\":{\"limits\":"
		"{\"alpha.kubernetes.io/nvidia-gpu\":1}}}]}}", 0, NULL);
	json_t *copy = json_deep_copy(object);

	CHECK(cfg && object && copy);
	/* enough steps: the same result as without a budget */
	rules_budget_init(&budget, 1000, 0);
	rules_result_init(&res);
	CHECK(rules_apply(cfg, &opts, object, &res, &err) == 0);
	CHECK(res.n_ops == 2 && !budget.spent);
	CHECK(budget.steps_left < 1000);
	rules_result_clear(&res);

	/* three steps: the pod walk and the first container take them */
	rules_budget_init(&budget, 3, 0);
	rules_result_init(&res);
	CHECK(rules_apply(cfg, &opts, copy, &res, &err) == -1);
	CHECK(budget.spent == RULES_BUDGET_STEPS);
	CHECK(strstr(err.message, "work budget") != NULL);
	CHECK(rules_budget_spend(&budget, 0) == -1);
	rules_result_clear(&res);

	/* a deadline already past, read at the next clock step */
	rules_budget_init(&budget, 0, 1);
	budget.deadline_ns = 1;
	budget.until_clock = 1;
	CHECK(rules_budget_spend(&budget, 1) == -1);
	CHECK(budget.spent == RULES_BUDGET_DEADLINE);
	CHECK(rules_budget_spend(NULL, 1000) == 0);

	json_decref(copy);
	json_decref(object);
	config_free(cfg);
}
