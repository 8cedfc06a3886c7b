#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/manifests.sh - the kustomize base and both overlays build
# offline with `kubectl kustomize`, and carry the settings that matter.
. "$(dirname "$0")/../lib.sh"

# not dir=$(scratch): the subshell's exit trap would remove it at once
scratch >/dev/null
dir=$_scratch
manifests="$REPO_DIR/manifests"

# the kubectl of the project's set-up (its kustomize reads `labels`,
# `replacements` and `patches`; Debian 12's 1.20 does not)
if ! kubectl=$(tool kubectl); then
	fail "manifests: no kubectl (tests/tools/get.sh, above)"
	finish manifests
	exit 1
fi

# doc_of KIND [NAME] <FILE: the YAML documents of that kind (and name).
doc_of() {
	awk -v kind="$1" -v name="${2:-}" '
		function flush() {
			if (k == kind && (name == "" || n == name))
				printf "%s---\n", doc
			doc = ""; k = ""; n = ""; inmeta = 0
		}
		/^---$/ { flush(); next }
		{
			doc = doc $0 "\n"
			if ($0 ~ /^kind: /) k = substr($0, 7)
			if ($0 ~ /^metadata:/) { inmeta = 1; next }
			if ($0 ~ /^[^ ]/) inmeta = 0
			if (inmeta && $0 ~ /^  name: /) n = substr($0, 9)
		}
		END { flush() }'
}

# scalar_of KEY <DOC: the value of the first KEY, a plain scalar or a block
# scalar (as kustomize writes long base64 values), with whitespace removed.
scalar_of() {
	awk -v key="$1" '
		!found && $0 ~ "^ *" key ": " {
			found = 1
			match($0, /^ */); indent = RLENGTH
			value = $0; sub("^ *" key ": *", "", value)
			if (value ~ /^[|>]/) { block = 1; next }
			print value; exit
		}
		found && block {
			match($0, /^ */)
			if (RLENGTH <= indent || $0 ~ /^ *$/) exit
			line = $0; gsub(/[ \t]/, "", line); printf "%s", line
		}
		END { if (block) print "" }'
}

# jqs FILE FILTER [JQ-OPTION...]: jq -e over FILE's objects slurped into
# an array, quiet; in FILTER, one(KIND) is the one object of that kind
# (an error when there are none or more).
jqs() {
	_file=$1 _filter=$2
	shift 2
	jq -e -s "$@" 'def one(k): map(select(.kind == k)) |
		if length == 1 then .[0] else error("not one \(k)") end; '"$_filter" \
		"$_file" >/dev/null
}

# has TEXT FILE: the file holds that exact text.
has() { grep -qF -- "$1" "$2"; }

# count_kind KIND FILE: how many documents of that kind.
count_kind() { grep -c "^kind: $1\$" "$2"; }

# The programs in the image: tests/image/test.sh checks that there are no
# others (no shell, no sleep).
image_programs="/usr/local/bin/gpumend /usr/local/bin/gpumend-webhook gpumend gpumend-webhook"

