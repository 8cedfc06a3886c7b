#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/run.sh - gpumend-webhook behind a real kube-apiserver,
# kube-scheduler and kube-controller-manager (`make e2e`).
#
# The control plane (tests/e2e/cluster.sh) is Debian's Kubernetes built once
# by tests/e2e/k8s-build.sh and cached in ~/.cache/gpumend/, started on
# 127.0.0.1 with fake GPU nodes (no kubelet). kubectl is the one
# tests/tools/get.sh names. The webhook is registered from what
# `gpumend webhook-config --kube-version` prints for the apiserver's
# version (1.20: one entry, failurePolicy Ignore, no matchConditions), with
# clientConfig.url and a caBundle. With kubectl:
#   - the problem: a legacy GPU pod is stored but never scheduled without
#     gpumend; with it, stored migrated and bound to a GPU node;
#   - placement by the scheduler: the affinity annotation, the old
#     nodeSelector label, a gpushare pod, too many GPUs;
#   - kubectl prints the warnings; --dry-run=server is mutated, not stored;
#   - every example and golden case the apiserver can store: the stored
#     object equals `gpumend migrate`'s output (defaulted by the same
#     apiserver, the webhook off), apart from the fields the server sets
#     and the gpumend.io/mutations annotation;
#   - deny mode; reinvocation with a second webhook;
#   - the controllers: a Deployment made before gpumend, or while it was
#     down, heals on its next update with one rollout; each legacy kind
#     re-applied (client-side, server-side) succeeds without a rollout; a
#     CronJob's Job is left alone and its pod placed; every pod lands
#     where its GPU model or sharing mode says;
#   - certificate rotation under a loop of creates; kubectl apply
#     --dry-run=server of the manifests; failurePolicy Ignore and Fail
#     with the webhook stopped.
# Everything started is stopped at exit; the state directory, with every
# log, is kept when a test fails. Ends with "e2e: N passed, N failed".
#
# Environment: GPUMEND_BUILD (default build) holds the binaries, e.g.
# build-asan for the sanitizer build; GPUMEND_CACHE, E2E_K8S_VERSION (see
# k8s-build.sh); E2E_KEEP=1 keeps the state directory in any case.
. "$(dirname "$0")/../lib.sh"
E2E_HOME="$TESTS_DIR/e2e"
DATA="$E2E_HOME/data"
. "$E2E_HOME/cluster.sh"

export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
unset HTTPS_PROXY https_proxy HTTP_PROXY http_proxy
t_start=$(date +%s)
n_skipped=0

skip() {
	if [ "${CI:-}" = true ]; then
		fail "$* (a skip, which CI=true does not allow)"
		return
	fi
	n_skipped=$((n_skipped + 1))
	echo "skip - $*"
}

# not_served MESSAGE: a case whose objects this apiserver (1.20) serves no
# API for, before or after gpumend (a KubeletConfiguration, a scheduler
# Policy, extensions/v1beta1, a Pod's DRA claims, which it drops), or
# whose config the webhook refuses by design (target dra, the CLI's):
# nothing the e2e suite can check; a skip, under CI=true too. The golden
# and webhook suites check them.
not_served() {
	n_skipped=$((n_skipped + 1))
	echo "skip - $*"
}

# show FILE...: indented, at most 30 lines each, for a failure's context.
show() {
	for _f in "$@"; do
		[ -s "$_f" ] && head -n 30 "$_f" | sed 's/^/    /'
	done
	return 0
}

# ------------------------------------------------------------------
# Prerequisites

E2E_DIR=$(mktemp -d "${TMPDIR:-/tmp}/gpumend-e2e.XXXXXX") || exit 2
export E2E_DIR
export KUBECONFIG="$E2E_DIR/kubeconfig"

cleanup() {
	stop_all
	if [ "$_failed" -gt 0 ] || [ -n "${E2E_KEEP:-}" ]; then
		echo "e2e: state and logs kept in $E2E_DIR" >&2
	else
		rm -rf "$E2E_DIR"
	fi
	rm -rf "$_scratch_root"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# abort MESSAGE [FILE...]: a setup step failed; nothing else can run.
abort() {
	fail "$1"
	shift
	for _f in "$@"; do
		[ -s "$_f" ] && tail -n 30 "$_f" | sed 's/^/    /'
	done
	finish e2e
	exit 1
}

need=""
for tool in jq curl openssl; do
	command -v "$tool" >/dev/null 2>&1 || need="$need $tool"
done
command -v etcd >/dev/null 2>&1 || need="$need etcd-server"
if [ -n "$need" ]; then
	[ "$(id -u)" = 0 ] || abort "e2e needs:$need (run as root to install them)"
	say "installing$need"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null 2>&1 ||
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq $need >/dev/null; } ||
		abort "cannot install$need"
fi
# kubectl from the project's own set-up, never Debian 12's (it panics)
KUBECTL=$(sh "$TESTS_DIR/tools/get.sh" kubectl 2>"$E2E_DIR/get-kubectl.err") && [ -x "$KUBECTL" ] ||
	abort "no kubectl: tests/tools/get.sh kubectl failed" "$E2E_DIR/get-kubectl.err"
export KUBECTL
say "kubectl $("$KUBECTL" version --client 2>/dev/null | sed -n 's/^Client Version: //p') from $KUBECTL"
for bin in "$GPUMEND" "$GPUMEND_WEBHOOK"; do
	[ -x "$bin" ] || abort "$bin not built (make, or make check for build-asan)"
done

# the sanitizer build: reports go to files, each one fails the suite
san_dir=""
if ldd "$GPUMEND_WEBHOOK" 2>/dev/null | grep -q libasan; then
	san_dir="$E2E_DIR/sanitizer"
	mkdir -p "$san_dir"
	export ASAN_OPTIONS="log_path=$san_dir/asan:detect_leaks=1:abort_on_error=0"
	export UBSAN_OPTIONS="log_path=$san_dir/ubsan:print_stacktrace=1:halt_on_error=1"
	export LSAN_OPTIONS="suppressions=$TESTS_DIR/lsan.supp:print_suppressions=0"
	say "sanitizer build: reports in $san_dir"
fi

t0=$(date +%s)
K8S_BIN=$(sh "$E2E_HOME/k8s-build.sh" | tail -n 1)
[ -n "$K8S_BIN" ] && [ -x "$K8S_BIN/kube-apiserver" ] &&
	[ -x "$K8S_BIN/kube-controller-manager" ] ||
	abort "no kube-apiserver or kube-controller-manager: tests/e2e/k8s-build.sh failed (see above)"
say "kube-apiserver $("$K8S_BIN/kube-apiserver" --version 2>/dev/null | sed 's/^Kubernetes //') from $K8S_BIN ($(($(date +%s) - t0)) s)"

# ------------------------------------------------------------------
# The control plane

t0=$(date +%s)
make_pki || abort "cannot make the cluster certificates" "$E2E_DIR/pki.log"
start_etcd || abort "etcd does not start" "$E2E_DIR/etcd.log"
start_apiserver || abort "kube-apiserver does not become ready" "$E2E_DIR/apiserver.log"
write_kubeconfig 2>"$E2E_DIR/kubeconfig.err" ||
	abort "kubectl config cannot write the admin kubeconfig" "$E2E_DIR/kubeconfig.err"
# the bootstrap controllers make the default namespace and the built-in
# priority classes shortly after /readyz
poll 60 k get namespace default -o name >/dev/null 2>"$E2E_DIR/kubectl.err" ||
	abort "kubectl cannot read the default namespace from kube-apiserver" "$E2E_DIR/kubectl.err"
pass "control plane: etcd and kube-apiserver ready on 127.0.0.1 ($(($(date +%s) - t0)) s)"
start_scheduler || abort "kube-scheduler does not start" "$E2E_DIR/scheduler.log"
t0=$(date +%s)
start_controller_manager ||
	abort "kube-controller-manager does not start (no default service account after 60 s)" "$E2E_DIR/controller-manager.log"
pass "kube-controller-manager ready, node-lifecycle controller off ($(($(date +%s) - t0)) s)"
start_reaper

# CronJobs: batch/v1 from 1.21 on, batch/v1beta1 before
cronjob_version=""
if ! k get --raw /apis/batch/v1 2>/dev/null | jq -e '.resources[] | select(.name == "cronjobs")' >/dev/null; then
	cronjob_version=batch/v1beta1
fi

k create -f "$DATA/crds.yaml" >/dev/null 2>"$E2E_DIR/crds.err" &&
	k wait --for condition=established --timeout=30s \
		crd/tfjobs.kubeflow.org crd/jobs.batch.volcano.sh \
		crd/issuers.cert-manager.io crd/certificates.cert-manager.io >/dev/null 2>>"$E2E_DIR/crds.err" ||
	abort "cannot install the stub CRDs" "$E2E_DIR/crds.err"

# Fake GPU nodes: GPU Feature Discovery labels, device plugin capacity
nodes_ok=1
add_node cpu-only '{}' || nodes_ok=0
add_node gpu-k80 '{"nvidia.com/gpu": "4"}' nvidia.com/gpu.present=true \
	nvidia.com/gpu.product=Tesla-K80 nvidia.com/gpu.count=4 || nodes_ok=0
add_node gpu-a100 '{"nvidia.com/gpu": "8"}' nvidia.com/gpu.present=true \
	nvidia.com/gpu.product=A100-SXM4-80GB nvidia.com/gpu.count=8 || nodes_ok=0
# time-slicing as the device plugin's default configuration does it: four
# replicas of each GPU as nvidia.com/gpu, the model labelled -SHARED
add_node gpu-shared '{"nvidia.com/gpu": "16"}' nvidia.com/gpu.present=true \
	nvidia.com/gpu.product=Tesla-T4-SHARED nvidia.com/gpu.count=4 \
	nvidia.com/gpu.replicas=4 nvidia.com/gpu.sharing-strategy=time-slicing || nodes_ok=0
