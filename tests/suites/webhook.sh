#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/webhook.sh - gpumend-webhook end to end: the real binary on
# 127.0.0.1 with certificates from `gpumend certs`, driven over TLS by curl
# (verifying the server against the CA) and openssl:
#   - AdmissionReview v1 and v1beta1 of a legacy GPU pod: uid, patchType,
#     the base64 patch applied with `kubectl patch --local` equals the
#     expected migrated object; a pod needing nothing; UPDATE; dryRun;
#   - every golden case of the CLI (without a config, not a List, not an
#     offline-only rule): the webhook's patch gives what `gpumend migrate`
#     writes, apart from the webhook's record annotation;
#   - deny mode, and config reload on file change and SIGHUP (a broken
#     config is refused);
#   - bad requests get their status and the server stays up;
#   - certificate rotation while a client loops (no failed request, the new
#     certificate served), a broken pair refused; TLS 1.0/1.1 refused;
#   - /healthz, /readyz, /metrics (parsed by tests/webhook/promcheck.awk
#     and checked by promtool), the process_* metrics against /proc;
#   - SIGTERM while a slow request is in flight: it completes, exit 0;
#   - `gpumend review` answers byte for byte as the server.
. "$(dirname "$0")/../lib.sh"

# not dir=$(scratch): see tests/lib.sh
scratch >/dev/null
dir=$_scratch
WEBHOOK_DIR=$dir
data="$TESTS_DIR/webhook"
golden="$TESTS_DIR/golden"

for tool in curl openssl jq; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		fail "webhook: '$tool' not found"
		finish webhook
		exit 1
	fi
done
# the kubectl of the project's set-up; without it the patch checks fail
kubectl=$(tool kubectl) || kubectl=""

# ------------------------------------------------------------------
# Helpers

# fingerprint FILE: the SHA-256 fingerprint of a PEM certificate.
fingerprint() {
	openssl x509 -in "$1" -noout -fingerprint -sha256 | sed 's/.*=//'
}

# served_fingerprint PORT: the fingerprint of the certificate served.
served_fingerprint() {
	echo | openssl s_client -connect "127.0.0.1:$1" 2>/dev/null |
		openssl x509 -noout -fingerprint -sha256 2>/dev/null | sed 's/.*=//'
}

# wait_log NAME PATTERN [COUNT]: waits (up to 5 s) until the log holds
# COUNT (default 1) lines matching PATTERN.
wait_log() {
	_i=0
	while [ $_i -lt 100 ]; do
		[ "$(grep -c -- "$2" "$dir/$1.log" 2>/dev/null)" -ge "${3:-1}" ] && return 0
		sleep 0.05
		_i=$((_i + 1))
	done
	return 1
}

