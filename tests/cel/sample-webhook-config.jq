# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/cel/sample-webhook-config.jq - a hand-written stand-in for
# `gpumend webhook-config -o json` (default config), for tests/suites/cel.sh
# until the generator lands: `jq -n -f tests/cel/sample-webhook-config.jq`.
#
# Two entries, as issue #29 asks: "fail.gpumend.io" (failurePolicy Fail)
# for objects that cannot run right unmigrated, "ignore.gpumend.io"
# (Ignore) for those that run anyway, and for every pod UPDATE. The CEL
# is composed from one fragment per construct, over every pod template
# the object holds (see `pods`): CEL cannot search an object recursively.

# every pod template of the object as a list of {metadata, spec}: the Pod
# itself, workload templates, PodTemplate, CronJob, and the replica specs of
# Kubeflow's training jobs
def pods:
  "([object]"
  + " + (has(object.spec) && has(object.spec.template) ? [object.spec.template] : [])"
  + " + (has(object.template) ? [object.template] : [])"
  + " + (has(object.spec) && has(object.spec.jobTemplate) && has(object.spec.jobTemplate.spec)"
  + " && has(object.spec.jobTemplate.spec.template) ? [object.spec.jobTemplate.spec.template] : [])"
  + " + (has(object.spec) && has(object.spec.tfReplicaSpecs) ? object.spec.tfReplicaSpecs.map(k,"
  + " object.spec.tfReplicaSpecs[k]).filter(r, has(r.template)).map(r, r.template) : [])"
  + " + (has(object.spec) && has(object.spec.pytorchReplicaSpecs) ? object.spec.pytorchReplicaSpecs.map(k,"
  + " object.spec.pytorchReplicaSpecs[k]).filter(r, has(r.template)).map(r, r.template) : [])"
  + " + (has(object.spec) && has(object.spec.tasks) ? object.spec.tasks.filter(t, has(t.template)).map(t, t.template) : []))";

def cel_list(xs): "[" + (xs | map(@json) | join(", ")) + "]";

# P holds for some container (containers, initContainers,
# ephemeralContainers) of the pod spec p.spec
def containers(p; pred):
  "[has(\(p).spec.containers) ? \(p).spec.containers : [],"
  + " has(\(p).spec.initContainers) ? \(p).spec.initContainers : [],"
  + " has(\(p).spec.ephemeralContainers) ? \(p).spec.ephemeralContainers : []]"
  + ".exists(cs, cs.exists(c, \(pred)))";

def has_resource(names):
  "has(c.resources) && (has(c.resources.limits) && c.resources.limits.exists(k, k in \(cel_list(names)))"
  + " || has(c.resources.requests) && c.resources.requests.exists(k, k in \(cel_list(names))))";

def annotation(p; pred):
  "has(\(p).metadata) && has(\(p).metadata.annotations) && \(p).metadata.annotations.exists(a, \(pred))";

def gpu_resources: ["alpha.kubernetes.io/nvidia-gpu"];
def sharing_resources: ["aliyun.com/gpu-mem", "rancher.io/gpu-mem", "volcano.sh/gpu-memory",
  "volcano.sh/gpu-number", "aliyun.com/gpu-count", "aliyun.com/gpu", "nvidia.com/gpu.shared"];
def gpu_labels: ["alpha.kubernetes.io/nvidia-gpu-name"];
def sharing_labels: ["gpushare", "gpu.cattle.io/type"];

# the object opted out of the rule (annotation gpumend.io/skip-rules)
def unless_skipped(rule; cel):
  "(!(has(object.metadata) && has(object.metadata.annotations) && \"gpumend.io/skip-rules\" in object.metadata.annotations"
  + " && object.metadata.annotations[\"gpumend.io/skip-rules\"].split(\",\").exists(r, r.trim() == \"\(rule)\")) && (\(cel)))";