n_nodes=4
nodes_schedulable() {
	[ "$(k get nodes -o json | jq '[.items[] | select((.spec.taints // []) == [] and
		any(.status.conditions[]; .type == "Ready" and .status == "True"))] | length')" = "$n_nodes" ]
}
if [ $nodes_ok = 1 ] && poll 20 nodes_schedulable; then
	pass "fake GPU nodes: $n_nodes Ready, untainted, with GPU capacity"
else
	k get nodes -o wide >"$E2E_DIR/nodes.out" 2>&1
	abort "cannot make the fake GPU nodes" "$E2E_DIR/nodes.out"
fi

for ns in e2e e2e-golden e2e-rotation e2e-ctl; do
	k create namespace "$ns" >/dev/null || abort "cannot create namespace $ns"
done
# the reference namespace: the webhook's namespaceSelector leaves it out
jq -n '{apiVersion: "v1", kind: "Namespace", metadata: {name: "e2e-ref",
	labels: {"gpumend.io/webhook": "disabled"}}}' | k create -f - >/dev/null ||
	abort "cannot create namespace e2e-ref"

# ------------------------------------------------------------------
# Helpers

# to_json FILE [ERRFILE]: the objects of a YAML or JSON file as a JSON
# array, read by kubectl itself (a List gives its items). kubectl's YAML
# reader stops at a document end marker, so `...` lines become `---`.
to_json() {
	_tj="$E2E_DIR/to_json.$$.${1##*.}"
	sed 's/^\.\.\.[[:space:]]*$/---/' "$1" >"$_tj" &&
	k patch --local -f "$_tj" --type=json -p '[]' -o json >"$_tj.out" 2>"${2:-/dev/null}" &&
	jq -s . "$_tj.out"
}

# object FILE NAME: the single object of FILE, renamed.
object() {
	k patch --local -f "$1" --type=json -p '[]' -o json | jq --arg n "$2" '.metadata.name = $n'
}

# pod_json NS NAME
pod_json() {
	k get pod -n "$1" "$2" -o json
}

# scheduled NS POD: the pod is bound; its node in $node.
scheduled() {
	node=$(k get pod -n "$1" "$2" -o jsonpath='{.spec.nodeName}' 2>/dev/null)
	[ -n "$node" ]
}

# unschedulable NS POD: the scheduler said why; the message in $why.
unschedulable() {
	why=$(k get pod -n "$1" "$2" -o json 2>/dev/null | jq -r '.status.conditions[]? |
		select(.type == "PodScheduled" and .status == "False" and .reason == "Unschedulable") | .message')
	[ -n "$why" ]
}

# delete_pods NS: every pod of NS, at once (no kubelet to wait for).
delete_pods() {
	k delete pods -n "$1" --all --grace-period=0 --force --wait=true >/dev/null 2>&1
}

# migrated_pod FILE: a stored pod asks for nvidia.com/gpu, nothing legacy.
migrated_pod() {
	jq -e '[.spec.containers[].resources.limits // {} | keys[]] as $r |
		($r | index("nvidia.com/gpu")) and ($r | index("alpha.kubernetes.io/nvidia-gpu") | not)' "$1" >/dev/null
}

# ctl_snapshot: every workload object of namespace $ctl, in
# $E2E_DIR/ctl.json, for ctl_true.
ctl_snapshot() {
	k get deployments,replicasets,statefulsets,daemonsets,controllerrevisions,jobs,cronjobs,pods \
		-n "$ctl" -o json >"$E2E_DIR/ctl.json.new" 2>"$E2E_DIR/ctl.err" &&
	mv "$E2E_DIR/ctl.json.new" "$E2E_DIR/ctl.json"
}

# ctl_true JQ: the jq expression is true of the last snapshot, with:
#   obj(KIND; NAME)       the object
#   owned(KIND; NAME)     the objects whose controlling owner it is
#   settled(KIND; NAME)   its controller has seen its last change
#   pods_of_rs(DEPLOY)    the pods of the Deployment's ReplicaSets
#   legacy_limits         a pod's limits still name a legacy resource
ctl_jq='
def obj($k; $n): first(.items[] | select(.kind == $k and .metadata.name == $n));
def owned($k; $n): .items[] | select(any(.metadata.ownerReferences[]?;
	.controller == true and .kind == $k and .name == $n));
def settled($k; $n): obj($k; $n) | .status.observedGeneration == .metadata.generation;
def pods_of_rs($d): [owned("Deployment"; $d).metadata.name] as $rs |
	[.items[] | select(.kind == "Pod" and any(.metadata.ownerReferences[]?;
		.controller == true and .kind == "ReplicaSet" and (.name as $n | $rs | index($n))))];
def legacy_limits: [.spec.containers[].resources.limits // {} | keys[] |
	select(. == "alpha.kubernetes.io/nvidia-gpu" or startswith("aliyun.com/"))] | length > 0;
'
ctl_true() {
	jq -e "$ctl_jq $1" "$E2E_DIR/ctl.json" >/dev/null 2>&1
}

# ctl_summary: what the controllers made, for a failure's context.
ctl_summary() {
	ctl_snapshot
	jq -r '.items[] | "\(.kind)/\(.metadata.name) generation=\(.metadata.generation // "-") observed=\(.status.observedGeneration // "-") node=\(.spec.nodeName // "-") owner=\([.metadata.ownerReferences[]? | select(.controller) | "\(.kind)/\(.name)"] | join(","))"' \
		"$E2E_DIR/ctl.json" 2>/dev/null | head -n 40 | sed 's/^/    /'
}

# gpumend_reviews NAME: the webhook's log lines for objects named NAME.
gpumend_reviews() {
	grep '"msg":"admission review"' "$E2E_DIR/gpumend.log" | grep "\"name\":\"$1\""
}

# reviews_at_least NAME COUNT
reviews_at_least() {
	[ "$(gpumend_reviews "$1" | grep -c .)" -ge "$2" ]
}

# ------------------------------------------------------------------
# The problem, without gpumend

object "$REPO_DIR/examples/pod-driver-hostpath.yaml" unmigrated >"$E2E_DIR/unmigrated.json"
if k create -n e2e -f "$E2E_DIR/unmigrated.json" >/dev/null 2>"$E2E_DIR/err"; then
	pass "no webhook: the legacy GPU pod is accepted by the apiserver"
else
	fail "no webhook: the legacy GPU pod is refused"
	show "$E2E_DIR/err"
fi
if poll 60 unschedulable e2e unmigrated &&
	echo "$why" | grep -q "0/$n_nodes nodes are available: $n_nodes Insufficient alpha.kubernetes.io/nvidia-gpu"; then
	pass "no webhook: never scheduled ($why)"
else
	fail "no webhook: the legacy pod is not reported unschedulable for its alpha resource"
	echo "    node: '$node' why: '$why'"
fi
if scheduled e2e unmigrated; then
	fail "no webhook: the legacy pod was bound to $node"
fi

# The controllers without gpumend: a legacy Deployment (healed below,
# once gpumend is registered) gets its ReplicaSet and a pod, which waits.
ctl=e2e-ctl
k create -n $ctl -f "$DATA/legacy-web.yaml" >/dev/null 2>"$E2E_DIR/err" || show "$E2E_DIR/err"
legacy_web_waits() {
	ctl_snapshot &&
	ctl_true '[owned("Deployment"; "legacy-web")] | length == 1' &&
	ctl_true 'settled("Deployment"; "legacy-web") and
		(obj("Deployment"; "legacy-web").metadata.annotations["deployment.kubernetes.io/revision"] == "1")' &&
	ctl_true '[pods_of_rs("legacy-web")[] | .status.conditions[]? |
		select(.type == "PodScheduled" and .reason == "Unschedulable")] | length == 1'
}
if poll 60 legacy_web_waits; then
	pass "no webhook: the controllers make a legacy Deployment's ReplicaSet and pod, which is never scheduled"
else
	fail "no webhook: the legacy Deployment does not get one ReplicaSet and one waiting pod"
	ctl_summary
fi

# ------------------------------------------------------------------
# gpumend registered

webhook_certs "$E2E_DIR/wh-tls" >"$E2E_DIR/cabundle" 2>"$E2E_DIR/err" ||
	abort "gpumend certs failed" "$E2E_DIR/err"
cabundle=$(tr -d '\n' <"$E2E_DIR/cabundle")
# the config in a directory of its own, which the webhook in the image
# (user 65532) can read: $E2E_DIR is private
WH_CONFIG="$E2E_DIR/wh-config/gpumend.yaml"
mkdir -p "$E2E_DIR/wh-config" && chmod 755 "$E2E_DIR/wh-config" &&
	cp "$DATA/default.yaml" "$WH_CONFIG" && chmod 644 "$WH_CONFIG" ||
	abort "cannot write the webhook's config"
start_webhook gpumend "$E2E_DIR/wh-tls" -c "$WH_CONFIG" ||
	abort "gpumend-webhook does not start" "$E2E_DIR/gpumend.log"
if use_image gpumend; then
	say "gpumend-webhook runs from the image gpumend:$(cat "$REPO_DIR/VERSION") (tests/image/webhook.sh; E2E_IMAGE=0 for the host's binary)"
else
	say "gpumend-webhook runs from $GPUMEND_WEBHOOK (no image: make image to test what users deploy)"
fi
gpumend_url=$wh_url

