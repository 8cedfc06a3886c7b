/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rule_help.c - what each rule finds, why it matters and how it is fixed,
 * in sentences, the settings that shape it and one example, for whatever
 * explains a rule (`gpumend rules ID`, SARIF's rule metadata).
 */
#include <stddef.h>

#include "rules.h"

static const struct rule_help help_table[RULE_COUNT] = {
	[RULE_DEPRECATED_WORKLOAD_API] = {
		"Workloads on API versions that Kubernetes no longer serves: extensions/v1beta1, apps/v1beta1 and apps/v1beta2 Deployments, DaemonSets, StatefulSets and ReplicaSets, batch/v1beta1 and batch/v2alpha1 CronJobs, and apps/v1 workloads without a selector. The API server refuses them.",
		"gpumend migrate rewrites apiVersion to apps/v1 or batch/v1 and adds the spec.selector.matchLabels that apps/v1 requires, taken from the pod template's labels.",
		"kubernetes,deprecated-api",
		"sharing.label",
		{ NULL,
			"apiVersion: extensions/v1beta1\n"
			"kind: Deployment\n"
			"metadata:\n"
			"  name: trainer\n"
			"spec:\n"
			"  replicas: 1\n"
			"  template:\n"
			"    metadata:\n"
			"      labels:\n"
			"        app: trainer\n"
			"    spec:\n"
			"      containers:\n"
			"      - name: train\n"
			"        image: tensorflow/tensorflow:2.15.0-gpu\n"
			"        resources:\n"
			"          limits:\n"
			"            nvidia.com/gpu: 1\n",
			"apiVersion: apps/v1\n"
			"kind: Deployment\n"
			"metadata:\n"
			"  name: trainer\n"
			"spec:\n"
			"  replicas: 1\n"
			"  template:\n"
			"    metadata:\n"
			"      labels:\n"
			"        app: trainer\n"
			"    spec:\n"
			"      containers:\n"
			"      - name: train\n"
			"        image: tensorflow/tensorflow:2.15.0-gpu\n"
			"        resources:\n"
			"          limits:\n"
			"            nvidia.com/gpu: 1\n"
			"  selector:\n"
			"    matchLabels:\n"
			"      app: trainer\n" },
	},
	[RULE_DRA_UNSUPPORTED] = {
		"Under the dra target only: GPU pods that NVIDIA's DRA driver does not serve as it ships. Pods that share a GPU (legacy sharing resources and selectors, nvidia.com/gpu.shared, time-slicing or MPS): the driver shares GPUs only behind its alpha feature gates TimeSlicingSettings, MPSSupport and ConsumableShares, off by default. Pods pinned to a Kepler GPU (Tesla K80, K40...): the driver needs NVIDIA driver 565 or later, and Kepler's last driver is R470. MIG device resources (nvidia.com/mig-1g.5gb): the dra target does not write mig.nvidia.com claims.",
		"Keep such workloads on the device-plugin target, which Kubernetes 1.36 serves from DRA nodes as well, or write their claims by hand once the cluster enables the driver's gates. gpumend only reports these, as errors, so migrate --target dra leaves their files unchanged.",
		"kubernetes,gpu,dra",
		"target,dra.consumableCapacity,sharing.strategy,labels.legacyGPUName,labels.gpuProduct,models.annotation,models.namespaces",
		{ "--target dra",
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: infer\n"
			"spec:\n"
			"  containers:\n"
			"  - name: infer\n"
			"    image: nvcr.io/nvidia/tritonserver:24.05-py3\n"
			"    resources:\n"
			"      limits:\n"
			"        nvidia.com/mig-1g.5gb: 1\n",
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: infer\n"
			"spec:\n"
			"  containers:\n"
			"  - name: infer\n"
			"    image: nvcr.io/nvidia/tritonserver:24.05-py3\n"
			"    resources:\n"
			"      claims:\n"
			"      - name: mig\n"
			"  resourceClaims:\n"
			"  - name: mig\n"
			"    resourceClaimTemplateName: infer-mig\n"
			"---\n"
			"apiVersion: resource.k8s.io/v1\n"
			"kind: ResourceClaimTemplate\n"
			"metadata:\n"
			"  name: infer-mig\n"
			"spec:\n"
			"  spec:\n"
			"    devices:\n"
			"      requests:\n"
			"      - name: mig\n"
			"        exactly:\n"
			"          deviceClassName: mig.nvidia.com\n"
			"          selectors:\n"
			"          - cel:\n"
			"              expression: device.attributes[\"gpu.nvidia.com\"].profile == \"1g.5gb\"\n" },
	},
	[RULE_LEGACY_GPU_RESOURCE] = {
		"Containers that request alpha.kubernetes.io/nvidia-gpu (Kubernetes 1.9 and older) or a vendor's whole-GPU resource. Today's NVIDIA device plugin serves nvidia.com/gpu only, so such a pod never schedules.",
		"gpumend migrate renames the resource to nvidia.com/gpu, keeping its count (0 drops it). A count that is not a whole number, or two keys with different counts, is reported as an error and left for a person to fix.",
		"kubernetes,gpu,resources",
		"resources.legacyGPU,resources.gpu,resources.vendorGPUs,target,dra.deviceClassName",
		{ NULL,
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: cuda-job\n"
			"spec:\n"
			"  containers:\n"
			"  - name: cuda\n"
			"    image: nvidia/cuda:9.0-runtime\n"
			"    resources:\n"
			"      limits:\n"
			"        alpha.kubernetes.io/nvidia-gpu: 2\n",
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: cuda-job\n"
			"spec:\n"
			"  containers:\n"
			"  - name: cuda\n"
			"    image: nvidia/cuda:9.0-runtime\n"
			"    resources:\n"
			"      limits:\n"
			"        nvidia.com/gpu: 2\n" },
	},
	[RULE_LEGACY_GPU_NODE_LABEL] = {
		"The node label alpha.kubernetes.io/nvidia-gpu-name in a nodeSelector or in node affinity. No node carries it on today's stack: GPU Feature Discovery labels nodes with nvidia.com/gpu.product instead.",
		"gpumend migrate renames the key to nvidia.com/gpu.product and normalises each value as GPU Feature Discovery does (Tesla K80 becomes Tesla-K80).",
		"kubernetes,gpu,scheduling",
		"labels.legacyGPUName,labels.gpuProduct,labels.sharedProductSuffix",
		{ NULL,
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: k80-job\n"
			"spec:\n"
			"  nodeSelector:\n"
			"    alpha.kubernetes.io/nvidia-gpu-name: \"Tesla K80\"\n"
			"  containers:\n"
			"  - name: train\n"
			"    image: tensorflow/tensorflow:2.15.0-gpu\n"
			"    resources:\n"
			"      limits:\n"
			"        nvidia.com/gpu: 1\n",
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: k80-job\n"
			"spec:\n"
			"  nodeSelector:\n"
			"    nvidia.com/gpu.product: \"Tesla-K80\"\n"
			"  containers:\n"
			"  - name: train\n"
			"    image: tensorflow/tensorflow:2.15.0-gpu\n"
			"    resources:\n"
			"      limits:\n"
			"        nvidia.com/gpu: 1\n" },
	},
	[RULE_LEGACY_AFFINITY_ANNOTATION] = {
		"The pod annotation scheduler.alpha.kubernetes.io/affinity, which the scheduler has ignored since Kubernetes 1.6: the pod schedules with no affinity at all.",
		"gpumend migrate moves the annotation's affinity into spec.affinity (translating legacy GPU labels) and drops the annotation. Invalid JSON, or an affinity that conflicts with spec.affinity, is reported as an error and left unchanged.",
		"kubernetes,scheduling",
		"labels.legacyGPUName,labels.gpuProduct",
		{ NULL,
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: ssd-job\n"
			"  annotations:\n"
			"    scheduler.alpha.kubernetes.io/affinity: >\n"
			"      {\"nodeAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\":\n"
			"      {\"nodeSelectorTerms\": [{\"matchExpressions\": [{\"key\": \"disktype\",\n"
			"      \"operator\": \"In\", \"values\": [\"ssd\"]}]}]}}}\n"
			"spec:\n"
			"  containers:\n"
			"  - name: train\n"
			"    image: tensorflow/tensorflow:2.15.0-gpu\n"
			"    resources:\n"
			"      limits:\n"
			"        nvidia.com/gpu: 1\n",
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: ssd-job\n"
			"spec:\n"
			"  containers:\n"
			"  - name: train\n"
			"    image: tensorflow/tensorflow:2.15.0-gpu\n"
			"    resources:\n"
			"      limits:\n"
			"        nvidia.com/gpu: 1\n"
			"  affinity:\n"
			"    nodeAffinity:\n"
			"      requiredDuringSchedulingIgnoredDuringExecution:\n"
			"        nodeSelectorTerms:\n"
			"        - matchExpressions:\n"
			"          - key: disktype\n"
			"            operator: In\n"
			"            values:\n"
			"            - ssd\n" },
	},
	[RULE_CRITICAL_POD_ANNOTATION] = {
		"The pod annotation scheduler.alpha.kubernetes.io/critical-pod, which Kubernetes no longer honours: the pod is no longer protected from eviction.",
		"gpumend migrate sets a priorityClassName (system-node-critical or system-cluster-critical) in its place.",
		"kubernetes,scheduling",
		"priority.daemonSetClass,priority.defaultClass",
		{ NULL,
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: gpu-monitor\n"
			"  annotations:\n"
			"    scheduler.alpha.kubernetes.io/critical-pod: \"\"\n"
			"spec:\n"
			"  containers:\n"
			"  - name: monitor\n"
			"    image: example.com/gpu-monitor:1.0\n",
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: gpu-monitor\n"
			"spec:\n"
			"  containers:\n"
			"  - name: monitor\n"
			"    image: example.com/gpu-monitor:1.0\n"
			"  priorityClassName: system-cluster-critical\n" },
	},
	[RULE_GPU_MODEL_AFFINITY] = {
		"GPU pods that ask for GPU models, through the annotation gpumend.io/gpu-models or a namespace policy of the configuration, without a node affinity on nvidia.com/gpu.product: they may land on any GPU model.",
		"gpumend migrate adds a required node affinity nvidia.com/gpu.product In the normalised model names, unless the pod already constrains that label.",
		"kubernetes,gpu,scheduling",
		"models.annotation,models.namespaces,labels.gpuProduct,target",
		{ NULL,
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: llm-finetune\n"
			"  annotations:\n"
			"    gpumend.io/gpu-models: \"A100-SXM4-80GB\"\n"
			"spec:\n"
			"  containers:\n"
			"  - name: train\n"
			"    image: nvcr.io/nvidia/pytorch:24.05-py3\n"
			"    resources:\n"
			"      limits:\n"
			"        nvidia.com/gpu: 1\n",
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: llm-finetune\n"
			"  annotations:\n"
			"    gpumend.io/gpu-models: \"A100-SXM4-80GB\"\n"
			"spec:\n"
			"  containers:\n"
			"  - name: train\n"
			"    image: nvcr.io/nvidia/pytorch:24.05-py3\n"
			"    resources:\n"
			"      limits:\n"
			"        nvidia.com/gpu: 1\n"
			"  affinity:\n"
			"    nodeAffinity:\n"
			"      requiredDuringSchedulingIgnoredDuringExecution:\n"
			"        nodeSelectorTerms:\n"
			"        - matchExpressions:\n"
			"          - key: nvidia.com/gpu.product\n"
			"            operator: In\n"
			"            values:\n"
			"            - A100-SXM4-80GB\n" },
	},
	[RULE_GPU_SHARING] = {
		"Legacy shared-GPU requests (aliyun.com/gpu-mem, rancher.io/gpu-mem, volcano.sh/gpu-memory and gpu-number), legacy sharing node selectors and scheduler names, and modern nvidia.com/gpu.shared requests. The legacy sharing stacks are gone, so such pods do not schedule.",
		"gpumend migrate translates the request to the configured sharing strategy (time-slicing by default, MPS, HAMi, or keep), with node affinity on the sharing strategy, and records the original memory request in an annotation.",
		"kubernetes,gpu,sharing",
		"sharing.strategy,sharing.memoryResources,sharing.countResources,sharing.computeResources,sharing.nodeSelectors,sharing.schedulerNames,sharing.staleAnnotationPrefixes,sharing.label,sharing.memoryAnnotation,sharing.maxGPUMemoryGiB,resources.sharedGPU,resources.gpuMemory,labels.sharingStrategy,labels.gpuPresent",
		{ NULL,
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: notebook\n"
			"spec:\n"
			"  containers:\n"
			"  - name: jupyter\n"
			"    image: jupyter/tensorflow-notebook:2023-10-20\n"
			"    resources:\n"
			"      limits:\n"
			"        aliyun.com/gpu-mem: 4\n",
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: notebook\n"
			"  labels:\n"
			"    gpumend.io/gpu-sharing: time-slicing\n"
			"  annotations:\n"
			"    gpumend.io/gpu-memory-request: jupyter=4096Mi\n"
			"spec:\n"
			"  containers:\n"
			"  - name: jupyter\n"
			"    image: jupyter/tensorflow-notebook:2023-10-20\n"
			"    resources:\n"
			"      limits:\n"
			"        nvidia.com/gpu: 1\n"
			"  affinity:\n"
			"    nodeAffinity:\n"
			"      requiredDuringSchedulingIgnoredDuringExecution:\n"
			"        nodeSelectorTerms:\n"
			"        - matchExpressions:\n"
			"          - key: nvidia.com/gpu.sharing-strategy\n"
			"            operator: In\n"
			"            values:\n"
			"            - time-slicing\n" },
	},
	[RULE_OBSOLETE_CUDA_HOSTPATH] = {
		"hostPath volumes that mount NVIDIA drivers or CUDA libraries by hand, as in the nvidia-docker 1 era (/usr/lib/nvidia-<version>, /usr/local/nvidia, libcuda.so). The NVIDIA container toolkit injects the driver itself; a hand-mounted one conflicts with it or is missing on the node.",
		"gpumend migrate removes each such volume and every volumeMount that uses it. Ambiguous mounts are only reported.",
		"kubernetes,gpu,security",
		"hostPaths.obsolete,hostPaths.ambiguous,hostPaths.ambiguousMountPaths,hostPaths.vendorDriverDirs,visibility.stackImages",
		{ NULL,
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: cuda-job\n"
			"spec:\n"
			"  containers:\n"
			"  - name: cuda\n"
			"    image: nvidia/cuda:12.4.1-base-ubuntu22.04\n"
			"    resources:\n"
			"      limits:\n"
			"        nvidia.com/gpu: 1\n"
			"    volumeMounts:\n"
			"    - name: nvidia-driver\n"
			"      mountPath: /usr/local/nvidia\n"
			"  volumes:\n"
			"  - name: nvidia-driver\n"
			"    hostPath:\n"
			"      path: /usr/local/nvidia\n",
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: cuda-job\n"
			"spec:\n"
			"  containers:\n"
			"  - name: cuda\n"
			"    image: nvidia/cuda:12.4.1-base-ubuntu22.04\n"
			"    resources:\n"
			"      limits:\n"
			"        nvidia.com/gpu: 1\n" },
	},
	[RULE_GPU_VISIBILITY] = {
		"Containers that request no GPU yet could see every GPU of the node: CUDA images and an NVIDIA_VISIBLE_DEVICES other than void or none let the container runtime expose all GPUs, outside the device plugin's accounting.",
		"Request the GPUs the container needs, or set NVIDIA_VISIBLE_DEVICES=void. With the rule in mutate mode, gpumend migrate sets NVIDIA_VISIBLE_DEVICES=void.",
		"kubernetes,gpu,security",
		"visibility.images,visibility.stackImages",
		{ NULL,
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: preprocess\n"
			"spec:\n"
			"  containers:\n"
			"  - name: preprocess\n"
			"    image: nvidia/cuda:12.4.1-base-ubuntu22.04\n",
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: preprocess\n"
			"spec:\n"
			"  containers:\n"
			"  - name: preprocess\n"
			"    image: nvidia/cuda:12.4.1-base-ubuntu22.04\n"
			"    env:\n"
			"    - name: NVIDIA_VISIBLE_DEVICES\n"
			"      value: void\n" },
	},
	[RULE_REMOVED_GPU_FEATURE_GATE] = {
		"The Accelerators or DevicePlugins feature gates in component arguments or in a KubeletConfiguration. These gates no longer exist, and a component given them does not start.",
		"Remove the gate from --feature-gates or featureGates; device plugins are always enabled.",
		"kubernetes,gpu,configuration",
		"",
		{ NULL,
			"apiVersion: kubelet.config.k8s.io/v1beta1\n"
			"kind: KubeletConfiguration\n"
			"featureGates:\n"
			"  DevicePlugins: true\n"
			"  RotateKubeletServerCertificate: true\n",
			"apiVersion: kubelet.config.k8s.io/v1beta1\n"
			"kind: KubeletConfiguration\n"
			"featureGates:\n"
			"  RotateKubeletServerCertificate: true\n" },
	},
	[RULE_OBSOLETE_GPU_COMPONENT] = {
		"Components of the legacy GPU stacks: the NVIDIA device plugin of the Kubernetes 1.8 and 1.9 era, the Aliyun gpushare device plugin and scheduler extender, Rancher's shared GPU plugin, nvidia-docker-plugin.",
		"Remove the component and deploy what replaces it (the NVIDIA device plugin or GPU Operator). gpumend leaves its placement as it is, so it schedules nowhere once nodes are relabelled.",
		"kubernetes,gpu,components",
		"components.obsolete",
		{ NULL,
			"apiVersion: apps/v1\n"
			"kind: DaemonSet\n"
			"metadata:\n"
			"  name: nvidia-device-plugin\n"
			"  namespace: kube-system\n"
			"spec:\n"
			"  selector:\n"
			"    matchLabels:\n"
			"      name: nvidia-device-plugin\n"
			"  template:\n"
			"    metadata:\n"
			"      labels:\n"
			"        name: nvidia-device-plugin\n"
			"    spec:\n"
			"      containers:\n"
			"      - name: nvidia-device-plugin\n"
			"        image: nvidia/k8s-device-plugin:1.9\n",
			"apiVersion: apps/v1\n"
			"kind: DaemonSet\n"
			"metadata:\n"
			"  name: nvidia-device-plugin\n"
			"  namespace: kube-system\n"
			"spec:\n"
			"  selector:\n"
			"    matchLabels:\n"
			"      name: nvidia-device-plugin\n"
			"  template:\n"
			"    metadata:\n"
			"      labels:\n"
			"        name: nvidia-device-plugin\n"
			"    spec:\n"
			"      containers:\n"
			"      - name: nvidia-device-plugin\n"
			"        image: nvcr.io/nvidia/k8s-device-plugin:v0.17.0\n" },
	},
	[RULE_LEGACY_SCHEDULER_CONFIG] = {
		"kube-scheduler Policy files and flags, and KubeSchedulerConfiguration on removed API versions: current kube-scheduler releases refuse them.",
		"gpumend migrate rewrites what has a current equivalent; what has none is reported.",
		"kubernetes,scheduling,configuration",
		"sharing.memoryResources,sharing.countResources,sharing.computeResources,resources.vendorGPUs",
		{ NULL,
			"apiVersion: kubescheduler.config.k8s.io/v1beta3\n"
			"kind: KubeSchedulerConfiguration\n"
			"leaderElection:\n"
			"  leaderElect: true\n"
			"profiles:\n"
			"- schedulerName: default-scheduler\n",
			"apiVersion: kubescheduler.config.k8s.io/v1\n"
			"kind: KubeSchedulerConfiguration\n"
			"leaderElection:\n"
			"  leaderElect: true\n"
			"profiles:\n"
			"- schedulerName: default-scheduler\n" },
	},
	[RULE_INVALID_RESOURCE] = {
		"Resource requests that no device plugin can serve: a name with more than one '/' (such as alpha.kubernetes.io/group-resource/...), an extended resource in the kubernetes.io domain, or an extended resource requested without a limit. The pod stays Pending, or the API server refuses it.",
		"Request the resource by the name today's device plugin serves, with a limit equal to the request. gpumend only reports these: there is no mechanical translation.",
		"kubernetes,gpu,resources",
		"",
		{ NULL,
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: fpga-job\n"
			"spec:\n"
			"  containers:\n"
			"  - name: work\n"
			"    image: example.com/fpga-work:1.0\n"
			"    resources:\n"
			"      requests:\n"
			"        example.com/fpga: 1\n",
			"apiVersion: v1\n"
			"kind: Pod\n"
			"metadata:\n"
			"  name: fpga-job\n"
			"spec:\n"
			"  containers:\n"
			"  - name: work\n"
			"    image: example.com/fpga-work:1.0\n"
			"    resources:\n"
			"      limits:\n"
			"        example.com/fpga: 1\n" },
	},
	[RULE_REMOVED_API] = {
		"Objects on API versions that Kubernetes 1.30 no longer serves (RBAC and PriorityClass v1beta1 and the like, training-operator CRD versions no operator serves), selectors and tolerations of the removed node-role.kubernetes.io/master label, and kube-scheduler's removed --address flag.",
		"gpumend migrate rewrites the apiVersion where the schema did not change and adds the control-plane toleration beside a lone master one; what has no mechanical translation is reported with what replaces it.",
		"kubernetes,deprecated-api",
		"",
		{ NULL,
			"apiVersion: rbac.authorization.k8s.io/v1beta1\n"
			"kind: ClusterRole\n"
			"metadata:\n"
			"  name: gpu-reader\n"
			"rules:\n"
			"- apiGroups: [\"\"]\n"
			"  resources: [\"nodes\"]\n"
			"  verbs: [\"get\", \"list\"]\n",
			"apiVersion: rbac.authorization.k8s.io/v1\n"
			"kind: ClusterRole\n"
			"metadata:\n"
			"  name: gpu-reader\n"
			"rules:\n"
			"- apiGroups: [\"\"]\n"
			"  resources: [\"nodes\"]\n"
			"  verbs: [\"get\", \"list\"]\n" },
	},
};

const struct rule_help *rule_help_get(enum rule_id id)
{
	if ((unsigned)id >= RULE_COUNT)
		return NULL;
	return &help_table[id];
}