# a node affinity term of p that names one of the labels
def affinity_key(p; labels):
  "has(\(p).spec.affinity) && has(\(p).spec.affinity.nodeAffinity) && ("
  + "has(\(p).spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution)"
  + " && has(\(p).spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms)"
  + " && \(p).spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
  + ".exists(t, has(t.matchExpressions) && t.matchExpressions.exists(e, e.key in \(cel_list(labels))))"
  + " || has(\(p).spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution)"
  + " && \(p).spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
  + ".exists(w, has(w.preference) && has(w.preference.matchExpressions)"
  + " && w.preference.matchExpressions.exists(e, e.key in \(cel_list(labels)))))";

# constructs that break an unmigrated pod, rule by rule: legacy GPU
# resources, legacy node labels (selector, affinity, affinity
# annotation), vendor sharing resources, selectors and schedulers, driver
# hostPaths (prefixes and substrings, not a regular expression: cel-go
# charges matches() 0.1 x the string's length x 0.25 x the pattern's)
def fail_constructs:
  "\(pods).exists(p, has(p.spec) && ("
  + unless_skipped("legacy-gpu-resource"; containers("p"; has_resource(gpu_resources)))
  + " || " + unless_skipped("gpu-sharing"; containers("p"; has_resource(sharing_resources))
      + " || has(p.spec.nodeSelector) && p.spec.nodeSelector.exists(k, k in \(cel_list(sharing_labels)))"
      + " || " + affinity_key("p"; sharing_labels)
      + " || has(p.spec.schedulerName) && p.spec.schedulerName in [\"rancher-gpushare-scheduler\", \"gpushare-scheduler\"]")
  + " || " + unless_skipped("legacy-gpu-node-label"; "has(p.spec.nodeSelector) && p.spec.nodeSelector.exists(k, k in \(cel_list(gpu_labels)))"
      + " || " + affinity_key("p"; gpu_labels))
  + " || " + unless_skipped("obsolete-cuda-hostpath"; "has(p.spec.volumes) && p.spec.volumes.exists(v, has(v.hostPath) && has(v.hostPath.path)"
      + " && v.hostPath.path.size() <= 4096 && (\(cel_list(["/usr/lib/nvidia-", "/usr/local/nvidia",
        "/var/lib/nvidia-docker/", "/usr/lib64/nvidia", "/opt/nvidia-driver"])).exists(d, v.hostPath.path.startsWith(d))"
      + " || v.hostPath.path.contains(\"/libcuda.so\") || v.hostPath.path.contains(\"/libnvidia-\")))")
  + ") || " + unless_skipped("legacy-affinity-annotation"; annotation("p"; "a == \"scheduler.alpha.kubernetes.io/affinity\"")) + ")";

# images that see every GPU (visibility.images) or are obsolete
# components (components.obsolete), as prefixes, suffixes and substrings:
# no regular expression, whose cost grows with the image's length. An
# image reference longer than 512 bytes cannot be pulled (the reference
# grammar caps a name at 255 bytes, a tag at 128, a digest is 71), so
# none is looked at; nor an argument longer than 4 KiB.
def image_check:
  "c.image.size() <= 512 && (c.image == \"nvidia/cuda\" || c.image.startsWith(\"nvidia/cuda:\")"
  + " || c.image.endsWith(\"/nvidia/cuda\") || c.image.contains(\"/nvidia/cuda:\") || c.image.startsWith(\"nvcr.io/\")"
  + " || c.image.contains(\":\") && (c.image.endsWith(\"-gpu\") || c.image.contains(\"-gpu-\"))"
  + " || \(cel_list(["k8s-gpushare-plugin", "gpushare-device-plugin", "gpushare-schd-extender",
      "gpushare-scheduler-extender", "schd-extender-deployer", "device-plugin-evict",
      "nvidia-docker-plugin", "nvidia/k8s-device-plugin:1."])).exists(s, c.image.contains(s)))";