# The registration, with a URL and a caBundle instead of the Service, plus
# what this apiserver needs to send the objects of the cases.
kube_minor=$(k version -o json 2>/dev/null | jq -r '.serverVersion.minor' | tr -dc 0-9)
[ -n "$kube_minor" ] || abort "cannot read the apiserver's version"
extra_rules='[{"apiGroups": ["kubeflow.org"], "apiVersions": ["v1"],
	"operations": ["CREATE", "UPDATE"], "resources": ["tfjobs"], "scope": "Namespaced"},
	{"apiGroups": ["batch.volcano.sh"], "apiVersions": ["v1alpha1"],
	"operations": ["CREATE", "UPDATE"], "resources": ["jobs"], "scope": "Namespaced"}]'
echo "note: registered for the stub CRDs kubeflow.org/v1 tfjobs and batch.volcano.sh/v1alpha1 jobs too (the manifest names no custom resource)"
if [ -n "$cronjob_version" ]; then
	extra_rules=$(echo "$extra_rules" | jq --arg v "${cronjob_version#batch/}" '. + [{"apiGroups": ["batch"],
		"apiVersions": [$v], "operations": ["CREATE", "UPDATE"], "resources": ["cronjobs"],
		"scope": "Namespaced"}]')
	echo "note: this apiserver serves CronJobs as $cronjob_version only: registered for it too (the manifest's batch/v1 rule cannot match), batch/v1 CronJobs of the cases are created as $cronjob_version"
fi
# What `gpumend webhook-config` prints for this apiserver's version: before
# 1.28 (matchConditions) one entry, mutate.gpumend.io, failurePolicy
# Ignore, that every object is sent to; the CEL suite proves the
# conditions of the two-entry registration.
"$GPUMEND" webhook-config -c "$DATA/default.yaml" --kube-version "1.$kube_minor" \
	-o json >"$E2E_DIR/generated.json" 2>"$E2E_DIR/webhook-config.err" ||
	abort "gpumend webhook-config failed" "$E2E_DIR/webhook-config.err"
sed 's/^/note: /' "$E2E_DIR/webhook-config.err"
jq --arg url "$gpumend_url" --arg ca "$cabundle" --argjson extra "$extra_rules" '
	.webhooks |= map(.clientConfig = {url: ($url + .clientConfig.service.path), caBundle: $ca} |
		.rules += $extra)' "$E2E_DIR/generated.json" >"$E2E_DIR/registration.json"
k create -f "$E2E_DIR/registration.json" >/dev/null 2>"$E2E_DIR/err" ||
	abort "cannot register the webhook" "$E2E_DIR/err"

# probe_mutated NS: a server dry run of a legacy pod comes back migrated.
object "$DATA/pod-legacy.yaml" probe >"$E2E_DIR/probe.json"
probe_mutated() {
	k create --dry-run=server -n "$1" -f "$E2E_DIR/probe.json" -o json >"$E2E_DIR/probe.out" 2>/dev/null &&
		migrated_pod "$E2E_DIR/probe.out"
}
t0=$(date +%s)
if poll 30 probe_mutated e2e; then
	pass "registration with clientConfig.url and caBundle takes effect ($(($(date +%s) - t0)) s)"
else
	abort "the registration never takes effect" "$E2E_DIR/probe.out" "$E2E_DIR/gpumend.log"
fi

object "$REPO_DIR/examples/pod-driver-hostpath.yaml" migrated >"$E2E_DIR/migrated.json"
if k create -n e2e -f "$E2E_DIR/migrated.json" >/dev/null 2>"$E2E_DIR/err" &&
	pod_json e2e migrated >"$E2E_DIR/out" && migrated_pod "$E2E_DIR/out" &&
	jq -e '(.spec.volumes | map(.name)) == ["scratch"] and
		.metadata.annotations["gpumend.io/mutations"] == "legacy-gpu-resource,obsolete-cuda-hostpath"' \
		"$E2E_DIR/out" >/dev/null; then
	pass "with gpumend: the legacy GPU pod is stored migrated (nvidia.com/gpu, driver volumes gone)"
else
	fail "with gpumend: the legacy GPU pod is not stored migrated"
	show "$E2E_DIR/err" "$E2E_DIR/out"
fi
# any node that serves nvidia.com/gpu: the pod names no model, and a
# time-slicing node under the device plugin's default configuration
# (gpu-shared) serves it as nvidia.com/gpu too
if poll 60 scheduled e2e migrated && case $node in gpu-k80 | gpu-a100 | gpu-shared) true ;; *) false ;; esac; then
	pass "with gpumend: the scheduler binds it to a GPU node ($node)"
else
	fail "with gpumend: the migrated pod is not bound to a GPU node (node '$node')"
	unschedulable e2e migrated && echo "    $why"
fi
delete_pods e2e

# ------------------------------------------------------------------
# Placement, by the scheduler

# The seed's affinity annotation (Tesla K80 or P100, 2 GPUs each): two fill
# the K80 node, the third waits although the A100 node has 8 free GPUs.
for i in 1 2 3; do
	object "$REPO_DIR/examples/pod-affinity-annotation.yaml" "affinity-$i" >"$E2E_DIR/a.json"
	k create -n e2e -f "$E2E_DIR/a.json" >/dev/null 2>"$E2E_DIR/err" || { show "$E2E_DIR/err"; break; }
	[ $i = 3 ] || poll 60 scheduled e2e "affinity-$i" || break
done
pod_json e2e affinity-1 >"$E2E_DIR/out" 2>/dev/null
if jq -e '(.metadata.annotations // {} | has("scheduler.alpha.kubernetes.io/affinity") | not) and
	.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0] ==
	{key: "nvidia.com/gpu.product", operator: "In", values: ["Tesla-K80", "Tesla-P100"]}' "$E2E_DIR/out" >/dev/null; then
	pass "affinity annotation: stored as spec.affinity on nvidia.com/gpu.product"
else
	fail "affinity annotation: not moved into spec.affinity"
	show "$E2E_DIR/out"
fi
n1=$(k get pod -n e2e affinity-1 -o jsonpath='{.spec.nodeName}' 2>/dev/null)
n2=$(k get pod -n e2e affinity-2 -o jsonpath='{.spec.nodeName}' 2>/dev/null)
check "affinity annotation: two pods land on the K80 node ($n1, $n2)" \
	[ "$n1/$n2" = gpu-k80/gpu-k80 ]
if poll 60 unschedulable e2e affinity-3 && ! scheduled e2e affinity-3 &&
	echo "$why" | grep -q "1 Insufficient nvidia.com/gpu" &&
	echo "$why" | grep -q "3 node(s) didn't match"; then
	pass "affinity annotation: with the K80 full, the third waits and never goes to the A100 ($why)"
else
	fail "affinity annotation: the third pod is not held back for the K80 (node '$node', why '$why')"
fi
delete_pods e2e

# the old node label in a nodeSelector
k create -n e2e -f "$DATA/pod-node-selector.yaml" >/dev/null 2>"$E2E_DIR/err" || show "$E2E_DIR/err"
if poll 60 scheduled e2e a100-by-label && [ "$node" = gpu-a100 ] &&
	pod_json e2e a100-by-label | jq -e '.spec.nodeSelector == {"nvidia.com/gpu.product": "A100-SXM4-80GB"}' >/dev/null; then
	pass "nodeSelector on the old gpu-name label: lands on its model ($node)"
else
	fail "nodeSelector on the old gpu-name label: node '$node'"
fi

# a pod made of the gpushare Deployment's template
to_json "$REPO_DIR/examples/deployment-gpushare.yaml" | jq '.[0] | {apiVersion: "v1", kind: "Pod",
	metadata: (.spec.template.metadata + {name: "gpushare"}), spec: .spec.template.spec}' >"$E2E_DIR/gpushare.json"
k create -n e2e -f "$E2E_DIR/gpushare.json" >/dev/null 2>"$E2E_DIR/err" || show "$E2E_DIR/err"
if poll 60 scheduled e2e gpushare && [ "$node" = gpu-shared ] &&
	pod_json e2e gpushare | jq -e '.spec.containers[0].resources.limits["nvidia.com/gpu"] == "1"' >/dev/null; then
	pass "gpushare (aliyun.com/gpu-mem) pod: lands on the time-slicing node ($node)"
else
	fail "gpushare pod: node '$node'"
	unschedulable e2e gpushare && echo "    $why"
fi

# more GPUs than any node has
k create -n e2e -f "$DATA/pod-too-many.yaml" >/dev/null 2>"$E2E_DIR/err" || show "$E2E_DIR/err"
if poll 60 unschedulable e2e too-many-gpus && ! scheduled e2e too-many-gpus &&
	echo "$why" | grep -q "Insufficient nvidia.com/gpu" && ! echo "$why" | grep -q alpha; then
	pass "16 GPUs: stays Pending for the right reason ($why)"
else
	fail "16 GPUs: not held back for nvidia.com/gpu (node '$node', why '$why')"
fi
delete_pods e2e

# ------------------------------------------------------------------
# Warnings, dry run

# the example names its namespace
k create namespace research >/dev/null 2>&1
k create -f "$REPO_DIR/examples/job-gpu-name-selector.yaml" >/dev/null 2>"$E2E_DIR/warn.err"
status=$?
if [ $status = 0 ] && grep -q '^Warning: legacy-gpu-resource: ' "$E2E_DIR/warn.err" &&
	grep -q '^Warning: gpu-visibility: .*metrics-sidecar' "$E2E_DIR/warn.err"; then
	pass "kubectl prints the webhook's warnings (fixed and warn-only findings)"
else
	fail "kubectl does not print the webhook's warnings"
	show "$E2E_DIR/warn.err"
fi
k delete -f "$REPO_DIR/examples/job-gpu-name-selector.yaml" --wait=true >/dev/null 2>&1

