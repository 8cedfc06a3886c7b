/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_rules_pod.c - obsolete-cuda-hostpath, gpu-visibility and the pod
 * side of removed-gpu-feature-gate.
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
/* obsolete-cuda-hostpath                                              */

/* /work/shared/examples/legacy/pod-driver-hostpath.yaml as JSON */
static const char driver_hostpath_pod[] =
	"{'apiVersion': 'v1', 'kind': 'Pod',"
	" 'metadata': {'name': 'gpu-pod'},"
	" 'spec': {'containers': [{"
	"   'name': 'cuda', 'image': 'nvidia/cuda:9.0-devel',"
	"   'imagePullPolicy': 'IfNotPresent', 'command': ['sleep', '3600'],"
	"   'resources': {'limits': {'alpha.kubernetes.io/nvidia-gpu': 2}},"
	"   'volumeMounts': ["
	"     {'name': 'nvidia-driver-387-26', 'mountPath': '/usr/local/nvidia', 'readOnly': true},"
	"     {'name': 'libcuda-so', 'mountPath': '/usr/lib/x86_64-linux-gnu/libcuda.so'},"
	"     {'name': 'libcuda-so-1', 'mountPath': '/usr/lib/x86_64-linux-gnu/libcuda.so.1'},"
	"     {'name': 'libcuda-so-387-26', 'mountPath': '/usr/lib/x86_64-linux-gnu/libcuda.so.387.26'},"
	"     {'name': 'scratch', 'mountPath': '/scratch'}]}],"
	"  'volumes': ["
	"   {'name': 'nvidia-driver-387-26', 'hostPath': {'path': '/var/lib/nvidia-docker/volumes/nvidia_driver/387.26'}},"
	"   {'name': 'libcuda-so', 'hostPath': {'path': '/usr/lib64/nvidia/libcuda.so'}},"
	"   {'name': 'libcuda-so-1', 'hostPath': {'path': '/usr/lib64/nvidia/libcuda.so.1'}},"
	"   {'name': 'libcuda-so-387-26', 'hostPath': {'path': '/usr/lib64/nvidia/libcuda.so.387.26'}},"
	"   {'name': 'scratch', 'emptyDir': {}}]}}";