# arguments that name a removed GPU feature gate
def gate_check:
  "[has(c.command) ? c.command : [], has(c.args) ? c.args : []].exists(l, l.exists(a,"
  + " a.size() <= 4096 && (a.contains(\"Accelerators\") || a.contains(\"DevicePlugins\"))))";

# constructs of pods that run anyway: GPU visibility (images that see
# every GPU, NVIDIA_VISIBLE_DEVICES), obsolete components, removed feature
# gates, model annotations, critical-pod and stale sharing annotations,
# hostPaths mounted where the driver was
def ignore_constructs:
  "\(pods).exists(p, has(p.spec) && ("
  + containers("p"; "has(c.image) && \(image_check) || \(gate_check)"
      + " || has(c.env) && c.env.exists(e, e.name == \"NVIDIA_VISIBLE_DEVICES\")"
      + " || has(c.volumeMounts) && c.volumeMounts.exists(m, m.mountPath.startsWith(\"/usr/local/nvidia\"))")
  + ") || " + annotation("p"; "a in [\"gpumend.io/gpu-models\", \"scheduler.alpha.kubernetes.io/critical-pod\"] || a.startsWith(\"ALIYUN_COM_GPU_MEM_\")")
  + ")";

def pod_update: "request.operation == \"UPDATE\" && request.kind.kind == \"Pod\"";

def common_conditions: [
  {name: "not-deleted", expression: "!has(object.metadata) || !has(object.metadata.deletionTimestamp)"},
  {name: "not-controlled", expression: "request.kind.kind == \"Pod\" || !has(object.metadata) || !has(object.metadata.ownerReferences) || !object.metadata.ownerReferences.exists(o, has(o.controller) && o.controller == true)"},
  {name: "not-skipped", expression: "!has(object.metadata) || !has(object.metadata.annotations) || !(\"gpumend.io/skip\" in object.metadata.annotations) || object.metadata.annotations[\"gpumend.io/skip\"] != \"true\""}
];

def rules: [
  {operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"],
   resources: ["pods", "replicationcontrollers", "podtemplates"], scope: "*"},
  {operations: ["CREATE", "UPDATE"], apiGroups: ["apps"], apiVersions: ["v1"],
   resources: ["deployments", "replicasets", "statefulsets", "daemonsets"], scope: "Namespaced"},
  {operations: ["CREATE", "UPDATE"], apiGroups: ["batch"], apiVersions: ["v1"],
   resources: ["jobs", "cronjobs"], scope: "Namespaced"},
  {operations: ["CREATE", "UPDATE"], apiGroups: ["kubeflow.org"], apiVersions: ["*"],
   resources: ["tfjobs", "pytorchjobs"], scope: "Namespaced"},
  {operations: ["CREATE", "UPDATE"], apiGroups: ["batch.volcano.sh"], apiVersions: ["*"],
   resources: ["jobs"], scope: "Namespaced"}
];

def entry(name; policy; conditions): {
  name: name,
  admissionReviewVersions: ["v1"],
  clientConfig: {service: {name: "gpumend-webhook", namespace: "gpumend", path: "/mutate"}},
  failurePolicy: policy,
  matchPolicy: "Equivalent",
  reinvocationPolicy: "IfNeeded",
  rules: rules,
  sideEffects: "None",
  timeoutSeconds: 5,
  matchConditions: (common_conditions + conditions)
};

{
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "MutatingWebhookConfiguration",
  metadata: {name: "gpumend", labels: {"app.kubernetes.io/name": "gpumend"}},
  webhooks: [
    entry("fail.gpumend.io"; "Fail"; [
      {name: "not-pod-update", expression: "!(\(pod_update))"},
      {name: "legacy-gpu-construct", expression: fail_constructs}
    ]),
    entry("ignore.gpumend.io"; "Ignore"; [
      {name: "gpu-construct", expression: "\(ignore_constructs) || \(pod_update) && \(fail_constructs)"}
    ])
  ]
}