object "$REPO_DIR/examples/pod-driver-hostpath.yaml" dry >"$E2E_DIR/dry.json"
if k create --dry-run=server -n e2e -f "$E2E_DIR/dry.json" -o json >"$E2E_DIR/out" 2>"$E2E_DIR/err" &&
	migrated_pod "$E2E_DIR/out"; then
	pass "--dry-run=server: the answer is mutated"
else
	fail "--dry-run=server: not mutated"
	show "$E2E_DIR/err" "$E2E_DIR/out"
fi
if k get pod -n e2e dry 2>&1 | grep -q NotFound; then
	pass "--dry-run=server: nothing stored"
else
	fail "--dry-run=server: the pod was stored"
fi
check "--dry-run=server: the webhook saw dryRun" \
	sh -c "grep '\"msg\":\"admission review\"' '$E2E_DIR/gpumend.log' | grep '\"name\":\"dry\"' | grep -q '\"dry_run\":true'"

# ------------------------------------------------------------------
# Every example and golden case the apiserver can store

# set_config FILE: makes FILE the webhook's config and waits for the reload.
set_config() {
	cmp -s "$1" "$WH_CONFIG" && return 0
	_before=$(log_count gpumend '"msg":"config reloaded"')
	cp "$1" "$WH_CONFIG.new" && chmod 644 "$WH_CONFIG.new" && mv "$WH_CONFIG.new" "$WH_CONFIG" &&
		poll 10 log_at_least gpumend '"msg":"config reloaded"' $((_before + 1))
}

# store_through_webhook D: creates $D/webhook-in.json through the webhook
# (an object whose owner does not exist would be collected at once by the
# garbage collector: such cases go through as a server-side dry run, which
# returns the mutated object without storing it); $D/stored.json is what
# the apiserver stored, $D/create.err what kubectl printed. Fails when the
# apiserver refuses it.
store_through_webhook() {
	for _ns in $(jq -r '.items[].metadata.namespace' "$1/webhook-in.json" | sort -u); do
		k get namespace "$_ns" >/dev/null 2>&1 || k create namespace "$_ns" >/dev/null
	done
	_dry=""
	jq -e '[.items[].metadata.ownerReferences // empty] | length > 0' \
		"$1/webhook-in.json" >/dev/null && _dry=--dry-run=server
	if ! k create $_dry --validate=false -f "$1/webhook-in.json" -o json \
		>"$1/created.json" 2>"$1/create.err"; then
		[ -n "$_dry" ] ||
			k delete -f "$1/webhook-in.json" --ignore-not-found --grace-period=0 --force >/dev/null 2>&1
		return 1
	fi
	if [ -n "$_dry" ]; then
		cp "$1/created.json" "$1/stored.json"
	elif jq -e '[.items[] | select(.metadata.name == null)] | length > 0' \
		"$1/webhook-in.json" >/dev/null; then
		# a name the apiserver generates is not in the file to get by:
		# what the create answered is what it stored
		cp "$1/created.json" "$1/stored.json"
		jq -r 'if .kind == "List" then .items[] else . end |
			"\(.kind)/\(.metadata.name) -n \(.metadata.namespace)"' \
			"$1/created.json" | while read -r _obj _flag _ns; do
			k delete "$_obj" "$_flag" "$_ns" --ignore-not-found --grace-period=0 \
				--force --wait=true >/dev/null 2>&1
		done
		return 0
	else
		k get -f "$1/webhook-in.json" -o json >"$1/stored.json" 2>"$1/get.err"
		k delete -f "$1/webhook-in.json" --ignore-not-found --grace-period=0 --force \
			--wait=true >/dev/null 2>&1
	fi
	return 0
}

# same_objects D WHAT: $D/ref.json and $D/stored.json hold the same objects
# once normalised; passes or fails "NAME: WHAT".
same_objects() {
	jq -s -S -f "$DATA/normalize.jq" "$1/stored.json" >"$1/stored.norm" 2>>"$1/get.err" &&
	jq -s -S -f "$DATA/normalize.jq" "$1/ref.json" >"$1/ref.norm" &&
	if diff -u "$1/ref.norm" "$1/stored.norm" >"$1/diff"; then
		pass "$_n: $2 ($(jq -r 'map(.kind) | join(", ")' "$1/ref.norm"))"
	else
		fail "$_n: not so: $2 (- expected, + stored)"
		show "$1/get.err" "$1/diff"
	fi
}

# refused_alike D DETAIL: the apiserver refused $D through the webhook, as
# it refuses it without gpumend: passes "NAME: ... (DETAIL)" unless gpumend
# itself denied it.
refused_alike() {
	if grep -q 'denied the request' "$1/create.err"; then
		fail "$_n: gpumend denies what the apiserver refuses anyway"
		show "$1/create.err"
	else
		pass "$_n: refused by the apiserver alike with and without gpumend ($2)"
	fi
}

