/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rule_help.c - what each rule finds, why it matters and how it is fixed,
 * in sentences, for reports that explain a rule (SARIF's rule metadata).
 */
#include <stddef.h>

#include "rules.h"

static const struct rule_help help_table[RULE_COUNT] = {
	[RULE_DEPRECATED_WORKLOAD_API] = {
		"Workloads on API versions that Kubernetes no longer serves: extensions/v1beta1, apps/v1beta1 and apps/v1beta2 Deployments, DaemonSets, StatefulSets and ReplicaSets, batch/v1beta1 and batch/v2alpha1 CronJobs, and apps/v1 workloads without a selector. The API server refuses them.",
		"gpumend migrate rewrites apiVersion to apps/v1 or batch/v1 and adds the spec.selector.matchLabels that apps/v1 requires, taken from the pod template's labels.",
		"kubernetes,deprecated-api",
	},
	[RULE_DRA_UNSUPPORTED] = {
		"Under the dra target only: GPU pods that NVIDIA's DRA driver does not serve as it ships. Pods that share a GPU (legacy sharing resources and selectors, nvidia.com/gpu.shared, time-slicing or MPS): the driver shares GPUs only behind its alpha feature gates TimeSlicingSettings, MPSSupport and ConsumableShares, off by default. Pods pinned to a Kepler GPU (Tesla K80, K40...): the driver needs NVIDIA driver 565 or later, and Kepler's last driver is R470. MIG device resources (nvidia.com/mig-1g.5gb): the dra target does not write mig.nvidia.com claims.",
		"Keep such workloads on the device-plugin target, which Kubernetes 1.36 serves from DRA nodes as well, or write their claims by hand once the cluster enables the driver's gates. gpumend only reports these, as errors, so migrate --target dra leaves their files unchanged.",
		"kubernetes,gpu,dra",
	},
	[RULE_LEGACY_GPU_RESOURCE] = {
		"Containers that request alpha.kubernetes.io/nvidia-gpu (Kubernetes 1.9 and older) or a vendor's whole-GPU resource. Today's NVIDIA device plugin serves nvidia.com/gpu only, so such a pod never schedules.",
		"gpumend migrate renames the resource to nvidia.com/gpu, keeping its count (0 drops it). A count that is not a whole number, or two keys with different counts, is reported as an error and left for a person to fix.",
		"kubernetes,gpu,resources",
	},
	[RULE_LEGACY_GPU_NODE_LABEL] = {
		"The node label alpha.kubernetes.io/nvidia-gpu-name in a nodeSelector or in node affinity. No node carries it on today's stack: GPU Feature Discovery labels nodes with nvidia.com/gpu.product instead.",
		"gpumend migrate renames the key to nvidia.com/gpu.product and normalises each value as GPU Feature Discovery does (Tesla K80 becomes Tesla-K80).",
		"kubernetes,gpu,scheduling",
	},
	[RULE_LEGACY_AFFINITY_ANNOTATION] = {
		"The pod annotation scheduler.alpha.kubernetes.io/affinity, which the scheduler has ignored since Kubernetes 1.6: the pod schedules with no affinity at all.",
		"gpumend migrate moves the annotation's affinity into spec.affinity (translating legacy GPU labels) and drops the annotation. Invalid JSON, or an affinity that conflicts with spec.affinity, is reported as an error and left unchanged.",
		"kubernetes,scheduling",
	},
	[RULE_CRITICAL_POD_ANNOTATION] = {
		"The pod annotation scheduler.alpha.kubernetes.io/critical-pod, which Kubernetes no longer honours: the pod is no longer protected from eviction.",
		"gpumend migrate sets a priorityClassName (system-node-critical or system-cluster-critical) in its place.",
		"kubernetes,scheduling",
	},
	[RULE_GPU_MODEL_AFFINITY] = {
		"GPU pods that ask for GPU models, through the annotation gpumend.io/gpu-models or a namespace policy of the configuration, without a node affinity on nvidia.com/gpu.product: they may land on any GPU model.",
		"gpumend migrate adds a required node affinity nvidia.com/gpu.product In the normalised model names, unless the pod already constrains that label.",
		"kubernetes,gpu,scheduling",
	},
	[RULE_GPU_SHARING] = {
		"Legacy shared-GPU requests (aliyun.com/gpu-mem, rancher.io/gpu-mem, volcano.sh/gpu-memory and gpu-number), legacy sharing node selectors and scheduler names, and modern nvidia.com/gpu.shared requests. The legacy sharing stacks are gone, so such pods do not schedule.",
		"gpumend migrate translates the request to the configured sharing strategy (time-slicing by default, MPS, HAMi, or keep), with node affinity on the sharing strategy, and records the original memory request in an annotation.",
		"kubernetes,gpu,sharing",
	},
	[RULE_OBSOLETE_CUDA_HOSTPATH] = {
		"hostPath volumes that mount NVIDIA drivers or CUDA libraries by hand, as in the nvidia-docker 1 era (/usr/lib/nvidia-<version>, /usr/local/nvidia, libcuda.so). The NVIDIA container toolkit injects the driver itself; a hand-mounted one conflicts with it or is missing on the node.",
		"gpumend migrate removes each such volume and every volumeMount that uses it. Ambiguous mounts are only reported.",
		"kubernetes,gpu,security",
	},
	[RULE_GPU_VISIBILITY] = {
		"Containers that request no GPU yet could see every GPU of the node: CUDA images and an NVIDIA_VISIBLE_DEVICES other than void or none let the container runtime expose all GPUs, outside the device plugin's accounting.",
		"Request the GPUs the container needs, or set NVIDIA_VISIBLE_DEVICES=void. With the rule in mutate mode, gpumend migrate sets NVIDIA_VISIBLE_DEVICES=void.",
		"kubernetes,gpu,security",
	},
	[RULE_REMOVED_GPU_FEATURE_GATE] = {
		"The Accelerators or DevicePlugins feature gates in component arguments or in a KubeletConfiguration. These gates no longer exist, and a component given them does not start.",
		"Remove the gate from --feature-gates or featureGates; device plugins are always enabled.",
		"kubernetes,gpu,configuration",
	},
	[RULE_OBSOLETE_GPU_COMPONENT] = {
		"Components of the legacy GPU stacks: the NVIDIA device plugin of the Kubernetes 1.8 and 1.9 era, the Aliyun gpushare device plugin and scheduler extender, Rancher's shared GPU plugin, nvidia-docker-plugin.",
		"Remove the component and deploy what replaces it (the NVIDIA device plugin or GPU Operator). gpumend leaves its placement as it is, so it schedules nowhere once nodes are relabelled.",
		"kubernetes,gpu,components",
	},
	[RULE_LEGACY_SCHEDULER_CONFIG] = {
		"kube-scheduler Policy files and flags, and KubeSchedulerConfiguration on removed API versions: current kube-scheduler releases refuse them.",
		"gpumend migrate rewrites what has a current equivalent; what has none is reported.",
		"kubernetes,scheduling,configuration",
	},
	[RULE_INVALID_RESOURCE] = {
		"Resource requests that no device plugin can serve: a name with more than one '/' (such as alpha.kubernetes.io/group-resource/...), an extended resource in the kubernetes.io domain, or an extended resource requested without a limit. The pod stays Pending, or the API server refuses it.",
		"Request the resource by the name today's device plugin serves, with a limit equal to the request. gpumend only reports these: there is no mechanical translation.",
		"kubernetes,gpu,resources",
	},
	[RULE_REMOVED_API] = {
		"Objects on API versions that Kubernetes 1.30 no longer serves (RBAC and PriorityClass v1beta1 and the like, training-operator CRD versions no operator serves), selectors and tolerations of the removed node-role.kubernetes.io/master label, and kube-scheduler's removed --address flag.",
		"gpumend migrate rewrites the apiVersion where the schema did not change and adds the control-plane toleration beside a lone master one; what has no mechanical translation is reported with what replaces it.",
		"kubernetes,deprecated-api",
	},
};

const struct rule_help *rule_help_get(enum rule_id id)
{
	if ((unsigned)id >= RULE_COUNT)
		return NULL;
	return &help_table[id];
}