TEST(rules_pod_hostpath_example)
{
	struct rules_result res;
	json_t *out = test_run_squoted_any_length(driver_hostpath_pod, NULL, NULL, &res, failures);
	const struct finding *f;
	json_t *volumes, *mounts;

	CHECK(out != NULL);
	if (!out)
		return;
	volumes = json_pointer_get(out, "/spec/volumes");
	mounts = json_pointer_get(out, "/spec/containers/0/volumeMounts");
	CHECK(json_array_size(volumes) == 1);
	CHECK_STR(test_string_at(out, "/spec/volumes/0/name"), "scratch");
	CHECK(json_array_size(mounts) == 1);
	CHECK_STR(test_string_at(out, "/spec/containers/0/volumeMounts/0/name"),
		  "scratch");
	/* the other rules ran too: the resource was renamed */
	CHECK(json_pointer_get(out, "/spec/containers/0/resources/limits/nvidia.com~1gpu") != NULL);

	CHECK(test_count_findings(&res, RULE_OBSOLETE_CUDA_HOSTPATH, NULL) == 4);
	for (int i = 0; i < 4; i++) {
		char pointer[32];

		snprintf(pointer, sizeof(pointer), "/spec/volumes/%d", i);
		f = test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, pointer);
		CHECK(f && f->fixed == 1 && f->severity == SEVERITY_WARNING);
	}
	f = test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/volumes/1");
	CHECK_STR(f ? f->message : NULL,
		  "removed hostPath volume 'libcuda-so' (/usr/lib64/nvidia/libcuda.so); the NVIDIA container toolkit mounts the driver");
	CHECK(strlen(f ? f->message : "") <= 120);
	/* mounts go before volumes, each list last index first */
	CHECK(test_ops_of(&res, RULE_OBSOLETE_CUDA_HOSTPATH) == 8);
	for (size_t i = 0; i < res.n_ops; i++)
		if (res.ops[i].rule == RULE_OBSOLETE_CUDA_HOSTPATH && i + 1 < res.n_ops &&
		    res.ops[i + 1].rule == RULE_OBSOLETE_CUDA_HOSTPATH &&
		    res.ops[i].kind == PATCH_REMOVE)
			CHECK(strcmp(res.ops[i].path, res.ops[i + 1].path) != 0);
	CHECK(res.errors == 0 && !res.denied);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(rules_pod_hostpath_all_container_kinds)
{
	/* every mount and volume goes: the keys go too */
	static const char in[] =
		"{'apiVersion': 'apps/v1', 'kind': 'DaemonSet',"
		" 'metadata': {'name': 'cuda-ds'},"
		" 'spec': {'selector': {'matchLabels': {'app': 'x'}},"
		"  'template': {'metadata': {'labels': {'app': 'x'}},"
		"   'spec': {"
		"    'initContainers': [{'name': 'probe', 'image': 'busybox',"
		"      'volumeMounts': [{'name': 'drv', 'mountPath': '/usr/local/nvidia'}]}],"
		"    'containers': ["
		"     {'name': 'a', 'image': 'busybox',"
		"      'volumeMounts': [{'name': 'drv', 'mountPath': '/usr/local/nvidia'},"
		"                       {'name': 'lib', 'mountPath': '/usr/lib/libnvidia-ml.so.1'}]},"
		"     {'name': 'b', 'image': 'busybox'}],"
		"    'ephemeralContainers': [{'name': 'dbg', 'image': 'busybox',"
		"      'volumeMounts': [{'name': 'lib', 'mountPath': '/x'},"
		"                       {'name': 'data', 'mountPath': '/data'}]}],"
		"    'volumes': ["
		"     {'name': 'drv', 'hostPath': {'path': '/usr/lib/nvidia-384/'}},"
		"     {'name': 'lib', 'hostPath': {'path': '/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1', 'type': 'File'}}]}}}}";
	struct config *cfg = test_config_only(RULE_OBSOLETE_CUDA_HOSTPATH, RULE_MODE_MUTATE);
	struct rules_result res;
	json_t *out = test_run_squoted(in, cfg, NULL, &res, failures);

	CHECK(out != NULL);
	if (out) {
		CHECK(json_pointer_get(out, "/spec/template/spec/volumes") == NULL);
		CHECK(json_pointer_get(out, "/spec/template/spec/initContainers/0/volumeMounts") == NULL);
		CHECK(json_pointer_get(out, "/spec/template/spec/containers/0/volumeMounts") == NULL);
		CHECK(json_pointer_get(out, "/spec/template/spec/containers/1/name") != NULL);
		CHECK(json_array_size(json_pointer_get(out, "/spec/template/spec/ephemeralContainers/0/volumeMounts")) == 1);
		CHECK_STR(test_string_at(out, "/spec/template/spec/ephemeralContainers/0/volumeMounts/0/name"), "data");
		CHECK(test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/template/spec/volumes/0") != NULL);
		CHECK(test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/template/spec/volumes/1") != NULL);
		/* whole lists are removed in one op each */
		CHECK(res.n_ops == 4);
	}
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(rules_pod_hostpath_warn_and_deny)
{
	struct config *cfg = test_config_only(RULE_OBSOLETE_CUDA_HOSTPATH, RULE_MODE_WARN);
	struct rules_result res;
	const struct finding *f;
	json_t *out;

	if (!cfg)
		return;
	out = test_run_squoted_any_length(driver_hostpath_pod, cfg, NULL, &res, failures);
	CHECK(res.n_ops == 0);
	CHECK(test_count_findings(&res, RULE_OBSOLETE_CUDA_HOSTPATH, NULL) == 4);
	f = test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/volumes/0");
	CHECK(f && f->fixed == 0 && f->severity == SEVERITY_WARNING);
	CHECK_STR(f ? f->message : NULL,
		  "hostPath volume 'nvidia-driver-387-26' mounts the NVIDIA driver by hand; the container toolkit does it");
	CHECK(!res.denied && res.errors == 0);
	CHECK(json_array_size(json_pointer_get(out, "/spec/volumes")) == 5);
	json_decref(out);
	rules_result_clear(&res);

	cfg->mode[RULE_OBSOLETE_CUDA_HOSTPATH] = RULE_MODE_DENY;
	out = test_run_squoted_any_length(driver_hostpath_pod, cfg, NULL, &res, failures);
	CHECK(res.n_ops == 0);
	CHECK(res.denied);
	CHECK(res.errors == 4);
	f = test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/volumes/3");
	CHECK(f && f->severity == SEVERITY_ERROR && !f->fixed);
	json_decref(out);
	rules_result_clear(&res);

	/* an UPDATE only reports, even in mutate mode */
	{
		struct rules_options update = { .report_only = 1 };

		cfg->mode[RULE_OBSOLETE_CUDA_HOSTPATH] = RULE_MODE_MUTATE;
		out = test_run_squoted_any_length(driver_hostpath_pod, cfg, &update, &res, failures);
		CHECK(res.n_ops == 0);
		CHECK(test_count_findings(&res, RULE_OBSOLETE_CUDA_HOSTPATH, NULL) == 4);
		f = test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/volumes/2");
		CHECK(f && !f->fixed);
		json_decref(out);
		rules_result_clear(&res);
	}
	config_free(cfg);
}

TEST(rules_pod_hostpath_ambiguous)
{
	static const char in[] =
		"{'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'p'},"
		" 'spec': {'containers': [{'name': 'c', 'image': 'busybox',"
		"   'volumeMounts': [{'name': 'bin', 'mountPath': '/usr/local/nvidia/bin/'},"
		"                    {'name': 'tools', 'mountPath': '/opt/bin'},"
		"                    {'name': 'lib', 'mountPath': '/usr/local/nvidia'}]}],"
		"  'volumes': [{'name': 'bin', 'hostPath': {'path': '/usr/bin'}},"
		"              {'name': 'tools', 'hostPath': {'path': '/bin'}},"
		"              {'name': 'lib', 'hostPath': {'path': '/usr/lib64/'}},"
		"              {'name': 'etc', 'hostPath': {'path': '/etc/nvidia'}}]}}";
	struct config *cfg = test_config_only(RULE_OBSOLETE_CUDA_HOSTPATH, RULE_MODE_MUTATE);
	struct rules_result res;
	const struct finding *f;
	json_t *out = test_run_squoted_any_length(in, cfg, NULL, &res, failures);

	CHECK(res.n_ops == 0);
	CHECK(test_count_findings(&res, RULE_OBSOLETE_CUDA_HOSTPATH, NULL) == 2);
	f = test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/volumes/0");
	CHECK(f && !f->fixed && f->severity == SEVERITY_WARNING);
	CHECK_STR(f ? f->message : NULL,
		  "hostPath volume 'bin' (/usr/bin) is mounted at '/usr/local/nvidia/bin/'; drop it if it only carries the NVIDIA driver");
	/* /bin mounted elsewhere is an ordinary volume */
	CHECK(test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/volumes/1") == NULL);
	CHECK(test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/volumes/2") != NULL);
	CHECK(res.errors == 0);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(rules_pod_hostpath_opt_out)
{
	static const char skip_object[] =
		"{'apiVersion': 'v1', 'kind': 'Pod',"
		" 'metadata': {'name': 'p', 'annotations': {'gpumend.io/skip': 'true'}},"
		" 'spec': {'containers': [{'name': 'c', 'image': 'nvidia/cuda:9.0-base',"
		"   'volumeMounts': [{'name': 'n', 'mountPath': '/usr/local/nvidia'}]}],"
		"  'volumes': [{'name': 'n', 'hostPath': {'path': '/usr/local/nvidia'}}]}}";
	static const char skip_template[] =
		"{'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'd'},"
		" 'spec': {'selector': {'matchLabels': {'app': 'd'}},"
		"  'template': {'metadata': {'labels': {'app': 'd'},"
		"     'annotations': {'gpumend.io/skip-rules': 'gpu-visibility, obsolete-cuda-hostpath'}},"
		"   'spec': {'containers': [{'name': 'c', 'image': 'nvidia/cuda:9.0-base',"
		"     'volumeMounts': [{'name': 'n', 'mountPath': '/usr/local/nvidia'}]}],"
		"    'volumes': [{'name': 'n', 'hostPath': {'path': '/usr/local/nvidia'}}]}}}}";
	static const char skip_other[] =
		"{'apiVersion': 'v1', 'kind': 'Pod',"
		" 'metadata': {'name': 'p', 'annotations': {'gpumend.io/skip-rules': 'gpu-visibility'}},"
		" 'spec': {'containers': [{'name': 'c', 'image': 'nvidia/cuda:9.0-base',"
		"   'volumeMounts': [{'name': 'n', 'mountPath': '/usr/local/nvidia'}]}],"
		"  'volumes': [{'name': 'n', 'hostPath': {'path': '/usr/local/nvidia'}}]}}";
	struct rules_result res;
	json_t *out;

	out = test_run_squoted(skip_object, NULL, NULL, &res, failures);
	CHECK(res.n_findings == 0 && res.n_ops == 0);
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted(skip_template, NULL, NULL, &res, failures);
	CHECK(test_count_findings(&res, RULE_OBSOLETE_CUDA_HOSTPATH, NULL) == 0);
	CHECK(test_count_findings(&res, RULE_GPU_VISIBILITY, NULL) == 0);
	CHECK(test_ops_of(&res, RULE_OBSOLETE_CUDA_HOSTPATH) == 0);
	json_decref(out);
	rules_result_clear(&res);

	out = test_run_squoted(skip_other, NULL, NULL, &res, failures);
	CHECK(test_count_findings(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/volumes/0") == 1);
	CHECK(test_count_findings(&res, RULE_GPU_VISIBILITY, NULL) == 0);
	CHECK(out && json_pointer_get(out, "/spec/volumes") == NULL);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(rules_pod_hostpath_list_items)
{
	static const char in[] =
		"{'apiVersion': 'v1', 'kind': 'List', 'items': ["
		" {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'cm'}, 'data': {'a': 'b'}},"
		" {'apiVersion': 'batch/v1', 'kind': 'Job', 'metadata': {'name': 'j'},"
		"  'spec': {'template': {'spec': {'restartPolicy': 'Never',"
		"   'containers': [{'name': 'c', 'image': 'busybox',"
		"     'volumeMounts': [{'name': 'keep', 'mountPath': '/k'},"
		"                      {'name': 'cuda', 'mountPath': '/usr/local/nvidia/lib64'}]}],"
		"   'volumes': [{'name': 'keep', 'configMap': {'name': 'cm'}},"
		"               {'name': 'cuda', 'hostPath': {'path': '/usr/local/nvidia/lib64'}}]}}}}]}";
	struct config *cfg = test_config_only(RULE_OBSOLETE_CUDA_HOSTPATH, RULE_MODE_MUTATE);
	struct rules_result res;
	json_t *out = test_run_squoted_any_length(in, cfg, NULL, &res, failures);

	CHECK(test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH,
			      "/items/1/spec/template/spec/volumes/1") != NULL);
	CHECK(res.n_ops == 2);
	if (res.n_ops == 2) {
		CHECK_STR(res.ops[0].path, "/items/1/spec/template/spec/containers/0/volumeMounts/1");
		CHECK_STR(res.ops[1].path, "/items/1/spec/template/spec/volumes/1");
	}
	CHECK(json_array_size(json_pointer_get(out, "/items/1/spec/template/spec/volumes")) == 1);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(rules_pod_hostpath_custom_patterns)
{
	static const char in[] =
		"{'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'p'},"
		" 'spec': {'containers': [{'name': 'c', 'image': 'busybox',"
		"   'volumeMounts': [{'name': 'cuda', 'mountPath': '/opt/cuda'},"
		"                    {'name': 'drv', 'mountPath': '/usr/local/nvidia'}]}],"
		"  'volumes': [{'name': 'cuda', 'hostPath': {'path': '/opt/cuda-8.0'}},"
		"              {'name': 'drv', 'hostPath': {'path': '/usr/local/nvidia'}}]}}";
	struct config *cfg = test_config_only(RULE_OBSOLETE_CUDA_HOSTPATH, RULE_MODE_MUTATE);
	struct rules_result res;
	json_t *out;

	if (!cfg)
		return;
	/* only /opt/cuda-* is obsolete now */
	for (size_t i = 0; i < cfg->obsolete_host_paths.n; i++)
		free(cfg->obsolete_host_paths.items[i]);
	cfg->obsolete_host_paths.n = 1;
	cfg->obsolete_host_paths.items[0] = strdup("/opt/cuda-*");
	/* edited in place: the byte pairs of the old patterns no longer
	 * apply (the config sets them only when it is made) */
	free(cfg->obsolete_host_paths.pairs);
	cfg->obsolete_host_paths.pairs = NULL;
	out = test_run_squoted(in, cfg, NULL, &res, failures);
	/* /usr/local/nvidia is no longer obsolete: still, a host path
	 * mounted there is warned about (ambiguous "*"), not removed */
	CHECK(test_count_findings(&res, RULE_OBSOLETE_CUDA_HOSTPATH, NULL) == 2);
	CHECK(test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/volumes/1") &&
	      !test_finding_at(&res, RULE_OBSOLETE_CUDA_HOSTPATH, "/spec/volumes/1")->fixed);
	CHECK_STR(test_string_at(out, "/spec/volumes/0/name"), "drv");
	CHECK_STR(test_string_at(out, "/spec/containers/0/volumeMounts/0/name"), "drv");
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(rules_pod_hostpath_not_hostpath)
{
	/* a hostPath without a path, or a path that is not a string, and
	 * ordinary volumes are left alone */
	static const char in[] =
		"{'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'p'},"
		" 'spec': {'containers': [{'name': 'c', 'image': 'busybox'}],"
		"  'volumes': [{'name': 'a', 'hostPath': {}},"
		"              {'name': 'b', 'hostPath': {'path': 7}},"
		"              {'name': 'c', 'hostPath': {'path': '/var/lib/kubelet/device-plugins'}},"
		"              {'name': 'd', 'emptyDir': {'medium': 'Memory'}}]}}";
	struct rules_result res;
	json_t *out = test_run_squoted(in, NULL, NULL, &res, failures);

	CHECK(test_count_findings(&res, RULE_OBSOLETE_CUDA_HOSTPATH, NULL) == 0);
	CHECK(test_ops_of(&res, RULE_OBSOLETE_CUDA_HOSTPATH) == 0);
	json_decref(out);
	rules_result_clear(&res);
}

/* ------------------------------------------------------------------ */
/* gpu-visibility                                                      */

static const char visibility_pod[] =
	"{'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'train'},"
	" 'spec': {"
	"  'initContainers': [{'name': 'fetch', 'image': 'nvcr.io/nvidia/pytorch:22.01-py3'}],"
	"  'containers': ["
	"   {'name': 'trainer', 'image': 'nvidia/cuda:11.0-base',"
	"    'resources': {'limits': {'nvidia.com/gpu': 1}}},"
	"   {'name': 'exporter', 'image': 'nvidia/cuda:11.0-base'},"
	"   {'name': 'shell', 'image': 'busybox',"
	"    'env': [{'name': 'HOME', 'value': '/root'},"
	"            {'name': 'NVIDIA_VISIBLE_DEVICES', 'value': '0,1'}]},"
	"   {'name': 'quiet', 'image': 'tensorflow/tensorflow:1.15.0-gpu',"
	"    'env': [{'name': 'NVIDIA_VISIBLE_DEVICES', 'value': 'void'}]},"
	"   {'name': 'none', 'image': 'tensorflow/tensorflow:latest-gpu-py3',"
	"    'env': [{'name': 'NVIDIA_VISIBLE_DEVICES', 'value': 'none'}]},"
	"   {'name': 'web', 'image': 'nginx:1.25'},"
	"   {'name': 'tf', 'image': 'tensorflow/tensorflow:latest-gpu-py3', 'env': null},"
	"   {'name': 'from', 'image': 'busybox',"
	"    'env': [{'name': 'NVIDIA_VISIBLE_DEVICES',"
	"             'valueFrom': {'configMapKeyRef': {'name': 'gpus', 'key': 'visible'}}}]},"
	"   {'name': 'zero', 'image': 'nvidia/cuda',"
	"    'resources': {'limits': {'nvidia.com/gpu': 0}}}],"
	"  'ephemeralContainers': [{'name': 'dbg', 'image': 'registry.local/nvidia/cuda:12.2.0-runtime-ubuntu22.04'}]}}";

TEST(rules_pod_visibility_warn)
{
	struct rules_result res;
	const struct finding *f;
	json_t *out = test_run_squoted_any_length(visibility_pod, NULL, NULL, &res, failures);

	/* warn is the default: nothing changes */
	CHECK(test_ops_of(&res, RULE_GPU_VISIBILITY) == 0);
	CHECK(test_count_findings(&res, RULE_GPU_VISIBILITY, NULL) == 7);
	f = test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/initContainers/0/image");
	CHECK(f && f->severity == SEVERITY_WARNING && !f->fixed);
	CHECK_STR(f ? f->message : NULL,
		  "container 'fetch' requests no GPU yet its image sees them all; set NVIDIA_VISIBLE_DEVICES=void");
	CHECK(test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/containers/0/image") == NULL);
	/* the image is named when the message stays short enough */
	f = test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/containers/1/image");
	CHECK_STR(f ? f->message : NULL,
		  "container 'exporter' requests no GPU yet image 'nvidia/cuda:11.0-base' sees them all; set NVIDIA_VISIBLE_DEVICES=void");
	f = test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/containers/2/env/1");
	CHECK_STR(f ? f->message : NULL,
		  "container 'shell' requests no GPU yet sets NVIDIA_VISIBLE_DEVICES='0,1'; set it to 'void'");
	CHECK(test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/containers/3/env/0") == NULL);
	CHECK(test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/containers/4/env/0") == NULL);
	CHECK(test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/containers/5/image") == NULL);
	CHECK(test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/containers/6/image") != NULL);
	f = test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/containers/7/env/0");
	CHECK_STR(f ? f->message : NULL,
		  "container 'from' requests no GPU yet takes NVIDIA_VISIBLE_DEVICES from valueFrom; set it to 'void'");
	/* a GPU count of 0 is no GPU */
	CHECK(test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/containers/8/image") != NULL);
	CHECK(test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/ephemeralContainers/0/image") != NULL);
	CHECK(res.errors == 0 && !res.denied);
	for (size_t i = 0; i < res.n_findings; i++)
		CHECK(strlen(res.findings[i].message) <= 120);
	json_decref(out);
	rules_result_clear(&res);
}

TEST(rules_pod_visibility_mutate)
{
	struct config *cfg = test_config_only(RULE_GPU_VISIBILITY, RULE_MODE_MUTATE);
	struct rules_result res;
	const struct finding *f;
	json_t *out = test_run_squoted(visibility_pod, cfg, NULL, &res, failures);

	CHECK(out != NULL);
	if (!out)
		goto out_free;
	CHECK(test_count_findings(&res, RULE_GPU_VISIBILITY, NULL) == 7);
	f = test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/containers/1/image");
	CHECK(f && f->fixed && f->severity == SEVERITY_WARNING);
	CHECK_STR(f ? f->message : NULL,
		  "set NVIDIA_VISIBLE_DEVICES=void in container 'exporter', which requests no GPU");
	/* created env */
	CHECK_STR(test_string_at(out, "/spec/initContainers/0/env/0/name"), "NVIDIA_VISIBLE_DEVICES");
	CHECK_STR(test_string_at(out, "/spec/initContainers/0/env/0/value"), "void");
	CHECK(json_pointer_get(out, "/spec/containers/0/env") == NULL);
	CHECK_STR(test_string_at(out, "/spec/containers/1/env/0/value"), "void");
	/* replaced value, the rest of env kept */
	CHECK_STR(test_string_at(out, "/spec/containers/2/env/0/value"), "/root");
	CHECK_STR(test_string_at(out, "/spec/containers/2/env/1/value"), "void");
	CHECK(json_array_size(json_pointer_get(out, "/spec/containers/2/env")) == 2);
	CHECK_STR(test_string_at(out, "/spec/containers/4/env/0/value"), "none");
	CHECK(json_pointer_get(out, "/spec/containers/5/env") == NULL);
	/* env: null replaced by a list */
	CHECK_STR(test_string_at(out, "/spec/containers/6/env/0/value"), "void");
	/* valueFrom replaced by a plain value */
	CHECK(json_pointer_get(out, "/spec/containers/7/env/0/valueFrom") == NULL);
	CHECK_STR(test_string_at(out, "/spec/containers/7/env/0/value"), "void");
	CHECK_STR(test_string_at(out, "/spec/ephemeralContainers/0/env/0/value"), "void");
	CHECK(res.n_ops == 7);
	for (size_t i = 0; i < res.n_ops; i++)
		if (strcmp(res.ops[i].path, "/spec/containers/2/env/1/value") == 0)
			CHECK(res.ops[i].kind == PATCH_REPLACE);
out_free:
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(rules_pod_visibility_append_and_bad_env)
{
	static const char in[] =
		"{'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'p'},"
		" 'spec': {'containers': ["
		"  {'name': 'a', 'image': 'nvidia/cuda:10.2-runtime', 'env': [{'name': 'X', 'value': '1'}]},"
		"  {'name': 'b', 'image': 'nvidia/cuda:10.2-runtime', 'env': 'oops'},"
		"  {'name': 'c', 'image': 'nvidia/cuda:10.2-runtime', 'env': [{'name': 'NVIDIA_VISIBLE_DEVICES', 'value': ''}]},"
		"  {'name': 'd', 'image': 'busybox', 'env': [{'name': 'NVIDIA_VISIBLE_DEVICES', 'value': 0}]},"
		"  {'name': 'e', 'image': 'busybox', 'env': [{'name': 'NVIDIA_VISIBLE_DEVICES', 'value': 'void'},"
		"                                           {'name': 'NVIDIA_VISIBLE_DEVICES', 'value': '0,1'}]},"
		"  {'name': 'f', 'image': 'busybox', 'resources': {'limits': {'alpha.kubernetes.io/nvidia-gpu': 1}},"
		"   'env': [{'name': 'NVIDIA_VISIBLE_DEVICES', 'value': 'all'}]}]}}";
	struct config *cfg = test_config_only(RULE_GPU_VISIBILITY, RULE_MODE_MUTATE);
	struct rules_result res;
	const struct finding *f;
	json_t *out = test_run_squoted(in, cfg, NULL, &res, failures);

	CHECK(out != NULL);
	if (!out)
		goto out_free;
	/* appended after the existing entry */
	CHECK_STR(test_string_at(out, "/spec/containers/0/env/0/name"), "X");
	CHECK_STR(test_string_at(out, "/spec/containers/0/env/1/value"), "void");
	CHECK(res.n_ops >= 1);
	if (res.n_ops >= 1)
		CHECK_STR(res.ops[0].path, "/spec/containers/0/env/-");
	/* env that is not a list: an error, unchanged */
	f = test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/containers/1/env");
	CHECK(f && f->severity == SEVERITY_ERROR && !f->fixed);
	CHECK_STR(test_string_at(out, "/spec/containers/1/env"), "oops");
	CHECK(res.errors == 1);
	/* the empty value hides the GPUs like void */
	CHECK(test_count_findings(&res, RULE_GPU_VISIBILITY, "/spec/containers/2/env/0") == 0);
	/* a number is not void: replaced */
	f = test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/containers/3/env/0");
	CHECK_STR(f ? f->message : NULL,
		  "set NVIDIA_VISIBLE_DEVICES=void in container 'd', which requests no GPU");
	CHECK_STR(test_string_at(out, "/spec/containers/3/env/0/value"), "void");
	/* the last entry is the one that counts */
	CHECK(test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/containers/4/env/1") != NULL);
	CHECK_STR(test_string_at(out, "/spec/containers/4/env/1/value"), "void");
	/* the legacy resource is a GPU request too */
	CHECK(test_count_findings(&res, RULE_GPU_VISIBILITY, "/spec/containers/5/env/0") == 0);
	CHECK(test_count_findings(&res, RULE_GPU_VISIBILITY, NULL) == 4);
out_free:
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(rules_pod_visibility_deny_and_skip)
{
	static const char in[] =
		"{'apiVersion': 'batch/v1', 'kind': 'CronJob', 'metadata': {'name': 'cj'},"
		" 'spec': {'schedule': '0 * * * *', 'jobTemplate': {'spec': {'template': {"
		"  'metadata': {'annotations': {'gpumend.io/skip-rules': 'legacy-gpu-resource'}},"
		"  'spec': {'restartPolicy': 'OnFailure',"
		"   'containers': [{'name': 'report', 'image': 'nvcr.io/nvidia/tritonserver:24.01-py3'}]}}}}}}";
	static const char skipped[] =
		"{'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'p',"
		"  'namespace': 'sandbox',"
		"  'annotations': {'gpumend.io/skip-rules': 'gpu-visibility'}},"
		" 'spec': {'containers': [{'name': 'c', 'image': 'nvidia/cuda'}]}}";
	static const char skipped_whole[] =
		"{'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'p',"
		"  'namespace': 'sandbox', 'annotations': {'gpumend.io/skip': 'true'}},"
		" 'spec': {'containers': [{'name': 'c', 'image': 'nvidia/cuda'}]}}";
	struct config *cfg = test_config_only(RULE_GPU_VISIBILITY, RULE_MODE_DENY);
	json_t *opt_out = json_loads("{\"annotations\": "
				     "{\"denyOptOutNamespaces\": [\"sandbox\"]}}",
				     0, NULL);
	struct rules_error err;
	struct rules_result res;
	const char *at = "/spec/jobTemplate/spec/template/spec/containers/0/image";
	const struct finding *f;
	json_t *out;

	out = test_run_squoted(in, cfg, NULL, &res, failures);
	f = test_finding_at(&res, RULE_GPU_VISIBILITY, at);
	CHECK(f && f->severity == SEVERITY_ERROR && !f->fixed);
	CHECK(res.denied && res.n_ops == 0);
	json_decref(out);
	rules_result_clear(&res);

	/* by default the author cannot opt out of a deny rule */
	for (int whole = 0; whole < 2; whole++) {
		out = test_run_squoted(whole ? skipped_whole : skipped, cfg,
				       NULL, &res, failures);
		CHECK(res.n_findings == 1 && res.denied);
		json_decref(out);
		rules_result_clear(&res);
	}
	/* in a namespace of annotations.denyOptOutNamespaces they may */
	CHECK(config_apply(cfg, opt_out, &err) == 0);
	for (int whole = 0; whole < 2; whole++) {
		out = test_run_squoted(whole ? skipped_whole : skipped, cfg,
				       NULL, &res, failures);
		CHECK(res.n_findings == 0 && !res.denied);
		json_decref(out);
		rules_result_clear(&res);
	}
	json_decref(opt_out);
	config_free(cfg);
}

/* ------------------------------------------------------------------ */
/* removed-gpu-feature-gate, in command lines                          */

TEST(rules_pod_feature_gate_static_pod)
{
	/* a kube-apiserver static pod manifest of the 1.8 era */
	static const char in[] =
		"{'apiVersion': 'v1', 'kind': 'Pod',"
		" 'metadata': {'name': 'kube-apiserver', 'namespace': 'kube-system',"
		"   'labels': {'component': 'kube-apiserver', 'tier': 'control-plane'}},"
		" 'spec': {'hostNetwork': true, 'containers': [{'name': 'kube-apiserver',"
		"   'image': 'gcr.io/google_containers/kube-apiserver-amd64:v1.8.4',"
		"   'command': ['kube-apiserver', '--secure-port=6443',"
		"     '--feature-gates=Accelerators=true,PersistentLocalVolumes=true',"
		"     '--feature-gates-extra=DevicePlugins=true',"
		"     '--x=--feature-gates=Accelerators=true',"
		"     '--feature-gates=AcceleratorsV2=true, DevicePlugins = true']}]}}";
	struct config *cfg = config_new_default();
	struct rules_result res;
	const struct finding *f;
	json_t *out;

	if (!cfg)
		return;
	/* lint only: even mutate changes nothing */
	cfg->mode[RULE_REMOVED_GPU_FEATURE_GATE] = RULE_MODE_MUTATE;
	out = test_run_squoted(in, cfg, NULL, &res, failures);
	CHECK(test_ops_of(&res, RULE_REMOVED_GPU_FEATURE_GATE) == 0);
	CHECK(test_count_findings(&res, RULE_REMOVED_GPU_FEATURE_GATE, NULL) == 2);
	f = test_finding_at(&res, RULE_REMOVED_GPU_FEATURE_GATE, "/spec/containers/0/command/2");
	CHECK(f && f->severity == SEVERITY_ERROR && !f->fixed);
	CHECK_STR(f ? f->message : NULL,
		  "feature gate 'Accelerators' was removed in Kubernetes 1.12; the component will not start with it");
	f = test_finding_at(&res, RULE_REMOVED_GPU_FEATURE_GATE, "/spec/containers/0/command/5");
	CHECK_STR(f ? f->message : NULL,
		  "feature gate 'DevicePlugins' was removed in Kubernetes 1.28; the component will not start with it");
	CHECK(res.errors == 2);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

TEST(rules_pod_feature_gate_forms)
{
	static const char in[] =
		"{'apiVersion': 'apps/v1', 'kind': 'DaemonSet', 'metadata': {'name': 'kubelet'},"
		" 'spec': {'selector': {'matchLabels': {'k': 'v'}}, 'template': {"
		"  'metadata': {'labels': {'k': 'v'}}, 'spec': {"
		"  'initContainers': [{'name': 'split', 'image': 'k',"
		"    'args': ['--v=2', '--feature-gates', 'DevicePlugins=true,Accelerators=false']}],"
		"  'containers': ["
		"   {'name': 'shell', 'image': 'k', 'command': ['/bin/sh', '-c',"
		"     'exec /usr/bin/kubelet --feature-gates=Accelerators=true --v=2']},"
		"   {'name': 'quoted', 'image': 'k', 'command': ['sh', '-c',"
		"     'kubelet --feature-gates=\\'DevicePlugins=true\\' && echo']},"
		"   {'name': 'spaced', 'image': 'k', 'command': ['sh', '-c',"
		"     'kubelet --feature-gates DevicePlugins=true']},"
		"   {'name': 'across', 'image': 'k', 'command': ['kubelet', '--feature-gates'],"
		"    'args': ['Accelerators=true']},"
		"   {'name': 'fine', 'image': 'k', 'command': ['kubelet',"
		"     '--feature-gates=DevicePluginsExtra=true', 7, '--feature-gates']}]}}}}";
	struct config *cfg = test_config_only(RULE_REMOVED_GPU_FEATURE_GATE, RULE_MODE_WARN);
	struct rules_result res;
	const char *base = "/spec/template/spec";
	char p[128];
	json_t *out = test_run_squoted(in, cfg, NULL, &res, failures);

	snprintf(p, sizeof(p), "%s/initContainers/0/args/2", base);
	CHECK(test_count_findings(&res, RULE_REMOVED_GPU_FEATURE_GATE, p) == 2);
	snprintf(p, sizeof(p), "%s/containers/0/command/2", base);
	CHECK(test_count_findings(&res, RULE_REMOVED_GPU_FEATURE_GATE, p) == 1);
	snprintf(p, sizeof(p), "%s/containers/1/command/2", base);
	CHECK(test_count_findings(&res, RULE_REMOVED_GPU_FEATURE_GATE, p) == 1);
	snprintf(p, sizeof(p), "%s/containers/2/command/2", base);
	CHECK(test_count_findings(&res, RULE_REMOVED_GPU_FEATURE_GATE, p) == 1);
	snprintf(p, sizeof(p), "%s/containers/3/args/0", base);
	CHECK(test_count_findings(&res, RULE_REMOVED_GPU_FEATURE_GATE, p) == 1);
	CHECK(test_count_findings(&res, RULE_REMOVED_GPU_FEATURE_GATE, NULL) == 6);
	CHECK(res.errors == 6 && res.n_ops == 0 && !res.denied);
	json_decref(out);
	rules_result_clear(&res);

	/* deny mode denies */
	cfg->mode[RULE_REMOVED_GPU_FEATURE_GATE] = RULE_MODE_DENY;
	out = test_run_squoted(in, cfg, NULL, &res, failures);
	CHECK(res.denied);
	json_decref(out);
	rules_result_clear(&res);
	config_free(cfg);
}

/* A value quoted in a message cannot break the message over lines. */
TEST(rules_pod_message_control_bytes_escaped)
{
	struct rules_result res;
	const struct finding *f;
	json_t *out = test_run_squoted_any_length(
		"{'kind': 'Pod', 'spec': {'containers': ["
		"{'name': 'a\\nb\\u0001', 'image': 'nvidia/cuda:0\\t0'}]}}",
		NULL, NULL, &res, failures);

	f = test_finding_at(&res, RULE_GPU_VISIBILITY, "/spec/containers/0/image");
	CHECK_STR(f ? f->message : NULL,
		  "container 'a\\nb\\x01' requests no GPU yet image 'nvidia/cuda:0\\t0' sees them all; set NVIDIA_VISIBLE_DEVICES=void");
	json_decref(out);
	rules_result_clear(&res);
}