# reviewed_objects D CONFIG: what the webhook must make of each object of
# $D/webhook-in.json, by `gpumend review` on an AdmissionReview of it and
# its patch applied (kubectl patch --local), in $D/reviewed.json (a List
# without namespaces, for the reference namespace); $D/warnings holds the
# warnings of the answers.
reviewed_objects() {
	: >"$1/reviewed.lines"
	: >"$1/warnings"
	_i=0
	_count=$(jq '.items | length' "$1/webhook-in.json")
	while [ "$_i" -lt "$_count" ]; do
		jq ".items[$_i]" "$1/webhook-in.json" >"$1/obj.json"
		jq -n --slurpfile o "$1/obj.json" '$o[0] as $obj | {
			apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview",
			request: {
				uid: "e2e-reference",
				kind: {group: ($obj.apiVersion | if test("/") then split("/")[0] else "" end),
				       version: ($obj.apiVersion | split("/") | last),
				       kind: $obj.kind},
				resource: {group: "", version: "v1", resource: "objects"},
				namespace: ($obj.metadata.namespace // ""),
				name: ($obj.metadata.name // ""),
				operation: "CREATE",
				userInfo: {username: "e2e"},
				object: $obj, oldObject: null, dryRun: false
			}}' >"$1/review-req.json" &&
		# exit 1 is a denial (deny mode): an answer too
		{ "$GPUMEND" review -c "$2" "$1/review-req.json" >"$1/review-resp.json" \
			2>>"$1/review.err"; [ $? -le 1 ]; } &&
		jq -r '.response.warnings // [] | .[]' "$1/review-resp.json" >>"$1/warnings" &&
		"$KUBECTL" patch --local -f "$1/obj.json" --type=json \
			-p "$(jq -r '.response.patch // empty' "$1/review-resp.json" | base64 -d | grep . || echo '[]')" \
			-o json >"$1/obj-reviewed.json" 2>>"$1/review.err" &&
		jq -c . "$1/obj-reviewed.json" >>"$1/reviewed.lines" || return 1
		_i=$((_i + 1))
	done
	jq -s '.' "$1/reviewed.lines" >"$1/reviewed-array.json" &&
	jq --arg ns "" --arg cronjob "" -f "$DATA/for-server.jq" "$1/reviewed-array.json" >"$1/reviewed.json"
}

# refused_case NAME D EXIT CONFIG: INPUT is a case `gpumend migrate`
# refuses (exits EXIT: an error the rules cannot fix). The webhook must
# then answer as `gpumend review` does (fix what it can, warn about the
# rest, or deny it under a deny config), and never make the apiserver
# refuse what it would store without gpumend.
refused_case() {
	_d=$2
	if [ "$_storable" = 0 ]; then
		if store_through_webhook "$_d"; then
			fail "$_n: stored through the webhook, though the apiserver refuses it without"
		else
			refused_alike "$_d" "gpumend migrate exits $3 on it"
		fi
		return
	fi
	if ! reviewed_objects "$_d" "$4"; then
		fail "$_n: gpumend review cannot answer for its objects"
		show "$_d/review.err"
		return
	fi
	if ! store_through_webhook "$_d"; then
		if grep -q 'admission webhook "mutate.gpumend.io" denied the request' "$_d/create.err"; then
			pass "$_n: gpumend denies it (deny mode), as gpumend migrate refuses it (exit $3)"
		else
			fail "$_n: the apiserver refuses it with the webhook, not without"
			show "$_d/create.err"
		fi
		return
	fi
	if ! k create --dry-run=server --validate=false -n e2e-ref -f "$_d/reviewed.json" -o json \
		>"$_d/ref.json" 2>"$_d/ref.err"; then
		fail "$_n: the apiserver refuses what gpumend review makes of it"
		show "$_d/ref.err"
		return
	fi
	if [ -s "$_d/warnings" ]; then
		if grep -qE '^Warning: [a-z-]+: ' "$_d/create.err"; then
			pass "$_n: kubectl prints gpumend's warning ($(head -n 1 "$_d/warnings" | cut -d: -f1)), as gpumend migrate refuses it"
		else
			fail "$_n: kubectl prints no warning from gpumend, though gpumend review warns"
			show "$_d/warnings" "$_d/create.err"
		fi
	fi
	same_objects "$_d" "stored through the webhook = gpumend review's answer (gpumend migrate refuses it: exit $3)"
}

# compare_case NAME INPUT [CONFIG [EXIT]]: stores INPUT through the webhook
# and compares it with `gpumend migrate`'s output stored (dry run) without
# it. EXIT (not 0) says that `gpumend migrate` refuses INPUT: see
# refused_case. An input on an API version this apiserver does not serve
# (extensions/v1beta1...) cannot reach the webhook at all: then migrate's
# output goes through the webhook, which must leave it as it is.
compare_case() {
	_n=$1 _in=$2 _cfg=${3:-$DATA/default.yaml} _exit=${4:-0}
	_d="$E2E_DIR/cases/$_n"
	mkdir -p "$_d"
	if ! set_config "$_cfg"; then
		fail "$_n: the webhook does not reload the case's config"
		show "$E2E_DIR/gpumend.log"
		return
	fi
	if ! to_json "$_in" "$_d/in.err" >"$_d/in.json" || [ "$(jq length "$_d/in.json")" = 0 ]; then
		if [ "$_exit" != 0 ]; then
			pass "$_n: kubectl cannot read it either, as gpumend migrate refuses it (exit $_exit)"
		else
			skip "$_n: kubectl cannot read it as Kubernetes objects: $(head -n 1 "$_d/in.err" | cut -c 1-200)"
		fi
		return
	fi
	jq --arg ns e2e-golden --arg cronjob "$cronjob_version" -f "$DATA/for-server.jq" \
		"$_d/in.json" >"$_d/webhook-in.json"
	# what the apiserver cannot store at all is not gpumend's business;
	# what it refuses without gpumend may still be stored with it
	jq --arg ns "" --arg cronjob "$cronjob_version" -f "$DATA/for-server.jq" \
		"$_d/in.json" >"$_d/probe-in.json"
	_storable=1
	if ! k create --dry-run=server --validate=false -n e2e-ref -f "$_d/probe-in.json" \
		-o name >/dev/null 2>"$_d/probe.err"; then
		_storable=0
		grep -qE 'no matches for kind|unable to recognize' "$_d/probe.err" && _storable=nokind
	fi
	if [ "$_exit" != 0 ]; then
		if [ "$_storable" = nokind ]; then
			not_served "$_n: gpumend migrate refuses it (exit $_exit), and this apiserver cannot store it: $(grep -m 1 -oE 'no matches for kind "[^"]*" in version "[^"]*"' "$_d/probe.err")"
			return
		fi
		refused_case "$_n" "$_d" "$_exit" "$_cfg"
		return
	fi

	# the reference is what the webhook does: the offline-only rule that
	# changes more than what the apiserver converts (removed-api) is off
	"$GPUMEND" config -c "$_cfg" |
		awk '/^  removed-api:/ { r = 1 } r && /^    mode:/ { $0 = "    mode: off"; r = 0 } { print }' \
		>"$_d/reference.yaml"
	"$GPUMEND" migrate -c "$_d/reference.yaml" "$_in" >"$_d/migrated.out" 2>"$_d/migrate.err"
	_status=$?
	if [ $_status != 0 ]; then
		fail "$_n: gpumend migrate exits $_status"
		show "$_d/migrate.err"
		return
	fi
	_ext=${_in##*.}
	mv "$_d/migrated.out" "$_d/migrated.$_ext"
	if ! to_json "$_d/migrated.$_ext" "$_d/migrated.err" >"$_d/migrated-objects.json"; then
		fail "$_n: kubectl cannot read gpumend migrate's output"
		show "$_d/migrated.err"
		return
	fi
	jq --arg ns "" --arg cronjob "$cronjob_version" -f "$DATA/for-server.jq" \
		"$_d/migrated-objects.json" >"$_d/ref-in.json"
	_what="stored through the webhook = gpumend migrate"
	if [ "$_storable" = nokind ]; then
		# the input cannot reach the webhook: migrate's output, which the
		# apiserver must store, goes through it instead
		if ! k create --dry-run=server --validate=false -n e2e-ref -f "$_d/ref-in.json" \
			-o name >/dev/null 2>"$_d/ref-probe.err" &&
			grep -qE 'no matches for kind|unable to recognize' "$_d/ref-probe.err"; then
			not_served "$_n: no object of this apiserver, before or after gpumend migrate: $(grep -m 1 -oE 'no matches for kind "[^"]*" in version "[^"]*"' "$_d/ref-probe.err")"
			return
		fi
		jq --arg ns e2e-golden --arg cronjob "$cronjob_version" -f "$DATA/for-server.jq" \
			"$_d/migrated-objects.json" >"$_d/webhook-in.json"
		_what="$(grep -m 1 -oE 'no matches for kind "[^"]*" in version "[^"]*"' "$_d/probe.err" |
			sed 's/no matches for kind "\(.*\)" in version "\(.*\)"/\1 on \2/'), not served here: gpumend migrate's output is stored, and the webhook leaves it as it is"
	fi

	if ! store_through_webhook "$_d"; then
		if [ $_storable = 0 ]; then
			refused_alike "$_d" "$(grep -v '^Warning:' "$_d/probe.err" | head -n 1 | cut -c 1-160)"
			return
		fi
		fail "$_n: the apiserver refuses it with the webhook, not without"
		show "$_d/create.err"
		return
	fi
	if ! k create --dry-run=server --validate=false -n e2e-ref -f "$_d/ref-in.json" -o json \
		>"$_d/ref.json" 2>"$_d/ref.err"; then
		fail "$_n: the apiserver refuses gpumend migrate's output"
		show "$_d/ref.err"
		return
	fi
	same_objects "$_d" "$_what"
}

t0=$(date +%s)
examples=""
[ -d "$REPO_DIR/../shared/examples" ] && examples="$REPO_DIR/../shared/examples"
[ -n "$examples" ] || echo "note: ../shared/examples not found, only examples/ is used"
for f in $(find "$REPO_DIR/examples" $examples -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) | sort); do
	case $f in
	"$REPO_DIR"/examples/*) label="examples/${f#"$REPO_DIR"/examples/}" ;;
	*) label="shared/examples/${f#"$examples"/}" ;;
	esac
	compare_case "$label" "$f"
done
for case_dir in "$TESTS_DIR"/golden/*/; do
	name=$(basename "$case_dir")
	input=$(ls "$case_dir" | grep -E '^input\.(yaml|yml|json)$' | head -n 1)
	[ -n "$input" ] || continue
	exit_code=0
	[ -f "$case_dir/expected.exit" ] && exit_code=$(cat "$case_dir/expected.exit")
	cfg="$DATA/default.yaml"
	[ -f "$case_dir/config.yaml" ] && cfg="$case_dir/config.yaml"
	# the dra target is the CLI's: the webhook refuses a config that sets it
	if grep -qE '^target:[[:space:]]*dra' "$cfg"; then
		not_served "golden/$name: a --target dra case, which the webhook refuses by design (docs/dra.md)"
		continue
	fi
	# Kubernetes 1.20 drops resources.claims and resourceClaims (1.26+)
	# from a Pod before the webhook sees it
	if grep -qE '^[[:space:]]*-?[[:space:]]*(resourceClaims|claims):' "$case_dir/$input"; then
		not_served "golden/$name: asks through DRA claims, fields this apiserver (1.20) drops before admission"
		continue
	fi
	compare_case "golden/$name" "$case_dir/$input" "$cfg" "$exit_code"
done
set_config "$DATA/default.yaml" || fail "the webhook does not reload its default config"
say "examples and golden cases: $(($(date +%s) - t0)) s"

# ------------------------------------------------------------------
# Deny mode

if set_config "$DATA/deny.yaml"; then
	object "$DATA/pod-legacy.yaml" denied >"$E2E_DIR/denied.json"
	if k create -n e2e -f "$E2E_DIR/denied.json" >/dev/null 2>"$E2E_DIR/err"; then
		fail "deny mode: the legacy pod was admitted"
	elif grep -q 'admission webhook "mutate.gpumend.io" denied the request' "$E2E_DIR/err" &&
		grep -q 'legacy-gpu-resource' "$E2E_DIR/err" &&
		grep -q 'alpha.kubernetes.io/nvidia-gpu' "$E2E_DIR/err"; then
		pass "deny mode: rejected with gpumend's message"
	else
		fail "deny mode: rejected without gpumend's message"
	fi
	show "$E2E_DIR/err" | sed 's/^    /    kubectl: /' | head -n 3
	not_stored() {
		k get pod -n "$1" "$2" 2>&1 | grep -q NotFound
	}
	check "deny mode: nothing stored" not_stored e2e denied
else
	fail "deny mode: the webhook does not reload the deny config"
fi
set_config "$DATA/default.yaml" || fail "the webhook does not reload its default config"

# ------------------------------------------------------------------
# Reinvocation: a second webhook changes the pod after gpumend

if webhook_certs "$E2E_DIR/second-tls" >"$E2E_DIR/second.cabundle" 2>"$E2E_DIR/err" &&
	start_webhook second "$E2E_DIR/second-tls" -c "$DATA/second-webhook.yaml"; then
	jq -n --arg url "$wh_url/mutate" --arg ca "$(tr -d '\n' <"$E2E_DIR/second.cabundle")" '{
		apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingWebhookConfiguration",
		metadata: {name: "zz-e2e-second"},
		webhooks: [{name: "second.e2e.gpumend.io",
			clientConfig: {url: $url, caBundle: $ca},
			rules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"],
				resources: ["pods"], scope: "Namespaced"}],
			objectSelector: {matchLabels: {"e2e.gpumend.io/second-webhook": "yes"}},
			sideEffects: "None", admissionReviewVersions: ["v1"],
			timeoutSeconds: 5, failurePolicy: "Fail", reinvocationPolicy: "Never"}]}' |
		k create -f - >/dev/null 2>"$E2E_DIR/err" || show "$E2E_DIR/err"
	object "$DATA/pod-reinvoke.yaml" reinvoke-probe >"$E2E_DIR/reinvoke-probe.json"
	second_ready() {
		k create --dry-run=server -n e2e -f "$E2E_DIR/reinvoke-probe.json" -o json 2>/dev/null |
			jq -e '.metadata.annotations["e2e.gpumend.io/second-webhook"]' >/dev/null
	}
	if poll 30 second_ready; then
		k create -n e2e -f "$DATA/pod-reinvoke.yaml" >/dev/null 2>"$E2E_DIR/err" || show "$E2E_DIR/err"
		pod_json e2e reinvoke >"$E2E_DIR/out" 2>/dev/null
		if migrated_pod "$E2E_DIR/out" && jq -e '.spec.containers[1].env ==
			[{name: "NVIDIA_VISIBLE_DEVICES", value: "void"}]' "$E2E_DIR/out" >/dev/null; then
			pass "reinvocation: stored with both webhooks' changes"
		else
			fail "reinvocation: the stored pod lacks a webhook's change"
			show "$E2E_DIR/out"
		fi
		poll 5 reviews_at_least reinvoke 2
		gpumend_reviews reinvoke >"$E2E_DIR/reviews"
		if [ "$(grep -c . "$E2E_DIR/reviews")" = 2 ] &&
			head -n 1 "$E2E_DIR/reviews" | grep -q '"patched":true' &&
			tail -n 1 "$E2E_DIR/reviews" | grep -q '"patched":false'; then
			pass "reinvocation: gpumend called again for the same request, and changes nothing"
		else
			fail "reinvocation: gpumend's calls are not one patch then none"
			show "$E2E_DIR/reviews"
		fi
	else
		fail "reinvocation: the second webhook never takes effect"
		show "$E2E_DIR/second.log"
	fi
	k delete mutatingwebhookconfiguration zz-e2e-second >/dev/null 2>&1
	stop_name second
