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
  + " object.spec.pytorchReplicaSpecs[k]).filter(r, has(r.template)).map(r, r.template) : []))";

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

def fail_resources: ["alpha.kubernetes.io/nvidia-gpu", "aliyun.com/gpu-mem", "rancher.io/gpu-mem",
  "volcano.sh/gpu-memory", "volcano.sh/gpu-number", "aliyun.com/gpu-count", "aliyun.com/gpu",
  "nvidia.com/gpu.shared"];
def fail_labels: ["alpha.kubernetes.io/nvidia-gpu-name", "gpushare", "gpu.cattle.io/type"];

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

# constructs that break an unmigrated pod: legacy and vendor GPU
# resources, legacy node labels (selector, affinity, affinity annotation),
# sharing selectors and schedulers, driver hostPaths
def fail_constructs:
  "\(pods).exists(p, has(p.spec) && ("
  + containers("p"; has_resource(fail_resources))
  + " || has(p.spec.nodeSelector) && p.spec.nodeSelector.exists(k, k in \(cel_list(fail_labels)))"
  + " || " + affinity_key("p"; fail_labels)
  + " || has(p.spec.schedulerName) && p.spec.schedulerName in [\"rancher-gpushare-scheduler\", \"gpushare-scheduler\"]"
  + " || has(p.spec.volumes) && p.spec.volumes.exists(v, has(v.hostPath) && has(v.hostPath.path)"
  + " && v.hostPath.path.matches('^(/usr/lib/nvidia-[0-9]|/usr/local/nvidia|/var/lib/nvidia-docker/|/usr/lib64/nvidia|/opt/nvidia-driver)|/libcuda[.]so|/libnvidia-.*[.]so'))"
  + ") || " + annotation("p"; "a == \"scheduler.alpha.kubernetes.io/affinity\"") + ")";

# constructs of pods that run anyway: GPU visibility (images that see
# every GPU, NVIDIA_VISIBLE_DEVICES), model annotations, critical-pod and
# stale sharing annotations, hostPaths mounted where the driver was
def ignore_constructs:
  "\(pods).exists(p, has(p.spec) && ("
  + containers("p"; "has(c.image) && c.image.matches('(^|/)nvidia/cuda(:|$)|^nvcr[.]io/|:.*-gpu($|-)|gpushare|nvidia-docker-plugin|k8s-device-plugin:1[.]')"
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
   resources: ["tfjobs", "pytorchjobs"], scope: "Namespaced"}
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