# commands_of FILE: the program of every `command:` (an exec hook or
# probe, a container's command), one per line, in flow or block style.
commands_of() {
	awk '
		want { sub(/^ *- */, ""); gsub(/["\047]/, ""); print; want = 0; next }
		/^[ -]*command: *\[/ {
			line = $0; sub(/^[ -]*command: *\[ */, "", line)
			sub(/[,\]].*/, "", line); gsub(/["\047 ]/, "", line)
			print line; next
		}
		/^[ -]*command: *$/ { want = 1 }' "$1"
}

# only_image_programs FILE: every command of FILE is a program the image
# holds (says which is not).
only_image_programs() {
	for _c in $(commands_of "$1"); do
		case " $image_programs " in
		*" $_c "*) ;;
		*) echo "    not in the image: $_c"; return 1 ;;
		esac
	done
}

# arg_of FLAG FILE: the value after FLAG in the container's args.
arg_of() {
	awk -v flag="$1" '
		found { sub(/^ *- */, ""); gsub(/"/, ""); print; exit }
		$0 ~ "^ *- " flag "$" { found = 1 }' "$2"
}

# ---------------------------------------------------------------- base
if "$kubectl" kustomize "$manifests/base" >"$dir/base.yaml" 2>"$dir/base.err"; then
	pass "base: kubectl kustomize succeeds"
else
	fail "base: kubectl kustomize succeeds ($(cat "$dir/base.err"))"
fi
base="$dir/base.yaml"
for kind in Namespace ServiceAccount ConfigMap Deployment \
	PodDisruptionBudget Service MutatingWebhookConfiguration; do
	check "base: one $kind" test "$(count_kind "$kind" "$base")" -eq 1
done
check "base: everything namespaced is in gpumend-system" sh -c \
	"! grep -E '^  namespace: ' '$base' | grep -qv 'gpumend-system'"

doc_of MutatingWebhookConfiguration <"$base" >"$dir/mwc.yaml"
mwc="$dir/mwc.yaml"
"$GPUMEND" webhook-config -c "$manifests/base/config.yaml" \
	>"$dir/generated.yaml" 2>"$dir/generated.err"
check "webhook: the base's registration is what 'gpumend webhook-config' prints" \
	sh -c "[ -s '$dir/generated.yaml' ] &&
	 cmp -s '$dir/generated.yaml' '$manifests/base/mutatingwebhookconfiguration.yaml'"
check "webhook: two entries, legacy then advisory" sh -c \
	"grep -oE 'name: [a-z]+[.]gpumend[.]io\$' '$mwc' | tr -d ' \n' |
	 grep -qxF -- 'name:legacy.gpumend.ioname:advisory.gpumend.io'"
check "webhook: failurePolicy Fail for legacy, Ignore for advisory" sh -c \
	"grep -E '^ *failurePolicy: ' '$mwc' | tr -d ' \n' |
	 grep -qxF 'failurePolicy:FailfailurePolicy:Ignore'"
check "webhook: both entries have matchConditions" \
	test "$(grep -c '^ *matchConditions:$' "$mwc")" -eq 2
check "webhook: sideEffects None" test "$(grep -c 'sideEffects: None' "$mwc")" -eq 2
check "webhook: matchPolicy Equivalent" test "$(grep -c 'matchPolicy: Equivalent' "$mwc")" -eq 2
check "webhook: reinvocationPolicy IfNeeded" test "$(grep -c 'reinvocationPolicy: IfNeeded' "$mwc")" -eq 2
check "webhook: timeoutSeconds from webhook.timeoutSeconds (10)" \
	test "$(grep -c 'timeoutSeconds: 10$' "$mwc")" -eq 2
check "webhook: admissionReviewVersions v1, v1beta1" sh -c \
	"grep -A2 'admissionReviewVersions:' '$mwc' | tr -d ' \n' |
	 grep -qF 'admissionReviewVersions:-v1-v1beta1'"
check "webhook: namespaceSelector" has "namespaceSelector:" "$mwc"
check "webhook: excludes kube-system and gpumend-system" sh -c \
	"awk '/namespaceSelector:/,/matchConditions:/' '$mwc' | tr -d ' \n' |
	 grep -qF 'key:kubernetes.io/metadata.nameoperator:NotInvalues:-kube-system-gpumend-system'"
check "webhook: excludes namespaces labelled gpumend.io/webhook=disabled" sh -c \
	"awk '/namespaceSelector:/,/matchConditions:/' '$mwc' | tr -d ' \n' |
	 grep -qF 'key:gpumend.io/webhookoperator:NotInvalues:-disabled'"
check "webhook: the namespace is in no CEL expression" sh -c \
	"! grep 'expression:' '$mwc' | grep -q 'gpumend-system'"
for resource in pods replicationcontrollers podtemplates deployments \
	replicasets statefulsets daemonsets jobs cronjobs tfjobs rayjobs \
	rollouts workflows workflowtemplates cronworkflows \
	clusterworkflowtemplates inferenceservices tasks taskruns pipelines \
	pipelineruns clustertasks; do
	check "webhook: rules cover $resource" grep -q "^ *- $resource\$" "$mwc"
done
# each rule (one apiGroups each, 28 in the two entries) on both
check "webhook: rules on CREATE and UPDATE only" sh -c \
	"n=\$(grep -c '^ *- apiGroups:\$' '$mwc') && [ \$n -eq 28 ] &&
	 [ \$(grep -c '^ *- CREATE\$' '$mwc') -eq \$n ] &&
	 [ \$(grep -c '^ *- UPDATE\$' '$mwc') -eq \$n ] &&
	 ! grep -qE '^ *- (DELETE|CONNECT|\"\\*\")\$' '$mwc'"
# a cluster-scoped kind needs a rule of scope Cluster: under Namespaced
# the API server never sends it
check "webhook: ClusterWorkflowTemplates and ClusterTasks by a Cluster rule, every other kind Namespaced" sh -c \
	"[ \"\$(awk '/- apiGroups:/ { r = \"\" } { r = r \$0 } /scope:/ {
		print (r ~ /- (clusterworkflowtemplates|clustertasks)/ ? \"cluster \" : \"\") \$2 }' '$mwc' |
		sort | uniq -c | xargs)\" = \"24 Namespaced 4 cluster Cluster\" ]"
check "webhook: rules for the core, apps and batch groups" sh -c \
	"grep -A1 'apiGroups:' '$mwc' | tr -d ' \n' |
	 grep -qF -- '-apiGroups:-\"\"---apiGroups:-apps---apiGroups:-batch'"
check "webhook: calls the Service on /mutate/ENTRY/HASH, port 443" sh -c \
	"awk '/service:/,/port:/' '$mwc' | tr -d ' \n' |
	 grep -qE 'name:gpumend-webhooknamespace:gpumend-systempath:/mutate/legacy/[0-9a-f]{16}port:443.*name:gpumend-webhooknamespace:gpumend-systempath:/mutate/advisory/[0-9a-f]{16}port:443'"
check "webhook: base has no caBundle" sh -c "! grep -q caBundle '$mwc'"

doc_of Deployment <"$base" >"$dir/deploy.yaml"
deploy="$dir/deploy.yaml"
check "deployment: 3 replicas" has "replicas: 3" "$deploy"
check "deployment: maxUnavailable 0" has "maxUnavailable: 0" "$deploy"
check "deployment: spread over nodes" sh -c \
	"grep -A6 'topologySpreadConstraints:' '$deploy' |
	 grep -q 'topologyKey: kubernetes.io/hostname'"
# SIGTERM: the server's own delay and drain (tests/suites/shutdown.sh),
# on every Kubernetes version: no preStop exec of a program the image does
# not hold (it is FROM scratch: no sleep), nor the kubelet's sleep action
# (1.29 and later only)
check "deployment: no preStop hook (the server delays its own shutdown)" \
	sh -c "! grep -qE 'preStop:|lifecycle:' '$deploy'"
delay=$(arg_of --shutdown-delay "$deploy")
drain=$(arg_of --drain-timeout "$deploy")
grace=$(sed -n 's/^ *terminationGracePeriodSeconds: *\([0-9]*\)$/\1/p' "$deploy")
check "deployment: terminationGracePeriodSeconds ($grace) covers --shutdown-delay ($delay) + --drain-timeout ($drain)" \
	[ -n "$grace" -a -n "$delay" -a -n "$drain" -a "${grace:-0}" -gt $((${delay:-0} + ${drain:-0})) ]
check "deployment: readiness on /readyz over HTTPS" sh -c \
	"grep -A5 'readinessProbe:' '$deploy' | tr -d ' \n' |
	 grep -qF 'path:/readyzport:httpsscheme:HTTPS'"
check "deployment: liveness on /healthz over HTTPS" sh -c \
	"grep -A5 'livenessProbe:' '$deploy' | tr -d ' \n' |
	 grep -qF 'path:/healthzport:httpsscheme:HTTPS'"
check "deployment: container port https is 8443" sh -c \
	"grep -B1 'name: https' '$deploy' | grep -q 'containerPort: 8443'"
check "deployment: runAsNonRoot" has "runAsNonRoot: true" "$deploy"
check "deployment: runs as 65532" has "runAsUser: 65532" "$deploy"
check "deployment: readOnlyRootFilesystem" has "readOnlyRootFilesystem: true" "$deploy"
check "deployment: no privilege escalation" has "allowPrivilegeEscalation: false" "$deploy"
check "deployment: drops ALL capabilities" sh -c \
	"grep -A1 'drop:' '$deploy' | grep -q -- '- ALL'"
check "deployment: seccomp RuntimeDefault" has "type: RuntimeDefault" "$deploy"
check "deployment: resource requests and limits" sh -c \
	"grep -q 'requests:' '$deploy' && grep -q 'limits:' '$deploy' &&
	 grep -q 'memory: ' '$deploy' && grep -q 'cpu: ' '$deploy'"
check "deployment: args" sh -c "awk '/args:/,/image:/' '$deploy' |
	tr -d ' \n' | grep -qF -- '--listen-0.0.0.0:8443---tls-cert-/tls/tls.crt---tls-key-/tls/tls.key--c-/config/config.yaml---log-level-info---shutdown-delay-\"5\"---drain-timeout-\"20\"'"
check "deployment: TLS secret mounted read-only at /tls" sh -c \
	"grep -A2 'mountPath: /tls' '$deploy' | grep -q 'readOnly: true' &&
	 grep -q 'secretName: gpumend-webhook-tls' '$deploy'"
config_map=$(doc_of ConfigMap <"$base" | awk '/^  name: /{print $2; exit}')
check "deployment: mounts the generated ConfigMap" sh -c \
	"[ -n '$config_map' ] && grep -q 'name: $config_map\$' '$deploy'"

doc_of PodDisruptionBudget <"$base" >"$dir/pdb.yaml"
check "pdb: minAvailable 2" has "minAvailable: 2" "$dir/pdb.yaml"
check "pdb: selects the webhook's pods" \
	has "app.kubernetes.io/name: gpumend-webhook" "$dir/pdb.yaml"
doc_of Service gpumend-webhook <"$base" >"$dir/service.yaml"
check "service: 443 to the https port" sh -c \
	"awk '/ports:/,/selector:/' '$dir/service.yaml' | tr -d ' \n' |
	 grep -qF 'port:443protocol:TCPtargetPort:https'"

# The ConfigMap carries what `gpumend config` prints.
"$GPUMEND" config >"$dir/config.yaml" 2>"$dir/config.err"
check "config: manifests/base/config.yaml is what 'gpumend config' prints" \
	sh -c "[ -s '$dir/config.yaml' ] && cmp -s '$dir/config.yaml' '$manifests/base/config.yaml'"
check "config: the ConfigMap holds config.yaml" \
	grep -q '^  config.yaml: |' "$base"

# ---------------------------------------------------------------- cert-manager
if "$kubectl" kustomize "$manifests/overlays/cert-manager" >"$dir/cm.yaml" \
	2>"$dir/cm.err"; then
	pass "cert-manager: kubectl kustomize succeeds"
else
	fail "cert-manager: kubectl kustomize succeeds ($(cat "$dir/cm.err"))"
fi
cm="$dir/cm.yaml"
check "cert-manager: two Issuers" test "$(count_kind Issuer "$cm")" -eq 2
check "cert-manager: two Certificates" test "$(count_kind Certificate "$cm")" -eq 2
doc_of Certificate gpumend-webhook-tls <"$cm" >"$dir/cm-cert.yaml"
for name in gpumend-webhook gpumend-webhook.gpumend-system \
	gpumend-webhook.gpumend-system.svc \
	gpumend-webhook.gpumend-system.svc.cluster.local; do
	check "cert-manager: serving certificate names $name" \
		grep -q "^  - $name\$" "$dir/cm-cert.yaml"
done
check "cert-manager: serving certificate goes to the mounted Secret" \
	has "secretName: gpumend-webhook-tls" "$dir/cm-cert.yaml"
check "cert-manager: serving certificate issued by the CA Issuer" sh -c \
	"grep -A3 'issuerRef:' '$dir/cm-cert.yaml' | grep -q 'name: gpumend-ca'"
doc_of Certificate gpumend-ca <"$cm" >"$dir/cm-ca.yaml"
check "cert-manager: the CA certificate isCA" has "isCA: true" "$dir/cm-ca.yaml"
check "cert-manager: the CA goes where the CA Issuer reads it" sh -c \
	"grep -q 'secretName: gpumend-ca' '$dir/cm-ca.yaml' &&
	 grep -A1 '^  ca:' '$cm' | grep -q 'secretName: gpumend-ca'"
check "cert-manager: CA injection annotation" has \
	"cert-manager.io/inject-ca-from: gpumend-system/gpumend-webhook-tls" "$cm"
check "cert-manager: failurePolicies kept" sh -c \
	"grep -E '^ *failurePolicy: (Fail|Ignore)\$' '$cm' | tr -d ' \n' |
	 grep -qxF 'failurePolicy:FailfailurePolicy:Ignore'"
check "cert-manager: everything in gpumend-system" sh -c \
	"! grep -E '^  namespace: ' '$cm' | grep -qv 'gpumend-system'"

# ---------------------------------------------------------------- self-signed
# Built in a copy, with certificates made for it: none are ever committed.
cp -R "$manifests" "$dir/copy"
ss="$dir/copy/overlays/self-signed"
check "self-signed: no certificates in the repository's overlay" sh -c \
	"! ls '$manifests/overlays/self-signed/tls' >/dev/null 2>&1 ||
	 ! git -C '$REPO_DIR' ls-files --error-unmatch \
	 manifests/overlays/self-signed/tls >/dev/null 2>&1"
if command -v git >/dev/null 2>&1 &&
	git -C "$REPO_DIR" rev-parse >/dev/null 2>&1; then
	check "self-signed: no key or certificate is tracked under manifests/" \
		test -z "$(git -C "$REPO_DIR" ls-files manifests |
		grep -E '\.(key|crt|pem)$')"
fi
rm -rf "$ss/tls"
check "self-signed: refuses to build without certificates" sh -c \
	"! '$kubectl' kustomize '$ss' >/dev/null 2>&1"
if "$GPUMEND" certs --service gpumend-webhook --namespace gpumend-system \
	--out "$ss/tls" >"$dir/bundle" 2>"$dir/certs.err"; then
	pass "self-signed: gpumend certs into the overlay"
else
	fail "self-signed: gpumend certs into the overlay ($(cat "$dir/certs.err"))"
fi
if "$kubectl" kustomize "$ss" >"$dir/ss.yaml" 2>"$dir/ss.err"; then
	pass "self-signed: kubectl kustomize succeeds"
else
	fail "self-signed: kubectl kustomize succeeds ($(cat "$dir/ss.err"))"
fi
ssy="$dir/ss.yaml"
doc_of MutatingWebhookConfiguration <"$ssy" | scalar_of caBundle \
	>"$dir/ss.bundle"
check "self-signed: caBundle is set" test -s "$dir/ss.bundle"
# the second entry's: the first caBundle after the first
doc_of MutatingWebhookConfiguration <"$ssy" |
	awk 'seen { print } /caBundle:/ { seen = 1 }' | scalar_of caBundle \
	>"$dir/ss.bundle2"
check "self-signed: both entries have a caBundle, the same" sh -c \
	"[ \$(grep -c 'caBundle:' '$ssy') -eq 2 ] &&
	 [ -s '$dir/ss.bundle2' ] && cmp -s '$dir/ss.bundle' '$dir/ss.bundle2'"
check "self-signed: caBundle is what gpumend certs printed" sh -c \
	"[ \"\$(cat '$dir/ss.bundle')\" = \"\$(cat '$dir/bundle')\" ]"
check "self-signed: caBundle decodes to ca.crt" sh -c \
	"base64 -d '$dir/ss.bundle' | cmp -s - '$ss/tls/ca.crt'"
doc_of Secret gpumend-webhook-tls <"$ssy" >"$dir/ss-secret.yaml"
check "self-signed: a kubernetes.io/tls Secret named as mounted" \
	has "type: kubernetes.io/tls" "$dir/ss-secret.yaml"
check "self-signed: Secret in gpumend-system" \
	has "namespace: gpumend-system" "$dir/ss-secret.yaml"
scalar_of tls.crt <"$dir/ss-secret.yaml" | base64 -d >"$dir/secret.crt" 2>/dev/null
scalar_of tls.key <"$dir/ss-secret.yaml" | base64 -d >"$dir/secret.key" 2>/dev/null
check "self-signed: Secret tls.crt decodes to tls.crt" \
	cmp -s "$dir/secret.crt" "$ss/tls/tls.crt"
check "self-signed: Secret tls.key decodes to tls.key" \
	cmp -s "$dir/secret.key" "$ss/tls/tls.key"
check "self-signed: the CA key is not deployed" sh -c \
	"! grep -q 'ca.key' '$ssy'"
check "self-signed: the Deployment mounts that Secret" sh -c \
	"grep -q 'secretName: gpumend-webhook-tls\$' '$ssy'"
check "self-signed: failurePolicies kept" sh -c \
	"grep -E '^ *failurePolicy: (Fail|Ignore)\$' '$ssy' | tr -d ' \n' |
	 grep -qxF 'failurePolicy:FailfailurePolicy:Ignore'"
check "self-signed: the mounted certificate passes certs check" sh -c \
	"'$GPUMEND' certs check '$dir/secret.crt' --service gpumend-webhook \
	 --namespace gpumend-system --ca '$ss/tls/ca.crt' >/dev/null 2>&1"

# ---------------------------------------------------------------- another namespace
# Each kustomization moved by its one `namespace:` line (and, for the
# self-signed overlay, the --namespace given to `gpumend certs`, which
# runs outside it): every object is in the new namespace, nothing names
# gpumend-system, and the registration is what `gpumend webhook-config
# --namespace` writes for it.
ns=ml-infra

# json_docs <YAML: each document as a line of JSON.
json_docs() {
	python3 -c 'import json, sys, yaml
for d in yaml.safe_load_all(sys.stdin):
    if d:
        print(json.dumps(d, sort_keys=True))'
}

# moved NAME DIR: builds DIR (a kustomization of the copy $dir/moved)
# after changing its `namespace:` line alone; the objects as JSON lines
# in $dir/NAME.json, the YAML in $dir/NAME.yaml.
moved() {
	_k=$dir/moved/$2/kustomization.yaml
	cp "$_k" "$dir/$1.orig"
	sed -i "s/^namespace: gpumend-system\$/namespace: $ns/" "$_k"
	check "$1: the move is one edit, the kustomization's namespace: line" sh -c \
		"[ \"\$(diff '$dir/$1.orig' '$_k' | grep -c '^[<>]')\" = 2 ] &&
		 diff '$dir/$1.orig' '$_k' | grep -qx '> namespace: $ns'"
	if "$kubectl" kustomize "$dir/moved/$2" >"$dir/$1.yaml" 2>"$dir/$1.err"; then
		pass "$1: kubectl kustomize succeeds in $ns"
	else
		fail "$1: kubectl kustomize succeeds in $ns ($(cat "$dir/$1.err"))"
	fi
	json_docs <"$dir/$1.yaml" >"$dir/$1.json"
	check "$1: every namespaced object is in $ns" sh -c "jq -e -s '
		map(select(.kind != \"Namespace\" and .kind != \"MutatingWebhookConfiguration\"))
		| length > 0 and all(.metadata.namespace == \"$ns\")' '$dir/$1.json' >/dev/null"
	check "$1: nothing names gpumend-system" sh -c "! grep -n gpumend-system '$dir/$1.yaml'"
}

rm -rf "$dir/moved"
cp -R "$manifests" "$dir/moved"
rm -rf "$dir/moved/overlays/self-signed/tls"
moved cert-manager-moved overlays/cert-manager
json=$dir/cert-manager-moved.json
check "cert-manager-moved: the Namespace is $ns, labelled as gpumend-system was" \
	jqs "$json" "one(\"Namespace\") | .metadata.name == \"$ns\" and
		.metadata.labels[\"gpumend.io/webhook\"] == \"disabled\""
check "cert-manager-moved: the Service is in $ns" \
	jqs "$json" "one(\"Service\") | .metadata.namespace == \"$ns\""
check "cert-manager-moved: the serving certificate names the Service in $ns" \
	jqs "$json" "map(select(.metadata.name == \"gpumend-webhook-tls\")) | one(\"Certificate\") |
		.spec.dnsNames == [\"gpumend-webhook\", \"gpumend-webhook.$ns\",
		\"gpumend-webhook.$ns.svc\", \"gpumend-webhook.$ns.svc.cluster.local\"]"
check "cert-manager-moved: inject-ca-from is $ns/gpumend-webhook-tls" \
	jqs "$json" "one(\"MutatingWebhookConfiguration\") |
		.metadata.annotations[\"cert-manager.io/inject-ca-from\"] == \"$ns/gpumend-webhook-tls\""
check "cert-manager-moved: both entries call the Service in $ns and leave $ns and kube-system out" \
	jqs "$json" "one(\"MutatingWebhookConfiguration\") | (.webhooks | length) == 2 and
		all(.webhooks[]; .clientConfig.service.namespace == \"$ns\" and
		    (.namespaceSelector.matchExpressions[] |
		     select(.key == \"kubernetes.io/metadata.name\") | .values) == [\"kube-system\", \"$ns\"])"
registration_is "cert-manager-moved: the registration is what 'gpumend webhook-config --namespace $ns' prints" \
	"$json" gpumend -c "$manifests/base/config.yaml" --namespace "$ns"

# the self-signed overlay: the certificates for the Service in $ns
if "$GPUMEND" certs --service gpumend-webhook --namespace "$ns" \
	--out "$dir/moved/overlays/self-signed/tls" >"$dir/moved.bundle" 2>"$dir/certs.err"; then
	pass "self-signed-moved: gpumend certs --namespace $ns into the overlay"
else
	fail "self-signed-moved: gpumend certs --namespace $ns into the overlay ($(cat "$dir/certs.err"))"
fi
moved self-signed-moved overlays/self-signed
json=$dir/self-signed-moved.json
check "self-signed-moved: the Secret is in $ns" \
	jqs "$json" "one(\"Secret\") | .metadata.namespace == \"$ns\""
check "self-signed-moved: both entries call the Service in $ns, leave $ns and kube-system out, trust the CA" \
	jqs "$json" "one(\"MutatingWebhookConfiguration\") |
		(.webhooks | length) == 2 and
		all(.webhooks[]; .clientConfig.service.namespace == \"$ns\" and
		    (.clientConfig.caBundle | gsub(\"\\\\s\"; \"\")) == \$ca and
		    (.namespaceSelector.matchExpressions[] |
		     select(.key == \"kubernetes.io/metadata.name\") | .values) == [\"kube-system\", \"$ns\"])" --arg ca "$(cat "$dir/moved.bundle")"
registration_is "self-signed-moved: the registration is what 'gpumend webhook-config --namespace $ns' prints" \
	"$json" gpumend -c "$manifests/base/config.yaml" --namespace "$ns"
jq -r 'select(.kind == "Secret") | .data["tls.crt"]' "$json" | base64 -d >"$dir/moved.crt" 2>/dev/null
check "self-signed-moved: the Secret's certificate passes certs check for the Service in $ns" \
	sh -c '"$1" certs check "$2" --service gpumend-webhook --namespace "$3" --ca "$4" >/dev/null 2>&1' \
	sh "$GPUMEND" "$dir/moved.crt" "$ns" "$dir/moved/overlays/self-signed/tls/ca.crt"

# monitoring: the scrape checks the name of the Service in $ns
moved monitoring-moved monitoring
check "monitoring-moved: the scrape checks the certificate for gpumend-webhook.$ns.svc" \
	jqs "$dir/monitoring-moved.json" "one(\"ServiceMonitor\") |
		[.spec.endpoints[].tlsConfig.serverName] == [\"gpumend-webhook.$ns.svc\"]"

# ---------------------------------------------------------------- commands
# Every rendering runs only programs the image holds: first the check on a
# manifest that runs others
printf 'spec:\n  containers:\n    - lifecycle:\n        preStop:\n          exec:\n            command: ["sleep", "5"]\n    - command:\n        - /bin/sh\n' \
	>"$dir/sleepy.yaml"
check "commands: found in flow and block style (sleep, /bin/sh)" \
	[ "$(commands_of "$dir/sleepy.yaml" | tr '\n' ' ')" = "sleep /bin/sh " ]
if only_image_programs "$dir/sleepy.yaml" >/dev/null; then
	fail "commands: a preStop 'sleep' is refused"
else
	pass "commands: a preStop 'sleep' is refused"
fi
for f in base.yaml cm.yaml ss.yaml; do
	check "$f: every command is a program of the image" only_image_programs "$dir/$f"
done

finish manifests