else
	fail "reinvocation: the second webhook does not start"
	show "$E2E_DIR/err" "$E2E_DIR/second.log"
fi
delete_pods e2e

# ------------------------------------------------------------------
# Controllers: ownership, re-applies, updates that heal
#
# Namespace $ctl, with kube-controller-manager making real pods that the
# scheduler binds to the fake nodes. Each pod template says where its
# pods belong (annotation e2e.gpumend.io/expect-node).

t_ctl=$(date +%s)
gpumend_port=${gpumend_url##*:}

# (a) The legacy Deployment made before gpumend was registered heals on
# its next update: checked 60 seconds after the restart, below.
if k rollout restart deployment/legacy-web -n $ctl >/dev/null 2>"$E2E_DIR/err"; then
	restarted_at=$(date +%s)
else
	restarted_at=0
	fail "rollout restart of the legacy Deployment: kubectl fails"
	show "$E2E_DIR/err"
fi

# (c) A Deployment created while the webhook is down (failurePolicy
# Ignore) is stored legacy, and heals on its next update.
stop_name gpumend
mv "$E2E_DIR/gpumend.log" "$E2E_DIR/gpumend-1.log"
object "$DATA/legacy-web.yaml" outage-web | jq '.metadata.labels.app = "outage-web" |
	.spec.selector.matchLabels.app = "outage-web" |
	.spec.template.metadata.labels.app = "outage-web"' >"$E2E_DIR/outage-web.json"
if k create -n $ctl -f "$E2E_DIR/outage-web.json" >/dev/null 2>"$E2E_DIR/err" &&
	k get deployment -n $ctl outage-web -o json | jq -e '
		.spec.template.spec.containers[0].resources.limits == {"alpha.kubernetes.io/nvidia-gpu": "1"} and
		(.metadata.annotations // {} | has("gpumend.io/mutations") | not)' >/dev/null; then
	pass "webhook down (failurePolicy Ignore): a legacy Deployment is stored as it came"
else
	fail "webhook down (failurePolicy Ignore): the legacy Deployment is not stored as it came"
	show "$E2E_DIR/err"
fi
start_webhook gpumend "$E2E_DIR/wh-tls" -c "$WH_CONFIG" --listen "127.0.0.1:$gpumend_port" ||
	abort "gpumend-webhook does not start again on port $gpumend_port" "$E2E_DIR/gpumend.log"
poll 30 probe_mutated e2e || abort "the restarted gpumend-webhook is never called" "$E2E_DIR/probe.out" "$E2E_DIR/gpumend.log"
outage_settled() {
	ctl_snapshot && ctl_true 'settled("Deployment"; "outage-web") and
		([owned("Deployment"; "outage-web")] | length == 1)'
}
poll 60 outage_settled
k annotate deployment outage-web -n $ctl e2e.gpumend.io/touched=yes >/dev/null 2>"$E2E_DIR/err" || show "$E2E_DIR/err"
# one rollout: the stored legacy ReplicaSet, left as it is, and one
# migrated, whose pod is bound with nvidia.com/gpu
outage_healed() {
	ctl_snapshot && ctl_true 'settled("Deployment"; "outage-web") and
		(obj("Deployment"; "outage-web") | .metadata.annotations["gpumend.io/mutations"] != null and
			(.spec.template | legacy_limits | not)) and
		([owned("Deployment"; "outage-web")] | length == 2) and
		([pods_of_rs("outage-web")[] | select(.spec.nodeName and
			.spec.containers[0].resources.limits["nvidia.com/gpu"] == "1")] | length == 1)'
}
if poll 60 outage_healed && sleep 10 && outage_healed; then
	pass "webhook back: the Deployment heals on its next update (an annotation), one rollout, its pod bound with nvidia.com/gpu"
else
	fail "webhook back: the Deployment made during the outage does not heal with one rollout"
	ctl_summary
fi

# (b) Each legacy kind applied 3 times, 5 s apart, client-side, then once
# server-side; and, made anew, 3 times server-side: every apply
# succeeds, and nothing rolls out after the first (the controllers'
# children, generations and pods stay).
wl="$E2E_DIR/workloads"
mkdir -p "$wl"
wl_names='[]'
for f in "$DATA"/workloads/*.yaml; do
	n=$(basename "$f" .yaml)
	to_json "$f" "$wl/$n.to_json.err" >"$wl/$n.objects" &&
		jq --arg ns "" --arg cronjob "$cronjob_version" -f "$DATA/for-server.jq" \
			"$wl/$n.objects" | jq 'walk(if type == "object" and (.limits | type) == "object"
			then .limits |= map_values(if type == "number" then tostring else . end)
			else . end)' >"$wl/$n.json" ||
		abort "kubectl cannot read $f" "$wl/$n.to_json.err"
	wl_names=$(jq -c --argjson l "$wl_names" '$l + [.items[].metadata.name]' "$wl/$n.json")
done
echo "note: Kubernetes 1.20's server-side apply cannot read a resource quantity written as a number (\"expected string\"), in the manifest or in the last-applied annotation of a client-side apply: the re-applied manifests write their limits as strings"
echo "note: an object applied client-side is then applied server-side with --force-conflicts, as kubectl asks: the fields gpumend migrated differ from the last client-side apply, so the API server cannot hand them over from kubectl-client-side-apply (any mutating webhook does that)"
# apply_all ROUND STATUS ARGS...: every workload, by kubectl apply ARGS;
# "NAME EXIT-STATUS" lines appended to STATUS
apply_all() {
	_round=$1 _status=$2
	shift 2
	for _f in "$wl"/*.json; do
		_n=$(basename "$_f" .json)
		k apply "$@" -n $ctl -f "$_f" >"$wl/$_n.out-$_round" 2>"$wl/$_n.err-$_round"
		echo "$_n $?" >>"$_status"
	done
}
# markers: per workload, what a rollout or a change would show: its uid,
# generation, spec and annotations (but kubectl's last-applied
# configuration), and the number of children of each kind it controls (a
# CronJob's Jobs aside: its schedule adds them)
markers() {
	ctl_snapshot && jq -r --argjson names "$wl_names" '.items as $all | $all[] |
		select(.metadata.name as $n | $names | index($n)) | .metadata.uid as $uid |
		"\(.kind)/\(.metadata.name) uid=\($uid) generation=\(.metadata.generation)" +
		(if .kind == "CronJob" then "" else " children=\([$all[] | select(any(.metadata.ownerReferences[]?;
			.uid == $uid and .controller == true)) | .kind] | group_by(.) |
			map("\(.[0]):\(length)") | join(","))" end) +
		" spec=\(.spec | tojson) annotations=\(.metadata.annotations // {} |
			del(.["kubectl.kubernetes.io/last-applied-configuration"]) | tojson)"' \
		"$E2E_DIR/ctl.json" | sort
}
# same_markers A B: no change between the markers A and B; with
# "but-generation", the generations aside
same_markers() {
	if [ "${3:-}" = but-generation ]; then
		sed 's/ generation=[^ ]*//' "$1" >"$1.nogen"
		sed 's/ generation=[^ ]*//' "$2" >"$2.nogen"
		set -- "$1.nogen" "$2.nogen"
	fi
	[ "$(grep -c . "$1")" = 6 ] && cmp -s "$1" "$2"
}
workloads_settled() {
	ctl_snapshot && ctl_true '
		settled("Deployment"; "legacy-deploy") and settled("DaemonSet"; "legacy-ds") and
		settled("StatefulSet"; "legacy-sts") and
		([owned("Deployment"; "legacy-deploy")] | length == 1) and
		([pods_of_rs("legacy-deploy")[] | select(.spec.nodeName)] | length == 1) and
		([owned("DaemonSet"; "legacy-ds") | select(.kind == "Pod" and .spec.nodeName)] | length == 1) and
		([owned("StatefulSet"; "legacy-sts") | select(.kind == "Pod" and .spec.nodeName)] | length == 1) and
		([owned("Job"; "legacy-job") | select(.kind == "Pod" and .spec.nodeName)] | length == 1) and
		(obj("Pod"; "legacy-pod").spec.nodeName != null)'
}
# pod_reapplies: the updates of legacy-pod gpumend patched so far
pod_reapplies() {
	grep '"msg":"admission review"' "$E2E_DIR/gpumend.log" | grep '"operation":"UPDATE"' |
		grep -c '"name":"legacy-pod".*"patched":true'
}
# reapply STYLE ARGS...: the workloads made by kubectl apply ARGS, then
# applied so twice more, 5 s apart; client-side, then once more with
# --server-side --force-conflicts
reapply() {
	_style=$1
	shift
	_st="$wl/status-$_style"
	: >"$_st"
	_t0=$(date +%s)
	_reviews_before=$(pod_reapplies)
	apply_all "$_style-1" "$_st" "$@"
	poll 90 workloads_settled ||
		{ fail "re-apply $_style: the workloads do not settle after the first apply"; ctl_summary; }
	markers >"$wl/markers-$_style-1"
	for _round in 2 3; do
		sleep 5
		apply_all "$_style-$_round" "$_st" "$@"
	done
	sleep 5
	poll 30 workloads_settled
	markers >"$wl/markers-$_style-2"
	_how="3 times with kubectl apply${*:+ $*}"
	_want=18
	if [ "$_style" = client-side ]; then
		apply_all "$_style-4" "$_st" --server-side --force-conflicts
		_how="$_how, then with --server-side --force-conflicts"
		_want=24
		sleep 5
		poll 30 workloads_settled
		markers >"$wl/markers-$_style-3"
	fi
	_ok=$(awk '$2 == 0' "$_st" | grep -c .)
	if [ "$(grep -c . "$_st")" = $_want ] && [ "$_ok" = $_want ]; then
		pass "re-apply $_style: each of the 6 legacy kinds applied $_how: all $_ok applies succeed"
	else
		fail "re-apply $_style: $_ok of $_want applies succeed"
		for _e in "$wl"/*.err-"$_style"-*; do
			grep -v '^Warning:' "$_e" | grep -q . || continue
			echo "    $(basename "$_e"):"
			grep -v '^Warning:' "$_e" | head -n 5 | sed 's/^/      /'
		done
	fi
	if same_markers "$wl/markers-$_style-1" "$wl/markers-$_style-2"; then
		pass "re-apply $_style: no rollout and no change after the first apply (ReplicaSets, controller revisions, pods, generations, specs, annotations; $(($(date +%s) - _t0)) s)"
	else
		fail "re-apply $_style: something changed or rolled out again (before, after)"
		diff "$wl/markers-$_style-1" "$wl/markers-$_style-2" | cut -c 1-400 | sed 's/^/    /'
	fi
	# the API server rewrites the last-applied annotation of an object
	# kubectl applies server-side, and a Deployment's generation counts
	# its annotations too
	if [ "$_style" = client-side ]; then
		if same_markers "$wl/markers-$_style-2" "$wl/markers-$_style-3" but-generation; then
			pass "re-apply $_style: then server-side, no rollout and no change (ReplicaSets, controller revisions, pods, specs, annotations but kubectl's last-applied)"
		else
			fail "re-apply $_style: then server-side, something changed (before, after)"
			diff "$wl/markers-$_style-2" "$wl/markers-$_style-3" | cut -c 1-400 | sed 's/^/    /'
		fi
	fi
	_reviews=$(($(pod_reapplies) - _reviews_before))
	check "re-apply $_style: gpumend answered the pod's re-applies, removing the legacy keys put back ($_reviews patched updates)" \
		[ "$_reviews" -ge $((_want / 6 - 1)) ]
}
reapply client-side
# the same manifests, made anew by server-side apply
gone() {
	ctl_snapshot && jq -e --argjson names "$wl_names" '[.items[] | select(
		(.metadata.name as $n | $names | index($n)) or
		((.metadata.annotations // {})["e2e.gpumend.io/expect-node"] and
		 (.metadata.labels.app // "" | test("^(legacy|outage)-web$") | not)))] | length == 0' \
		"$E2E_DIR/ctl.json" >/dev/null
}
for f in "$wl"/*.json; do
	k delete -n $ctl -f "$f" --cascade=foreground --wait=false >/dev/null 2>&1
done
poll 90 gone || { fail "re-apply: the client-side applied workloads are not gone 90 s after their deletion"; ctl_summary; }
reapply server-side --server-side

# (d) A CronJob's Job: left alone by gpumend (its template is the
# CronJob's, migrated), its pod bound to the time-slicing node.
cron_job=""
cron_job_made() {
	ctl_snapshot &&
	cron_job=$(jq -r "$ctl_jq"' first(owned("CronJob"; "legacy-cron") | .metadata.name) // empty' "$E2E_DIR/ctl.json") &&
	[ -n "$cron_job" ]
}
t0=$(date +%s)
if poll 130 cron_job_made; then
	cron_pod_bound() {
		ctl_snapshot && ctl_true "[owned(\"Job\"; \"$cron_job\") | select(.kind == \"Pod\" and .spec.nodeName)] | length == 1"
	}
	poll 60 cron_pod_bound
	if ctl_true "(obj(\"Job\"; \"$cron_job\").spec.template.spec | .containers[0].resources.limits == {\"nvidia.com/gpu\": \"1\"}) and
		([owned(\"Job\"; \"$cron_job\") | select(.kind == \"Pod\")][0] | .spec.nodeName == \"gpu-shared\")"; then
		pass "CronJob: its Job ($cron_job, after $(($(date +%s) - t0)) s) has the migrated template, its pod is bound to gpu-shared"
	else
		fail "CronJob: its Job's pod is not on gpu-shared with nvidia.com/gpu"
		ctl_summary
	fi
	poll 5 reviews_at_least "$cron_job" 1
	if gpumend_reviews "$cron_job" | grep '"operation":"CREATE"' |
		grep '"owner":"CronJob/legacy-cron"' | grep -q '"patched":false'; then
		pass "CronJob: gpumend leaves the Job alone (logged with its owner)"
	else
		fail "CronJob: no review of the Job logged as left alone for its CronJob"
		gpumend_reviews "$cron_job" | head -n 3 | sed 's/^/    /'
	fi
else
	fail "CronJob: no Job after $(($(date +%s) - t0)) s"
	ctl_summary
fi

# (a), 60 seconds after the restart
if [ "$restarted_at" != 0 ]; then
	while [ "$(date +%s)" -lt $((restarted_at + 60)) ]; do
		sleep 1
	done
	ctl_snapshot
	n_rs=$(jq "$ctl_jq"' [owned("Deployment"; "legacy-web")] | length' "$E2E_DIR/ctl.json")
	if ctl_true 'settled("Deployment"; "legacy-web") and
		([owned("Deployment"; "legacy-web")] | length <= 2) and
		([pods_of_rs("legacy-web")[] | select(.spec.nodeName and
			.spec.containers[0].resources.limits["nvidia.com/gpu"] == "1")] | length == 1)'; then
		pass "rollout restart of a Deployment made before gpumend: after 60 s, $n_rs ReplicaSets, observedGeneration = generation, its pod bound with nvidia.com/gpu"
	else
		fail "rollout restart of a Deployment made before gpumend: $n_rs ReplicaSets after 60 s, or not settled, or no pod bound with nvidia.com/gpu"
		ctl_summary
	fi
fi

# (e) Every pod of every workload where its GPU model or sharing mode
# says: the migrated ones bound to their node, the legacy ones (of the
# ReplicaSets made before gpumend) never bound anywhere.
placed() {
	ctl_snapshot && ctl_true '[.items[] | select(.kind == "Pod" and
		.metadata.annotations["e2e.gpumend.io/expect-node"])] |
		all(if legacy_limits then .spec.nodeName == null
		    else .spec.nodeName == .metadata.annotations["e2e.gpumend.io/expect-node"] end)'
}
if poll 30 placed; then
	summary=$(jq -r '[.items[] | select(.kind == "Pod" and .spec.nodeName) | .spec.nodeName] |
		group_by(.) | map("\(.[0]): \(length)") | join(", ")' "$E2E_DIR/ctl.json")
	n_pods=$(jq '[.items[] | select(.kind == "Pod")] | length' "$E2E_DIR/ctl.json")
	pass "placement: all $n_pods pods of the workloads where their GPU model or sharing mode says ($summary; legacy ones unbound)"
else
	fail "placement: a pod is not where its GPU model or sharing mode says"
	jq -r "$ctl_jq"' .items[] | select(.kind == "Pod") |
		"\(.metadata.name): node \(.spec.nodeName // "-"), expected \(.metadata.annotations["e2e.gpumend.io/expect-node"] // "-"), legacy \(legacy_limits)"' \
		"$E2E_DIR/ctl.json" | sed 's/^/    /'
fi
say "controllers: $(($(date +%s) - t_ctl)) s"
k delete deployments,statefulsets,daemonsets,jobs,cronjobs,pods --all -n $ctl --wait=false >/dev/null 2>&1

# ------------------------------------------------------------------
# Certificate rotation under a loop of creates

fingerprint() {
	openssl x509 -in "$1" -noout -fingerprint -sha256 | sed 's/.*=//'
}
served_fingerprint() {
	echo | openssl s_client -connect "127.0.0.1:$1" 2>/dev/null |
		openssl x509 -noout -fingerprint -sha256 2>/dev/null | sed 's/.*=//'
}
gpumend_port=${gpumend_url##*:}
old_fp=$(fingerprint "$E2E_DIR/wh-tls/tls.crt")
n_loop=30
object "$DATA/pod-legacy.yaml" rot >"$E2E_DIR/rot.json"
failed_calls_before=$(log_count apiserver 'failed calling webhook')
(
	i=1
	while [ $i -le $n_loop ]; do
		jq --arg n "rot-$i" '.metadata.name = $n' "$E2E_DIR/rot.json" |
			k create -n e2e-rotation -f - >/dev/null 2>>"$E2E_DIR/rot.err"
		echo "$i $?"
		i=$((i + 1))
	done
) >"$E2E_DIR/rot.codes" &
loop_pid=$!
poll 60 sh -c "[ \$(grep -c . '$E2E_DIR/rot.codes') -ge 8 ]"
rotated_before=$(log_count gpumend '"msg":"certificate reloaded"')
webhook_certs "$E2E_DIR/wh-tls" reuse >"$E2E_DIR/cabundle2" 2>"$E2E_DIR/err" || show "$E2E_DIR/err"
new_fp=$(fingerprint "$E2E_DIR/wh-tls/tls.crt")
at_rotation=$(grep -c . "$E2E_DIR/rot.codes")
check "rotation: a new pair signed by the same CA (caBundle unchanged)" \
	sh -c "[ '$old_fp' != '$new_fp' ] && [ '$(tr -d '\n' <"$E2E_DIR/cabundle2")' = '$cabundle' ]"
check "rotation: the webhook reloads it while the creates run (after $at_rotation of $n_loop)" \
	poll 10 log_at_least gpumend '"msg":"certificate reloaded"' $((rotated_before + 1))
check "rotation: the new certificate is served" \
	poll 10 sh -c "[ \"\$(echo | openssl s_client -connect 127.0.0.1:$gpumend_port 2>/dev/null |
		openssl x509 -noout -fingerprint -sha256 2>/dev/null | sed 's/.*=//')\" = '$new_fp' ]"
if ! poll 120 sh -c "! kill -0 $loop_pid 2>/dev/null"; then
	kill "$loop_pid" 2>/dev/null
fi
wait "$loop_pid" 2>/dev/null
k get pods -n e2e-rotation -o json >"$E2E_DIR/rot.json.out" 2>/dev/null
n_ok=$(awk '$2 == 0' "$E2E_DIR/rot.codes" | grep -c .)
n_mut=$(jq '[.items[] | select([.spec.containers[].resources.limits | keys[]] | index("nvidia.com/gpu"))] | length' "$E2E_DIR/rot.json.out")
failed_calls=$(( $(log_count apiserver 'failed calling webhook') - failed_calls_before ))
if [ "$n_ok" = $n_loop ] && [ "$n_mut" = $n_loop ] && [ "$failed_calls" = 0 ]; then
	pass "rotation: all $n_loop creates succeed and are mutated"
else
	fail "rotation: $n_ok of $n_loop creates succeed, $n_mut mutated, $failed_calls failed webhook calls"
	show "$E2E_DIR/rot.err"
fi
# The apiserver keeps its connections to the webhook open. A second
# registration with another caBundle (the same CA, after a comment) gets a
# client of its own, whose new connection must accept the new certificate:
# with failurePolicy Fail, a dry run succeeds only when that connection
# works, and the webhook logs two reviews of it once both registrations
# are in effect.
jq --arg ca "$( (echo "gpumend e2e: the same CA"; base64 -d <"$E2E_DIR/cabundle") | base64 -w 0)" '
	.metadata.name = "gpumend-rotated" | .webhooks[0].name = "rotated.gpumend.io" |
	.webhooks[0].clientConfig.caBundle = $ca | .webhooks[0].failurePolicy = "Fail" |
	.webhooks[0].objectSelector = {matchLabels: {"e2e.gpumend.io/rotated": "yes"}}' \
	"$E2E_DIR/registration.json" | k create -f - >/dev/null 2>"$E2E_DIR/err" || show "$E2E_DIR/err"
object "$DATA/pod-legacy.yaml" rotated | jq '.metadata.labels = {"e2e.gpumend.io/rotated": "yes"}' \
	>"$E2E_DIR/rotated.json"
rotated_ok() {
	_before=$(gpumend_reviews rotated | grep -c .)
	k create --dry-run=server -n e2e-rotation -f "$E2E_DIR/rotated.json" -o json >"$E2E_DIR/out" 2>"$E2E_DIR/err" &&
		migrated_pod "$E2E_DIR/out" &&
		poll 2 reviews_at_least rotated $((_before + 2))
}
if poll 30 rotated_ok; then
	pass "rotation: a new apiserver connection verifies the new certificate"
else
	fail "rotation: a new apiserver connection fails"
	show "$E2E_DIR/err"
fi
k delete mutatingwebhookconfiguration gpumend-rotated >/dev/null 2>&1

# ------------------------------------------------------------------
# failurePolicy, the webhook stopped

fail_open_before=$(grep 'failed calling webhook' "$E2E_DIR/apiserver.log" | grep -c 'mutate.gpumend.io')
stop_name gpumend
check "gpumend-webhook stops on SIGTERM" grep -q '"msg":"stopped"' "$E2E_DIR/gpumend.log"
object "$DATA/pod-legacy.yaml" fail-open >"$E2E_DIR/fail-open.json"
if k create -n e2e -f "$E2E_DIR/fail-open.json" >/dev/null 2>"$E2E_DIR/err" &&
	pod_json e2e fail-open | jq -e '.spec.containers[0].resources.limits == {"alpha.kubernetes.io/nvidia-gpu": "1"} and
		(.metadata.annotations // {} | has("gpumend.io/mutations") | not)' >/dev/null; then
	pass "failurePolicy Ignore, webhook down: admitted unmodified"
else
	fail "failurePolicy Ignore, webhook down: not admitted unmodified"
	show "$E2E_DIR/err"
fi
check "failurePolicy Ignore: the apiserver logs the failing-open call" \
	poll 10 sh -c "[ \$(grep 'failed calling webhook' '$E2E_DIR/apiserver.log' | grep -c 'mutate.gpumend.io') -gt $fail_open_before ]"
k patch mutatingwebhookconfiguration gpumend --type=json \
	-p '[{"op": "replace", "path": "/webhooks/0/failurePolicy", "value": "Fail"}]' >/dev/null
object "$DATA/pod-legacy.yaml" fail-closed >"$E2E_DIR/fail-closed.json"
refused() {
	! k create --dry-run=server -n e2e -f "$E2E_DIR/fail-closed.json" -o name >/dev/null 2>"$E2E_DIR/err"
}
if poll 30 refused && ! k create -n e2e -f "$E2E_DIR/fail-closed.json" >/dev/null 2>"$E2E_DIR/err" &&
	grep -q 'failed calling webhook "mutate.gpumend.io"' "$E2E_DIR/err"; then
	pass "failurePolicy Fail, webhook down: rejected with the apiserver's error"
	show "$E2E_DIR/err" | sed 's/^    /    kubectl: /' | head -n 2
else
	fail "failurePolicy Fail, webhook down: not rejected as expected"
	show "$E2E_DIR/err"
fi
k delete mutatingwebhookconfiguration gpumend >/dev/null 2>&1
delete_pods e2e

# ------------------------------------------------------------------
# The manifests, validated by the apiserver

mf="$E2E_DIR/manifests"
cp -r "$REPO_DIR/manifests" "$mf"
rm -rf "$mf/overlays/self-signed/tls"
"$GPUMEND" certs --service gpumend-webhook --namespace gpumend-system \
	--out "$mf/overlays/self-signed/tls" >/dev/null 2>"$E2E_DIR/err" || show "$E2E_DIR/err"
k create namespace gpumend-system >/dev/null 2>&1
pdb_v1=1
k get --raw /apis/policy/v1 >/dev/null 2>&1 || pdb_v1=0
[ $pdb_v1 = 1 ] ||
	echo "note: this apiserver has no policy/v1: the PodDisruptionBudget (policy/v1, Kubernetes >= 1.21) is validated as policy/v1beta1"
[ "$kube_minor" -ge 28 ] ||
	echo "note: this apiserver predates matchConditions (1.28): the webhook configuration is validated without them, as it would store it; the CEL suite evaluates them"
for dir in base overlays/cert-manager overlays/self-signed; do
	out="$E2E_DIR/manifests-$(echo "$dir" | tr / -)"
	if [ $pdb_v1 = 1 ] && [ -z "$cronjob_version" ] && [ "$kube_minor" -ge 28 ]; then
		k apply --dry-run=server -k "$mf/$dir" >"$out.out" 2>"$out.err"
		status=$?
	else
		k kustomize "$mf/$dir" >"$out.yaml" 2>"$out.err" &&
		to_json "$out.yaml" | jq --argjson pdb "$pdb_v1" --argjson minor "$kube_minor" '
			map(if .kind == "PodDisruptionBudget" and .apiVersion == "policy/v1" and $pdb == 0
			then .apiVersion = "policy/v1beta1" else . end |
			if .kind == "MutatingWebhookConfiguration" and $minor < 28
			then .webhooks |= map(del(.matchConditions)) else . end) |
			{apiVersion: "v1", kind: "List", items: .}' \
			>"$out.json" &&
		k apply --dry-run=server -f "$out.json" >"$out.out" 2>>"$out.err"
		status=$?
	fi
	n_objects=$(k kustomize "$mf/$dir" 2>/dev/null | grep -c '^kind:')
	if [ $status = 0 ] && [ "$(grep -c 'server dry run' "$out.out")" = "$n_objects" ]; then
		pass "manifests/$dir: kubectl apply --dry-run=server accepts all $n_objects objects"
	else
		fail "manifests/$dir: kubectl apply --dry-run=server fails"
		show "$out.err" "$out.out"
	fi
done

# ------------------------------------------------------------------
# The end

check "the apiserver is still up" apiserver_ready
stop_all
if [ -n "$san_dir" ]; then
	for r in "$san_dir"/*; do
		[ -f "$r" ] || continue
		fail "sanitizer report $(basename "$r")"
		head -n 40 "$r" | sed 's/^/    /'
	done
fi
say "$n_skipped skipped; $(($(date +%s) - t_start)) s in all"
finish e2e