# review VERSION UID OPERATION OBJECT-FILE [DRYRUN]: an AdmissionReview
# request for the object, on stdout. OBJECT-FILE "null" sends object null.
review() {
	if [ "$4" = null ]; then
		_obj=null
	else
		_obj=$(cat "$4")
	fi
	jq -n --arg v "admission.k8s.io/$1" --arg uid "$2" --arg op "$3" \
		--argjson obj "$_obj" --argjson dry "${5:-false}" '{
		apiVersion: $v, kind: "AdmissionReview",
		request: {
			uid: $uid,
			kind: {group: "", version: "v1", kind: ($obj.kind // "Pod")},
			resource: {group: "", version: "v1", resource: "pods"},
			namespace: ($obj.metadata.namespace // "default"),
			name: ($obj.metadata.name // ""),
			operation: $op,
			userInfo: {username: "system:serviceaccount:ci:test"},
			object: (if $op == "DELETE" then null else $obj end),
			oldObject: (if $op == "CREATE" then null else $obj end),
			dryRun: $dry
		}
	}'
}

# post URL FILE OUT [CURL-ARGS...]: POSTs FILE as JSON to URL/mutate,
# the body in OUT; prints the HTTP status.
post() {
	_url=$1 _in=$2 _out=$3
	shift 3
	curl -sS --cacert "$dir/ca1/ca.crt" -H 'Content-Type: application/json' \
		--data-binary "@$_in" -o "$_out" -w '%{http_code}' "$@" \
		"$_url/mutate" 2>/dev/null
}

# apply_patch OBJECT-FILE RESPONSE-FILE OUT: applies the response's patch
# (none: the object unchanged) with kubectl.
apply_patch() {
	_patch=$(jq -r '.response.patch // empty' "$2" | base64 -d)
	[ -n "$_patch" ] || _patch='[]'
	if [ -z "$kubectl" ]; then
		echo "no kubectl (tests/tools/get.sh)" >&2
		return 1
	fi
	"$kubectl" patch --local -f "$1" --type=json -p "$_patch" -o json >"$3"
}

# jq_true FILTER FILE...: the filter holds (jq -e), quietly.
jq_true() {
	jq -e "$@" >/dev/null 2>&1
}

# same_json A B: A and B hold the same JSON value (the differences in
# A.diff, A being in the scratch directory).
same_json() {
	jq -S . "$1" >"$dir/a.sorted" && jq -S . "$2" >"$dir/b.sorted" &&
		diff -u "$dir/b.sorted" "$dir/a.sorted" >"$1.diff"
}

# ------------------------------------------------------------------
# Certificates and the main server

mkdir -p "$dir/tls"
if webhook_pair "$dir/ca1" --key-type ecdsa &&
   cp "$dir/ca1/ca.crt" "$dir/ca1/ca.key" "$dir/tls/" 2>/dev/null &&
   webhook_pair "$dir/tls" --key-type rsa --reuse-ca --force && mkdir -p "$dir/ca2" &&
   mv "$dir/tls/tls.crt" "$dir/tls/tls.key" "$dir/ca2/"; then
	pass "certificates generated (ECDSA and RSA pairs of one CA)"
else
	fail "cannot generate certificates"
	cat "$dir/ca1/certs.err" "$dir/tls/certs.err" 2>/dev/null | sed 's/^/    /'
	finish webhook
	exit 1
fi

# the layout the kubelet gives a mounted Secret: tls.crt -> ..data/tls.crt,
# ..data -> ..v1; a rotation swaps the ..data link
mkdir -p "$dir/mount/..v1"
cp "$dir/ca1/tls.crt" "$dir/ca1/tls.key" "$dir/mount/..v1/"
ln -s ..v1 "$dir/mount/..data"
ln -s ..data/tls.crt "$dir/mount/tls.crt"
ln -s ..data/tls.key "$dir/mount/tls.key"
cp "$data/mutate.yaml" "$dir/config.yaml"

if webhook_start main --tls-cert "$dir/mount/tls.crt" --tls-key "$dir/mount/tls.key" \
	-c "$dir/config.yaml" --log-level debug --max-body 1Mi --drain-timeout 10; then
	pass "server starts and logs its port"
else
	fail "server does not start"
	sed 's/^/    /' "$dir/main.log"
	finish webhook
	exit 1
fi
main_pid=$webhook_pid
main_url=$webhook_url
main_port=$webhook_port

# ------------------------------------------------------------------
# Probes

code=$(curl -sS --cacert "$dir/ca1/ca.crt" -o "$dir/out" -w '%{http_code}' "$main_url/healthz")
check "GET /healthz answers 200" [ "$code" = 200 ]
code=$(curl -sS --cacert "$dir/ca1/ca.crt" -o "$dir/out" -w '%{http_code}' "$main_url/readyz")
check "GET /readyz answers 200 once loaded" [ "$code" = 200 ]
code=$(curl -sS --cacert "$dir/ca1/ca.crt" -I -o "$dir/out" -w '%{http_code}' "$main_url/healthz")
check "HEAD /healthz answers 200" [ "$code" = 200 ]

# ------------------------------------------------------------------
# Admission reviews

for version in v1 v1beta1; do
	uid="uid-legacy-$version-0001"
	review "$version" "$uid" CREATE "$data/legacy-pod.json" >"$dir/req.json"
	code=$(post "$main_url" "$dir/req.json" "$dir/resp.json")
	check "$version: legacy pod answered 200" [ "$code" = 200 ]
	check "$version: response has the request's apiVersion, kind and uid" \
		jq_true --arg v "admission.k8s.io/$version" --arg uid "$uid" \
		'.apiVersion == $v and .kind == "AdmissionReview" and .response.uid == $uid and .response.allowed == true' \
		"$dir/resp.json"
	check "$version: patchType JSONPatch with a patch" \
		jq_true '.response.patchType == "JSONPatch" and (.response.patch | length > 0)' "$dir/resp.json"
	if apply_patch "$data/legacy-pod.json" "$dir/resp.json" "$dir/patched.json" 2>"$dir/err" &&
	   same_json "$dir/patched.json" "$data/legacy-pod.expected.json"; then
		pass "$version: the patch applied by kubectl gives the expected migrated pod"
	else
		fail "$version: the patched pod differs from the expected one"
		cat "$dir/err" "$dir/patched.json.diff" 2>/dev/null | sed 's/^/    /'
	fi
	check "$version: the last operation records the rules in gpumend.io/mutations" \
		sh -c "jq -r .response.patch '$dir/resp.json' | base64 -d |
			jq -e '.[-1].path == \"/metadata/annotations\" and .[-1].value[\"gpumend.io/mutations\"] == \"legacy-gpu-resource,legacy-gpu-node-label,obsolete-cuda-hostpath\"' >/dev/null"
	check "$version: a warning per finding, none over 120 bytes" \
		jq_true '(.response.warnings | length) == 4 and all(.response.warnings[]; utf8bytelength <= 120) and
		       any(.response.warnings[]; startswith("gpu-visibility: ")) and
		       any(.response.warnings[]; startswith("legacy-gpu-resource: "))' "$dir/resp.json"
	cp "$dir/resp.json" "$dir/resp-$version.json"
done
check "v1 and v1beta1 carry the same patch" \
	sh -c "[ \"\$(jq -r .response.patch '$dir/resp-v1.json')\" = \"\$(jq -r .response.patch '$dir/resp-v1beta1.json')\" ]"

review v1 uid-modern CREATE "$data/modern-pod.json" >"$dir/req.json"
code=$(post "$main_url" "$dir/req.json" "$dir/resp.json")
check "a pod needing nothing: allowed, no patch, no patchType, no warnings" \
	jq_true '.response.allowed == true and (.response | has("patch") | not) and
	       (.response | has("patchType") | not) and (.response | has("warnings") | not)' "$dir/resp.json"

review v1 uid-update UPDATE "$data/legacy-pod.json" >"$dir/req.json"
code=$(post "$main_url" "$dir/req.json" "$dir/resp.json")
check "UPDATE: allowed with warnings and no patch" \
	jq_true '.response.allowed == true and (.response.warnings | length) > 0 and
	       (.response | has("patch") | not) and (.response | has("patchType") | not)' "$dir/resp.json"

review v1 uid-dry CREATE "$data/legacy-pod.json" true >"$dir/req.json"
code=$(post "$main_url" "$dir/req.json" "$dir/resp.json")
check "dryRun: the same patch as a real CREATE" \
	sh -c "[ \"\$(jq -r .response.patch '$dir/resp.json')\" = \"\$(jq -r .response.patch '$dir/resp-v1.json')\" ]"
check "dryRun: logged as such" wait_log main '"uid":"uid-dry".*"dry_run":true'

review v1beta1 uid-delete DELETE "$data/legacy-pod.json" >"$dir/req.json"
code=$(post "$main_url" "$dir/req.json" "$dir/resp.json")
check "DELETE: allowed untouched" \
	jq_true '.response.allowed == true and (.response | keys) == ["allowed", "uid"]' "$dir/resp.json"

check "one JSON log line per review, with uid, kind, namespace/name, operation, rules, duration" \
	sh -c "grep '\"msg\":\"admission review\"' '$dir/main.log' | grep '\"uid\":\"uid-legacy-v1-0001\"' |
		jq -e 'select(.kind == \"Pod\" and .namespace == \"ml\" and .name == \"cuda-train\" and
			.operation == \"CREATE\" and (.rules | index(\"obsolete-cuda-hostpath\")) and
			.allowed == true and (.duration_ms | type) == \"number\")' >/dev/null"

# a line far longer than most (a 250-byte uid and name) is written whole
long_uid=$(printf 'u%.0s' $(seq 250))
review v1 "$long_uid" CREATE "$data/legacy-pod.json" |
	jq --arg n "$(printf 'n%.0s' $(seq 250))" '.request.name = $n' >"$dir/req.json"
code=$(post "$main_url" "$dir/req.json" "$dir/resp.json")
check "a long log line is written whole" \
	sh -c "grep '\"uid\":\"$long_uid\"' '$dir/main.log' | jq -e 'select(.name | length == 250)' >/dev/null"

# names beyond ASCII are logged as they came, in valid JSON: the log reads
# words of 8 bytes, then the rest; one name has its non-ASCII byte in the
# first word, the other in the rest
i=0
for n in "caf\303\251-nvidia-cuda-train" "cuda-train-x-\303\251"; do
	i=$((i + 1))
	name=$(printf "$n")
	review v1 "uid-utf8-$i" CREATE "$data/legacy-pod.json" |
		jq --arg n "$name" '.request.name = $n' >"$dir/req.json"
	code=$(post "$main_url" "$dir/req.json" "$dir/resp.json")
	wait_log main "\"uid\":\"uid-utf8-$i\"" || true
	check "a name beyond ASCII is logged as it came ($name)" \
		sh -c "grep '\"uid\":\"uid-utf8-$i\"' '$dir/main.log' | jq -e --arg n '$name' 'select(.name == \$n)' >/dev/null"
done

# ------------------------------------------------------------------
# Golden cases: the webhook's patch gives what `gpumend migrate` writes

if [ -n "$kubectl" ]; then
	# the cases: single documents, not Lists, no config of their own, no
	# error, and no offline-only rule (the API server converts those API
	# versions; scheduler config files are no API objects)
	cli_only=$("$GPUMEND" rules | awk '/\(CLI only\)$/ { printf "%s%s", sep, $1; sep = "|" }')
	: >"$dir/g-cases"
	in_args=""
	want_args=""
	for case_dir in "$golden"/*/; do
		name=$(basename "$case_dir")
		input=$(ls "$case_dir" | grep -E '^input\.(yaml|yml|json)$' | head -n 1)
		[ -n "$input" ] || continue
		ext=${input#input.}
		[ -f "$case_dir/config.yaml" ] && continue
		[ -f "$case_dir/expected.exit" ] && continue
		[ -f "$case_dir/expected.$ext" ] || continue
		grep -qE "\\[($cli_only)\\]" "$case_dir/expected.lint" 2>/dev/null && continue
		grep -qE '^kind: List|"kind": *"List"' "$case_dir/$input" && continue
		docs=$("$GPUMEND" migrate --json-patch "$case_dir/$input" 2>/dev/null | wc -l)
		[ "$docs" = 1 ] || continue
		echo "$name" >>"$dir/g-cases"
		in_args="$in_args -f $case_dir$input"
		want_args="$want_args -f $case_dir/expected.$ext"
	done
	n_cases=$(wc -l <"$dir/g-cases")
	n_bad=0
	# YAML to JSON, all at once: kubectl starts slowly
	# shellcheck disable=SC2086
	"$kubectl" patch --local $in_args --type=json -p '[]' -o json 2>"$dir/g-err" |
		jq -c . >"$dir/g-ins" 2>>"$dir/g-err"
	# shellcheck disable=SC2086
	"$kubectl" patch --local $want_args --type=json -p '[]' -o json 2>>"$dir/g-err" |
		jq -c . >"$dir/g-wants" 2>>"$dir/g-err"
	if [ "$(wc -l <"$dir/g-ins")" != "$n_cases" ] ||
	   [ "$(wc -l <"$dir/g-wants")" != "$n_cases" ]; then
		fail "golden cases: kubectl cannot read them all"
		sed 's/^/    /' "$dir/g-err"
		n_bad=$n_cases
	fi
	i=0
	while [ "$n_bad" = 0 ] && read -r name; do
		i=$((i + 1))
		ok=1
		sed -n "${i}p" "$dir/g-ins" >"$dir/g-in.json"
		sed -n "${i}p" "$dir/g-wants" >"$dir/g-want.json"
		review v1 "golden-$name" CREATE "$dir/g-in.json" >"$dir/g-req-v1.json"
		sed '1,3s|"admission.k8s.io/v1"|"admission.k8s.io/v1beta1"|' \
			"$dir/g-req-v1.json" >"$dir/g-req-v1beta1.json"
		for version in v1 v1beta1; do
			code=$(post "$main_url" "$dir/g-req-$version.json" "$dir/g-resp-$version.json")
			[ "$code" = 200 ] || ok=0
		done
		jq_true -n --slurpfile a "$dir/g-resp-v1.json" --slurpfile b "$dir/g-resp-v1beta1.json" \
			'$a[0].response.patch == $b[0].response.patch and
			 $b[0].apiVersion == "admission.k8s.io/v1beta1"' || ok=0
		if [ $ok = 1 ] && apply_patch "$dir/g-in.json" "$dir/g-resp-v1.json" "$dir/g-got.json" 2>"$dir/g-err"; then
			# the record annotation aside
			# (and the metadata it had to make for it, as on a
			# KubeSchedulerConfiguration, which has none)
			jq -S 'if .metadata.annotations then
				.metadata.annotations |= del(.["gpumend.io/mutations"]) |
				if .metadata.annotations == {} then del(.metadata.annotations) else . end
			    else . end |
			    if .metadata == {} then del(.metadata) else . end' "$dir/g-got.json" >"$dir/g-got2.json"
			jq -S 'if .metadata.annotations == {} then del(.metadata.annotations) else . end' \
				"$dir/g-want.json" >"$dir/g-want2.json"
			diff -u "$dir/g-want2.json" "$dir/g-got2.json" >"$dir/g-got2.json.diff" || ok=0
		else
			ok=0
		fi
		if [ $ok = 0 ]; then
			fail "golden $name: the webhook's patch does not give the migrated object"
			cat "$dir/g-err" "$dir/g-got2.json.diff" 2>/dev/null | sed 's/^/    /'
		fi
	done <"$dir/g-cases"
	check "golden cases through the webhook, v1 and v1beta1 ($i of $n_cases cases run)" \
		[ "$n_cases" -gt 10 -a "$i" = "$n_cases" ]
else
	fail "golden cases through the webhook: no kubectl (tests/tools/get.sh)"
fi

# ------------------------------------------------------------------
# `gpumend review`: the same answer as the server

review v1 uid-cli CREATE "$data/legacy-pod.json" >"$dir/req.json"
post "$main_url" "$dir/req.json" "$dir/resp-server.json" >/dev/null
"$GPUMEND" review -c "$dir/config.yaml" "$dir/req.json" >"$dir/resp-cli.json"
status=$?
check "gpumend review prints the server's response byte for byte" \
	cmp -s "$dir/resp-server.json" "$dir/resp-cli.json"
check "gpumend review exits 0 when allowed" [ "$status" = 0 ]
"$GPUMEND" review <"$dir/req.json" >"$dir/resp-stdin.json"
check "gpumend review reads stdin" cmp -s "$dir/resp-server.json" "$dir/resp-stdin.json"
echo '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}}' |
	"$GPUMEND" review >/dev/null 2>"$dir/err"
status=$?
check "gpumend review: no uid, exit 2 with the message" \
	sh -c "[ $status = 2 ] && grep -q \"request.uid\" '$dir/err'"

# ------------------------------------------------------------------
# Deny mode and config reload (file change, SIGHUP, broken config)

cp "$data/deny.yaml" "$dir/config.new" && mv "$dir/config.new" "$dir/config.yaml"
check "config file change: reloaded" wait_log main '"msg":"config reloaded"'
review v1 uid-deny CREATE "$data/legacy-pod.json" >"$dir/req.json"
code=$(post "$main_url" "$dir/req.json" "$dir/resp.json")
check "deny mode: allowed false, status 403 naming the rule and the field, no patch" \
	jq_true '.response.allowed == false and .response.status.code == 403 and
	       (.response.status.message | contains("legacy-gpu-resource") and
		contains("spec.containers[0].resources.limits[alpha.kubernetes.io/nvidia-gpu]")) and
	       (.response | has("patch") | not)' "$dir/resp.json"
"$GPUMEND" review -c "$data/deny.yaml" "$dir/req.json" >"$dir/resp-cli.json"
status=$?
check "gpumend review -c: the same denial, exit 1" \
	sh -c "[ $status = 1 ] && cmp -s '$dir/resp.json' '$dir/resp-cli.json'"
review v1 uid-deny-update UPDATE "$data/legacy-pod.json" >"$dir/req.json"
code=$(post "$main_url" "$dir/req.json" "$dir/resp.json")
check "deny mode: UPDATE is only warned about" \
	jq_true '.response.allowed == true and (.response.warnings | length) > 0' "$dir/resp.json"

cp "$data/broken.yaml" "$dir/config.new" && mv "$dir/config.new" "$dir/config.yaml"
check "broken config: refused and logged" wait_log main '"msg":"config reload refused'
review v1 uid-deny-2 CREATE "$data/legacy-pod.json" >"$dir/req.json"
code=$(post "$main_url" "$dir/req.json" "$dir/resp.json")
check "broken config: the config in use is kept (still denies)" \
	jq_true '.response.allowed == false' "$dir/resp.json"

cp "$data/mutate.yaml" "$dir/config.yaml"
wait_log main '"msg":"config reloaded"' 2
kill -HUP "$main_pid"
check "SIGHUP: config reloaded" wait_log main '"msg":"config reloaded"' 3
review v1 uid-mutate-again CREATE "$data/legacy-pod.json" >"$dir/req.json"
code=$(post "$main_url" "$dir/req.json" "$dir/resp.json")
check "after the reloads: mutating again" \
	jq_true '.response.allowed == true and .response.patchType == "JSONPatch"' "$dir/resp.json"

# ------------------------------------------------------------------
# Bad requests: the right status, and the server stays up

# bad NAME WANT-STATUS CURL-ARGS...
bad() {
	_name=$1 _want=$2
	shift 2
	_got=$(curl -sS --cacert "$dir/ca1/ca.crt" -o "$dir/bad.out" -D "$dir/bad.headers" \
		-w '%{http_code}' "$@" 2>/dev/null)
	check "bad request, $_name: $_want" [ "$_got" = "$_want" ]
}
J='Content-Type: application/json'
printf '{"apiVersion": "admission.k8s.io/v1", "kind": ' >"$dir/malformed.json"
bad "malformed JSON" 400 -H "$J" --data-binary @"$dir/malformed.json" "$main_url/mutate"
bad "wrong Content-Type" 415 -H 'Content-Type: text/plain' --data-binary @"$dir/req.json" "$main_url/mutate"
bad "no Content-Type" 415 -H 'Content-Type:' --data-binary @"$dir/req.json" "$main_url/mutate"
head -c 1100000 /dev/zero | tr '\0' ' ' >"$dir/big.json"
bad "body over --max-body (Content-Length)" 413 -H "$J" --data-binary @"$dir/big.json" "$main_url/mutate"
bad "body over --max-body (chunked)" 413 -H "$J" -H 'Transfer-Encoding: chunked' \
	--data-binary @"$dir/big.json" "$main_url/mutate"
bad "GET /mutate" 405 "$main_url/mutate"
check "405 names the allowed method" grep -qi '^Allow: POST' "$dir/bad.headers"
bad "POST /healthz" 405 -X POST "$main_url/healthz"
bad "unknown path" 404 "$main_url/validate"
echo '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"operation":"CREATE"}}' >"$dir/nouid.json"
bad "missing uid" 400 -H "$J" --data-binary @"$dir/nouid.json" "$main_url/mutate"
echo '["not", "an", "object"]' >"$dir/array.json"
bad "a non-object body" 400 -H "$J" --data-binary @"$dir/array.json" "$main_url/mutate"
echo '{"apiVersion":"admission.k8s.io/v2","kind":"AdmissionReview","request":{"uid":"x"}}' >"$dir/v2.json"
bad "an unknown AdmissionReview version" 400 -H "$J" --data-binary @"$dir/v2.json" "$main_url/mutate"

review v1 uid-null CREATE null >"$dir/req.json"
code=$(post "$main_url" "$dir/req.json" "$dir/resp.json")
check "object null: 200, allowed (failurePolicy allow) with a warning saying why" \
	sh -c "[ '$code' = 200 ] && jq -e '.response.uid == \"uid-null\" and .response.allowed == true and
		(.response.warnings[0] | contains(\"null\")) and (.response | has(\"patch\") | not)' '$dir/resp.json' >/dev/null"
jq '.request.object = "a string"' "$dir/req.json" >"$dir/req2.json"
code=$(post "$main_url" "$dir/req2.json" "$dir/resp.json")
check "object not an object: a well-formed answer" \
	sh -c "[ '$code' = 200 ] && jq -e '.response.allowed == true and (.response.warnings | length) == 1' '$dir/resp.json' >/dev/null"
jq '.request.operation = 42' "$dir/req.json" >"$dir/req2.json"
code=$(post "$main_url" "$dir/req2.json" "$dir/resp.json")
check "operation of the wrong type: a well-formed answer" \
	sh -c "[ '$code' = 200 ] && jq -e '.response.uid == \"uid-null\" and .response.allowed == true' '$dir/resp.json' >/dev/null"

# ------------------------------------------------------------------
# The registration's entries: a review the server cannot do (object null)
# is answered as the entry it came through says (legacy: Fail, denied;
# advisory: Ignore, allowed with a warning; plain /mutate:
# webhook.failurePolicy, allow here). Paths from `gpumend webhook-config`
# for the server's config carry its hash; another hash is served too, but
# logged once and set in gpumend_config_hash_mismatch.

hash=$("$GPUMEND" webhook-config -c "$dir/config.yaml" -o json |
	jq -r '.webhooks[0].clientConfig.service.path' | sed 's|.*/||')
check "webhook-config: the legacy entry's path names a 16-digit hash" \
	sh -c "echo '$hash' | grep -Eqx '[0-9a-f]{16}'"
# post_to PATH IN OUT: POSTs IN to PATH of the main server; the code.
post_to() {
	curl -sS --cacert "$dir/ca1/ca.crt" -H "$J" --data-binary @"$2" \
		-o "$3" -w '%{http_code}' "$main_url$1" 2>/dev/null
}
while read -r path want allowed; do
	path=$(echo "$path" | sed "s/HASH/$hash/")
	code=$(post_to "$path" "$dir/req.json" "$dir/resp.json")
	if [ "$want" != 200 ]; then
		check "entry path $path: $want" [ "$code" = "$want" ]
	elif [ "$allowed" = true ]; then
		check "entry path $path: a failure is allowed with a warning" \
			sh -c "[ '$code' = 200 ] && jq -e '.response.allowed == true and
				(.response.warnings[0] | contains(\"admitted unchanged\"))' '$dir/resp.json' >/dev/null"
	else
		check "entry path $path: a failure is denied" \
			sh -c "[ '$code' = 200 ] && jq -e '.response.allowed == false and
				(.response.status.message | contains(\"cannot review\"))' '$dir/resp.json' >/dev/null"
	fi
done <<'ROUTES'
/mutate 200 true
/mutate/advisory 200 true
/mutate/advisory/HASH 200 true
/mutate/legacy 200 false
/mutate/legacy/HASH 200 false
/mutate/legacy/0123456789abcdef 200 false
/mutate/other 404 -
/mutate/legacy/HASH/ 404 -
/mutate/legacy/0123 404 -
/mutate/legacy/0123456789ABCDEF 404 -
/mutatelegacy 404 -
ROUTES
hash_mismatch() {
	curl -sS --cacert "$dir/ca1/ca.crt" "$main_url/metrics" |
		awk '$1 == "gpumend_config_hash_mismatch" { print $2 }'
}
check "hash mismatch: logged once, naming both hashes" \
	sh -c "[ \$(grep -c 'registration made for another config' '$dir/main.log') = 1 ] &&
		grep 'registration made for another config' '$dir/main.log' |
		grep -q '\"config_hash\":\"$hash\"'"
check "hash mismatch: gpumend_config_hash_mismatch is 1" [ "$(hash_mismatch)" = 1 ]
review v1 uid-hash CREATE "$data/legacy-pod.json" >"$dir/req3.json"
code=$(post_to "/mutate/legacy/$hash" "$dir/req3.json" "$dir/resp.json")
check "the config's own hash: reviewed, the gauge back to 0" \
	sh -c "[ '$code' = 200 ] && jq -e '.response.patch' '$dir/resp.json' >/dev/null &&
		[ '$(hash_mismatch)' = 0 ]"
check "the review's log line names its entry" sh -c \
	"grep '\"uid\":\"uid-hash\"' '$dir/main.log' | grep -q '\"entry\":\"legacy\"'"
code=$(post_to /mutate/advisory/fedcba9876543210 "$dir/req3.json" "$dir/resp.json")
check "another hash: the review is still served in full" \
	sh -c "[ '$code' = 200 ] && jq -e '.response.allowed == true and .response.patch' '$dir/resp.json' >/dev/null"

code=$(curl -sS --cacert "$dir/ca1/ca.crt" -o /dev/null -w '%{http_code}' "$main_url/healthz")
check "the server is still up after the bad requests" \
	sh -c "[ '$code' = 200 ] && kill -0 $main_pid"

# ------------------------------------------------------------------
# TLS versions

if echo | openssl s_client -tls1_1 -cipher 'DEFAULT@SECLEVEL=0' \
	-connect "127.0.0.1:$main_port" >/dev/null 2>&1; then
	fail "TLS 1.1 handshake accepted"
else
	pass "TLS 1.1 refused"
fi
if echo | openssl s_client -tls1 -cipher 'DEFAULT@SECLEVEL=0' \
	-connect "127.0.0.1:$main_port" >/dev/null 2>&1; then
	fail "TLS 1.0 handshake accepted"
else
	pass "TLS 1.0 refused"
fi
check "TLS 1.2 accepted" sh -c "echo | openssl s_client -tls1_2 -CAfile '$dir/ca1/ca.crt' \
	-verify_return_error -connect 127.0.0.1:$main_port >/dev/null 2>&1"
check "TLS 1.3 accepted" sh -c "echo | openssl s_client -tls1_3 -CAfile '$dir/ca1/ca.crt' \
	-verify_return_error -connect 127.0.0.1:$main_port >/dev/null 2>&1"

# ------------------------------------------------------------------
# Certificate rotation while a client loops

review v1 uid-loop CREATE "$data/legacy-pod.json" >"$dir/loop-req.json"
check "before rotation: the first certificate is served" \
	[ "$(served_fingerprint "$main_port")" = "$(fingerprint "$dir/ca1/tls.crt")" ]
(
	end=$(($(date +%s) + 3))
	while [ "$(date +%s)" -lt "$end" ]; do
		post "$main_url" "$dir/loop-req.json" /dev/null
		echo
	done
) >"$dir/loop.codes" &
loop_pid=$!
sleep 0.5
mkdir "$dir/mount/..v2"
cp "$dir/ca2/tls.crt" "$dir/ca2/tls.key" "$dir/mount/..v2/"
ln -s ..v2 "$dir/mount/..data_tmp"
mv -T "$dir/mount/..data_tmp" "$dir/mount/..data"
check "rotation: the new pair is loaded" wait_log main '"msg":"certificate reloaded"'
check "rotation: the new certificate is served" \
	[ "$(served_fingerprint "$main_port")" = "$(fingerprint "$dir/ca2/tls.crt")" ]
wait "$loop_pid"
total=$(grep -c . "$dir/loop.codes")
failed=$(grep -vc '^200$' "$dir/loop.codes")
check "rotation: no failed request among $total" [ "$total" -gt 5 -a "$failed" = 0 ]
[ "$failed" = 0 ] || sort "$dir/loop.codes" | uniq -c | sed 's/^/    /'

# a broken pair: the key of the first certificate with the second one
mkdir "$dir/mount/..v3"
cp "$dir/ca2/tls.crt" "$dir/mount/..v3/tls.crt"
cp "$dir/ca1/tls.key" "$dir/mount/..v3/tls.key"
ln -s ..v3 "$dir/mount/..data_tmp"
mv -T "$dir/mount/..data_tmp" "$dir/mount/..data"
check "broken pair: refused and logged" wait_log main '"msg":"certificate reload refused'
check "broken pair: the pair in use is still served" \
	[ "$(served_fingerprint "$main_port")" = "$(fingerprint "$dir/ca2/tls.crt")" ]
code=$(post "$main_url" "$dir/loop-req.json" /dev/null)
check "broken pair: requests still succeed" [ "$code" = 200 ]

# ------------------------------------------------------------------
# Metrics

curl -sS --cacert "$dir/ca1/ca.crt" -D "$dir/metrics.headers" "$main_url/metrics" >"$dir/metrics"
if awk -f "$data/promcheck.awk" "$dir/metrics" >"$dir/promcheck.out"; then
	pass "/metrics parses as Prometheus text"
else
	fail "/metrics does not parse as Prometheus text"
	sed 's/^/    /' "$dir/promcheck.out"
fi
check "/metrics has the text format's Content-Type" grep -qi '^Content-Type: text/plain; version=0.0.4' "$dir/metrics.headers"
metric() {
	awk -v key="$1" '$1 == key { print $2 }' "$dir/metrics"
}
check "metrics: requests by path and code" \
	[ "$(metric 'gpumend_http_requests_total{path="/mutate",code="200"}')" -gt 10 ]
check "metrics: 4xx counted" \
	[ "$(metric 'gpumend_http_requests_total{path="/mutate",code="415"}')" -ge 2 ]
check "metrics: latency histogram with sub-millisecond buckets" \
	[ -n "$(metric 'gpumend_admission_duration_seconds_bucket{le="0.0005"}')" ]
check "metrics: mutations by rule" \
	[ "$(metric 'gpumend_mutations_total{rule="obsolete-cuda-hostpath"}')" -gt 0 ]
check "metrics: findings by rule" \
	[ "$(metric 'gpumend_findings_total{rule="gpu-visibility",severity="warning"}')" -gt 0 ]
check "metrics: errors" \
	[ "$(metric 'gpumend_errors_total{kind="bad_request"}')" -ge 3 ]
check "metrics: certificate reloads by result" \
	[ "$(metric 'gpumend_reloads_total{kind="certificate",result="success"}')" = 2 -a \
	  "$(metric 'gpumend_reloads_total{kind="certificate",result="failure"}')" = 1 ]
check "metrics: config reloads by result" \
	[ "$(metric 'gpumend_reloads_total{kind="config",result="success"}')" -ge 4 -a \
	  "$(metric 'gpumend_reloads_total{kind="config",result="failure"}')" = 1 ]
not_after=$(date -d "$(openssl x509 -in "$dir/ca2/tls.crt" -noout -enddate | sed 's/.*=//')" +%s 2>/dev/null)
check "metrics: certificate expiry time of the certificate served" \
	[ "$(metric gpumend_certificate_expiry_timestamp_seconds)" = "$not_after" ]
check "metrics: requests in flight" [ "$(metric gpumend_in_flight_requests)" = 1 ]

# the standard process_* metrics, against what /proc says of the server
# (read after the scrape: the counters only grow)
awk '/^Vm(RSS|Size):/ { printf "%s %.0f\n", $1, $2 * 1024 }' "/proc/$main_pid/status" >"$dir/proc.status"
proc_cpu=$(awk -v tck="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print ($12 + $13) / tck }' "/proc/$main_pid/stat")
proc_fds=$(ls "/proc/$main_pid/fd" | wc -l)
vm() { awk -v k="$1:" '$1 == k { print $2 }' "$dir/proc.status"; }
# within LOW HIGH VALUE: LOW <= VALUE <= HIGH (numbers, as awk reads them)
within() { awk -v lo="$1" -v hi="$2" -v v="$3" 'BEGIN { exit !(v != "" && v + 0 >= lo + 0 && v + 0 <= hi + 0) }'; }
# near VALUE REF: VALUE is within a factor of two of REF
near() { awk -v v="$1" -v r="$2" 'BEGIN { exit !(v != "" && r + 0 > 0 && v + 0 >= r / 2 && v + 0 <= r * 2) }'; }
for family in process_cpu_seconds_total:counter process_resident_memory_bytes:gauge \
	process_virtual_memory_bytes:gauge process_open_fds:gauge process_max_fds:gauge \
	process_start_time_seconds:gauge; do
	check "metrics: ${family%:*}, a ${family#*:}" \
		grep -q "^# TYPE ${family%:*} ${family#*:}\$" "$dir/metrics"
done
check "metrics: process_cpu_seconds_total above 0, at most what /proc says after ($(metric process_cpu_seconds_total) <= $proc_cpu)" \
	within 0.001 "$proc_cpu" "$(metric process_cpu_seconds_total)"
rss=$(vm VmRSS) vsz=$(vm VmSize)
check "metrics: process_resident_memory_bytes near VmRSS ($(metric process_resident_memory_bytes), $rss)" \
	near "$(metric process_resident_memory_bytes)" "$rss"
check "metrics: process_virtual_memory_bytes near VmSize ($(metric process_virtual_memory_bytes), $vsz)" \
	near "$(metric process_virtual_memory_bytes)" "$vsz"
check "metrics: process_open_fds near /proc/PID/fd ($(metric process_open_fds), $proc_fds)" \
	within $((proc_fds - 5)) $((proc_fds + 5)) "$(metric process_open_fds)"
fd_limit=$(grep '"msg":"started"' "$dir/main.log" | jq -r .fd_limit)
check "metrics: process_max_fds is the descriptor limit the server set ($fd_limit)" \
	[ "$(metric process_max_fds)" = "$fd_limit" ]
start=$(metric gpumend_start_time_seconds)
check "metrics: process_start_time_seconds within 2 s of gpumend_start_time_seconds ($start)" \
	within $((start - 2)) $((start + 2)) "$(metric process_start_time_seconds)"
if command -v promtool >/dev/null 2>&1; then
	promtool check metrics <"$dir/metrics" >"$dir/promtool.out" 2>&1
	status=$?
	check "/metrics passes promtool check metrics" [ "$status" = 0 -a ! -s "$dir/promtool.out" ]
	sed 's/^/    /' "$dir/promtool.out"
else
	fail "/metrics passes promtool check metrics: no promtool (make test-deps installs Debian's prometheus)"
fi

# ------------------------------------------------------------------
# SIGTERM while a slow request is in flight

review v1 uid-slow CREATE "$data/legacy-pod.json" >"$dir/slow.json"
head -c 150000 /dev/zero | tr '\0' ' ' >>"$dir/slow.json"
curl -sS --cacert "$dir/ca1/ca.crt" -H 'Content-Type: application/json' \
	--limit-rate 100k --data-binary @"$dir/slow.json" -o "$dir/slow.resp" \
	-w '%{http_code}' "$main_url/mutate" >"$dir/slow.code" 2>"$dir/slow.err" &
slow_pid=$!
sleep 0.6
kill -TERM "$main_pid"
check "SIGTERM: draining logged" wait_log main '"msg":"draining"'
if curl -sS --cacert "$dir/ca1/ca.crt" --max-time 2 -o /dev/null "$main_url/healthz" 2>/dev/null; then
	fail "SIGTERM: new connections still accepted while draining"
else
	pass "SIGTERM: new connections refused while draining"
fi
wait "$slow_pid"
check "SIGTERM: the request in flight completes with 200" [ "$(cat "$dir/slow.code")" = 200 ]
check "SIGTERM: and its answer is whole" jq_true '.response.uid == "uid-slow" and .response.allowed' "$dir/slow.resp"
webhook_wait "$main_pid"
check "SIGTERM: exit 0" [ "$webhook_status" = 0 ]
check "SIGTERM: shutdown logged" grep -q '"msg":"stopped"' "$dir/main.log"

# ------------------------------------------------------------------
# Start-up: flags, environment, refusals

check "--version" sh -c "'$GPUMEND_WEBHOOK' --version | grep -q '^gpumend-webhook '"
check "--help" sh -c "'$GPUMEND_WEBHOOK' --help | grep -q -- '--tls-cert'"
# every option but --help and --version names its environment variable
"$GPUMEND_WEBHOOK" --help >"$dir/help" 2>&1
missing=""
for o in $(grep -oE '^  (-[a-z], )?--[a-z-]+' "$dir/help" | sed 's/.*--//'); do
	case $o in help | version) continue ;; esac
	v=GPUMEND_$(echo "$o" | tr 'a-z-' 'A-Z_')
	grep -q "$v\b" "$dir/help" || missing="$missing $v"
done
check "--help names the environment variable of every option${missing:+ (missing:$missing)}" \
	[ -z "$missing" ]
"$GPUMEND_WEBHOOK" --listen 127.0.0.1:0 >/dev/null 2>"$dir/err"
check "missing certificate: usage error (exit 2)" [ $? = 2 ]
"$GPUMEND_WEBHOOK" --listen 127.0.0.1:0 --tls-cert "$dir/ca2/tls.crt" \
	--tls-key "$dir/ca1/tls.key" >/dev/null 2>"$dir/err"
status=$?
check "mismatched pair at start-up: refused (exit 1)" \
	sh -c "[ $status = 1 ] && grep -q 'does not belong' '$dir/err'"
"$GPUMEND_WEBHOOK" --listen 127.0.0.1:99999 --tls-cert "$dir/ca1/tls.crt" \
	--tls-key "$dir/ca1/tls.key" >/dev/null 2>"$dir/err"
check "bad port: usage error" [ $? = 2 ]
"$GPUMEND_WEBHOOK" --listen 127.0.0.1:0 -c "$data/broken.yaml" --tls-cert "$dir/ca1/tls.crt" \
	--tls-key "$dir/ca1/tls.key" >/dev/null 2>"$dir/err"
status=$?
check "broken config at start-up: refused with its place" \
	sh -c "[ $status = 1 ] && grep -q 'broken.yaml:' '$dir/err'"
printf '# offline only\ntarget: dra\n' >"$dir/dra.yaml"
"$GPUMEND_WEBHOOK" --listen 127.0.0.1:0 -c "$dir/dra.yaml" --tls-cert "$dir/ca1/tls.crt" \
	--tls-key "$dir/ca1/tls.key" >/dev/null 2>"$dir/err"
status=$?
check "target dra at start-up: refused at its value (the webhook cannot create claim templates)" \
	sh -c "[ $status = 1 ] && grep -q \"dra.yaml:2:9: target 'dra' is for gpumend migrate and lint only\" '$dir/err'"

# no --listen: the address too from the environment
WEBHOOK_LISTEN=""
GPUMEND_LISTEN=127.0.0.1:0 GPUMEND_LOG_LEVEL=warn GPUMEND_TLS_CERT="$dir/ca1/tls.crt"
GPUMEND_TLS_KEY="$dir/ca1/tls.key"
export GPUMEND_LISTEN GPUMEND_LOG_LEVEL GPUMEND_TLS_CERT GPUMEND_TLS_KEY
webhook_start env --log-level info
unset WEBHOOK_LISTEN GPUMEND_LISTEN GPUMEND_LOG_LEVEL GPUMEND_TLS_CERT GPUMEND_TLS_KEY
check "environment: starts from GPUMEND_* variables (flags win)" wait_log env '"msg":"started"'
webhook_stop "$webhook_pid" INT
check "SIGINT: exit 0" [ "$webhook_status" = 0 ]

finish webhook
