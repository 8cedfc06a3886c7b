#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/chart.sh - the Helm chart charts/gpumend. No real helm can
# be had, so the chart is proven by tests/helm-template (Go's
# text/template with sprig and Helm's functions) and its
# values.schema.json:
#   - its generated files are what they are copies of: files/config.yaml
#     what `gpumend config` prints, files/mutatingwebhookconfiguration.yaml
#     what `gpumend webhook-config` prints for it, files/prometheusrule.yaml
#     manifests/monitoring's;
#   - each case of tests/chart/cases/NAME/ renders to the objects the
#     kustomize tree builds for the same choices: the folder holds
#       args                the renderer's arguments, one line (word-split;
#                           @CASE@ is the folder, @CABUNDLE@ the caBundle of
#                           certificates made for the self-signed overlay,
#                           @REGISTRATION@ the registration made below)
#       kustomization.yaml  built in a copy of manifests/ (at
#                           manifests/cases/NAME), with the certificates,
#                           beside the case's resource-*.yaml
#       config.yaml         (optional) replaces the copy's base config
#       webhook-config.args (optional) options of `gpumend webhook-config`:
#                           the copy's registration (and @REGISTRATION@)
#                           is what it prints for the copy's config
#       except              (optional) kinds the overlay makes and the chart
#                           does not, one a line (the chart uses an
#                           existing Secret; --create-namespace makes the
#                           namespace)
#     Objects are compared as JSON, documents in order of kind and name,
#     keys sorted; Helm's own labels (app.kubernetes.io/instance,
#     app.kubernetes.io/managed-by, helm.sh/chart), which the overlays do
#     not have, are left out, once checked to be there; a caBundle is
#     compared without the line breaks kustomize writes into it (base64
#     decoders skip them). Each case's values
#     are valid against values.schema.json, and its objects against the
#     Kubernetes 1.36 schema (tests/schema/validate.mjs);
#   - each value set of tests/chart/refused.tsv is refused, by the schema
#     at its JSON Pointer or by the templates with their message;
#   - each line of tests/chart/values.tsv renders to objects of which its
#     jq expression holds; its values are valid against the schema and
#     its objects against Kubernetes 1.36 (each tool run once for all);
#   - the registration is what `gpumend webhook-config` prints for the
#     same choices, for each line of tests/chart/registrations.tsv;
#   - another namespace, under the default names and under
#     fullnameOverride and nameOverride: every reference between the
#     objects holds (tests/chart/references.jq), nothing names
#     gpumend-system, two releases share no name and take none of each
#     other's pods;
#   - gpumend-webhook starts with the arguments the chart gives it;
#   - NOTES.txt names only objects the chart made;
#   - the README's values table, values.yaml and values.schema.json agree
#     (tests/chart/values_doc.py), and Chart.yaml's icon is in the tree;
#   - `gpumend lint charts/gpumend` finds nothing.
. "$(dirname "$0")/../lib.sh"

# not dir=$(scratch): the subshell's exit trap would remove it at once
scratch >/dev/null
dir=$_scratch
chart="$REPO_DIR/charts/gpumend"
data="$TESTS_DIR/chart"

# the tools: the renderer, kustomize, node and the Kubernetes validators,
# python3's jsonschema (the Makefile's test-deps)
if helm_template_build "$dir"; then
	pass "the Go renderer (helm-template) builds"
else
	fail "the Go renderer (helm-template) builds"
	sed 's/^/    /' "$dir/render.log" | head -n 30
	finish chart
	exit 1
fi
if ! kustomize=$(tool kustomize); then
	fail "chart: no kustomize (tests/tools/get.sh, above)"
	finish chart
	exit 1
fi
if ! command -v node >/dev/null 2>&1 || ! modules=$(tool k8s-schemas); then
	fail "chart: no node or no Kubernetes validators (make test-deps; tests/tools/get.sh k8s-schemas)"
	finish chart
	exit 1
fi
if ! python3 -c 'import jsonschema' 2>/dev/null; then
	fail "chart: no python3 jsonschema (make test-deps installs python3-jsonschema)"
	finish chart
	exit 1
fi

# jqq ARGS...: jq, quiet (its status is the answer).
jqq() { jq "$@" >/dev/null; }

# values_ok ARGS...: the values the renderer's ARGS give are valid against
# values.schema.json; the validator's report in $dir/schema.out.
values_ok() {
	"$RENDER" values "$chart" "$@" >"$dir/values.json" 2>"$dir/schema.out" &&
		python3 "$data/values_schema.py" "$chart/values.schema.json" \
			<"$dir/values.json" >"$dir/schema.out" 2>&1
}

# objects FILE: FILE's objects as one JSON array in order of kind and name,
# keys sorted, the kinds of $except and Helm's own labels left out.
objects() {
	"$RENDER" json "$1" | jq -S -s --arg except "$except" '
		($except | split(" ") | map(select(. != ""))) as $skip
		| map(select(.kind as $k | $skip | index($k) | not)
		      | if .webhooks then
			  .webhooks |= map(if .clientConfig.caBundle then
			      .clientConfig.caBundle |= gsub("\\s"; "") else . end)
			else . end
		      | if .metadata.labels then
			  .metadata.labels |= del(.["app.kubernetes.io/instance"],
			      .["app.kubernetes.io/managed-by"], .["helm.sh/chart"])
			else . end)
		| sort_by(.kind, .metadata.name)'
}

# ------------------------------------------------------ the generated files
"$GPUMEND" config >"$dir/config.yaml" 2>/dev/null
check "files/config.yaml is what 'gpumend config' prints" \
	cmp -s "$dir/config.yaml" "$chart/files/config.yaml"
"$GPUMEND" webhook-config -c "$chart/files/config.yaml" >"$dir/registration.yaml" 2>/dev/null
check "files/mutatingwebhookconfiguration.yaml is what 'gpumend webhook-config' prints for it" \
	sh -c "[ -s '$dir/registration.yaml' ] &&
	 cmp -s '$dir/registration.yaml' '$chart/files/mutatingwebhookconfiguration.yaml'"
check "files/prometheusrule.yaml is manifests/monitoring's" \
	cmp -s "$REPO_DIR/manifests/monitoring/prometheusrule.yaml" "$chart/files/prometheusrule.yaml"

# ------------------------------------------------------ the schema itself
if values_ok; then
	pass "values.yaml is valid against values.schema.json (draft-07)"
else
	fail "values.yaml is valid against values.schema.json (draft-07)"
	sed 's/^/    /' "$dir/schema.out"
fi

# ------------------------------------------------------ chart = overlays
tab=$(printf '\t')
n=0
for case in "$data"/cases/*/; do
	case=${case%/}
	name=$(basename "$case")
	n=$((n + 1))
	work="$dir/$name"
	mkdir -p "$work"
	rm -rf "$work/m"
	cp -R "$REPO_DIR/manifests" "$work/m"
	"$GPUMEND" certs --service gpumend-webhook --namespace gpumend-system \
		--out "$work/m/overlays/self-signed/tls" >"$work/cabundle" 2>"$work/err" ||
		fail "$name: gpumend certs for the self-signed overlay ($(cat "$work/err"))"
	[ -f "$case/config.yaml" ] && cp "$case/config.yaml" "$work/m/base/config.yaml"
	registration="$work/m/base/mutatingwebhookconfiguration.yaml"
	if [ -f "$case/webhook-config.args" ] || [ -f "$case/config.yaml" ]; then
		wargs=""
		[ -f "$case/webhook-config.args" ] && wargs=$(cat "$case/webhook-config.args")
		# shellcheck disable=SC2086 # the options are words
		"$GPUMEND" webhook-config -c "$work/m/base/config.yaml" $wargs \
			>"$registration" 2>"$work/err" ||
			fail "$name: gpumend webhook-config $wargs ($(cat "$work/err"))"
	fi
	mkdir -p "$work/m/cases/$name"
	cp "$case/kustomization.yaml" "$work/m/cases/$name/"
	for f in "$case"/resource-*.yaml; do
		[ -f "$f" ] && cp "$f" "$work/m/cases/$name/"
	done
	args=$(sed -e "s|@CASE@|$case|g" -e "s|@CABUNDLE@|$(cat "$work/cabundle")|g" \
		-e "s|@REGISTRATION@|$registration|g" "$case/args")
	except=""
	[ -f "$case/except" ] && except=$(cat "$case/except")

	# shellcheck disable=SC2086 # the arguments are words
	if ! "$RENDER" render "$chart" $args >"$work/chart.yaml" 2>"$work/err"; then
		fail "$name: the chart renders"
		sed 's/^/    /' "$work/err"
		continue
	fi
	if ! "$kustomize" build "$work/m/cases/$name" >"$work/overlay.yaml" 2>"$work/err"; then
		fail "$name: kustomize builds the overlay"
		sed 's/^/    /' "$work/err"
		continue
	fi
	# shellcheck disable=SC2086
	if values_ok $args; then
		pass "$name: the values are valid against values.schema.json"
	else
		fail "$name: the values are valid against values.schema.json"
		sed 's/^/    /' "$dir/schema.out"
	fi
	check "$name: every object has Helm's labels" sh -c "'$RENDER' json '$work/chart.yaml' |
		jq -e -s 'length > 0 and all(.metadata.labels[\"app.kubernetes.io/managed-by\"] == \"Helm\"
			and .metadata.labels[\"helm.sh/chart\"] != null
			and .metadata.labels[\"app.kubernetes.io/instance\"] != null)' >/dev/null"
	docs=$(grep -c '^# Source: ' "$work/chart.yaml")
	check "$name: each of the $docs documents rendered is an object (none only comments)" \
		[ "$docs" = "$("$RENDER" json "$work/chart.yaml" | wc -l)" ]
	objects "$work/chart.yaml" >"$work/chart.json"
	objects "$work/overlay.yaml" >"$work/overlay.json"
	count=$(jq length "$work/chart.json")
	if [ "$count" -gt 0 ] && diff -u "$work/overlay.json" "$work/chart.json" >"$work/d"; then
		pass "$name: the chart's $count objects are the overlay's${except:+ (but $except)}"
	else
		fail "$name: the chart's objects are the overlay's${except:+ (but $except)}"
		sed 's/^/    /' "$work/d" | head -n 60
	fi
	if node "$TESTS_DIR/schema/validate.mjs" "$modules" "$work/chart.yaml" >"$work/k8s" 2>&1; then
		pass "$name: $(grep -c '^ok ' "$work/k8s") objects valid against Kubernetes 1.36"
	else
		fail "$name: the objects are valid against Kubernetes 1.36"
		grep -v '^ok ' "$work/k8s" | sed "s|$work/||g; s/^/    /"
	fi
done
check "the chart was compared with the overlays ($n cases)" [ "$n" -ge 7 ]

# ------------------------------------------------------ each value
# Each line of values.tsv rendered and its jq expression judged over the
# objects; then every set's values against values.schema.json, and every
# set's objects against Kubernetes 1.36 (unknown fields too), each tool
# run once over them all.
prelude='def one(k): map(select(.kind == k)) |
		if length == 1 then .[0] else error("not one \(k) but \(length)") end;
	def none(k): all(.[]; .kind != k);
	def pod: one("Deployment").spec.template;
	def container: pod.spec.containers[] | select(.name == "webhook");
	def args: container.args;
	def flag(f): (args | index([f])) as $i | if $i == null then null else args[$i + 1] end;'
vdir=$dir/values
mkdir -p "$vdir"
names=""
while IFS=$tab read -r name args expect; do
	[ "$args" = - ] && args=""
	args=$(echo "$args" | sed "s|@DATA@|$data|g")
	# shellcheck disable=SC2086 # the arguments are words
	if ! "$RENDER" render "$chart" -n gpumend-system $args >"$vdir/$name.yaml" 2>"$dir/err"; then
		fail "value $name: the chart renders"
		sed 's/^/    /' "$dir/err"
		continue
	fi
	# shellcheck disable=SC2086
	"$RENDER" values "$chart" -n gpumend-system $args >"$vdir/$name.values.json"
	"$RENDER" json "$vdir/$name.yaml" | jq -s . >"$vdir/$name.json"
	names="$names $name"
	if jq -e "$prelude $expect" "$vdir/$name.json" >/dev/null 2>"$dir/err"; then
		pass "value $name: the objects are as set"
	else
		fail "value $name: the objects are as set"
		sed 's/^/    /' "$dir/err"
	fi
done <<EOF_VALUES
$(cases "$data/values.tsv")
EOF_VALUES
# shellcheck disable=SC2086 # one file a name
(cd "$vdir" && python3 "$data/values_schema.py" "$chart/values.schema.json" \
	$(for n in $names; do echo "$n.values.json"; done)) >"$dir/schema.out" 2>&1
# shellcheck disable=SC2086
(cd "$vdir" && node "$TESTS_DIR/schema/validate.mjs" "$modules" \
	$(for n in $names; do echo "$n.yaml"; done)) >"$dir/k8s" 2>&1
for n in $names; do
	if grep -qx "$n.values.json: ok" "$dir/schema.out"; then
		pass "value $n: valid against values.schema.json"
	else
		fail "value $n: valid against values.schema.json"
		grep "^$n.values.json: " "$dir/schema.out" | sed 's/^/    /'
	fi
	oks=$(grep -c "^ok $n.yaml#" "$dir/k8s")
	if [ "$oks" -gt 0 ] && ! grep -v "^ok " "$dir/k8s" | grep -q " $n.yaml#"; then
		pass "value $n: $oks objects valid against Kubernetes 1.36, no unknown field"
	else
		fail "value $n: the objects are valid against Kubernetes 1.36, no unknown field"
		grep -v "^ok " "$dir/k8s" | grep " $n.yaml#" | sed 's/^/    /'
	fi
done
check "every line of values.tsv was rendered ($(echo $names | wc -w))" \
	[ "$(echo $names | wc -w)" = "$(cases "$data/values.tsv" | wc -l)" ]

# ------------------------------------------------------ refused values
while IFS=$tab read -r name args where; do
	args=$(echo "$args" | sed "s|@DATA@|$data|g")
	kind=${where%% *}
	want=${where#* }
	# shellcheck disable=SC2086
	case $kind in
	schema)
		values_ok $args
		rc=$?
		if [ $rc = 1 ] && grep -q "^invalid $want: " "$dir/schema.out"; then
			pass "refused: $name (values.schema.json at $want)"
		else
			fail "refused: $name (values.schema.json at $want; exit $rc)"
			sed 's/^/    /' "$dir/schema.out"
		fi
		;;
	render)
		if values_ok $args; then
			pass "refused: $name: the schema takes it"
		else
			fail "refused: $name: the schema takes it"
			sed 's/^/    /' "$dir/schema.out"
		fi
		if ! "$RENDER" render "$chart" -n gpumend-system $args >/dev/null 2>"$dir/err" &&
			grep -qF -- "$want" "$dir/err"; then
			pass "refused: $name (the templates say so)"
		else
			fail "refused: $name (the templates say '$want')"
			sed 's/^/    /' "$dir/err"
		fi
		;;
	*) fail "refused: $name: '$kind' is neither schema nor render" ;;
	esac
done <<EOF_REFUSED
$(cases "$data/refused.tsv")
EOF_REFUSED

# ------------------------------------------------------ registrations
while IFS=$tab read -r name args gen want; do
	if [ "$gen" != - ]; then
		# shellcheck disable=SC2086 # the options are words
		"$GPUMEND" webhook-config $gen >"$dir/generated.yaml" 2>/dev/null
	fi
	args=$(echo "$args" | sed "s|@GENERATED@|$dir/generated.yaml|g")
	# shellcheck disable=SC2086
	"$RENDER" render "$chart" $args >"$dir/reg.yaml" 2>"$dir/err" ||
		fail "registration $name: the chart renders ($(cat "$dir/err"))"
	"$RENDER" json "$dir/reg.yaml" >"$dir/reg.json"
	# shellcheck disable=SC2086 # the options are words
	registration_is "registration $name: what 'gpumend webhook-config${want:+ $want}' prints" \
		"$dir/reg.json" gpumend $want
done <<EOF_REGISTRATIONS
$(cases "$data/registrations.tsv")
EOF_REGISTRATIONS

# ------------------------------------------------------ names and namespaces
# With every object the chart can make, in another namespace, under the
# default names and under fullnameOverride and nameOverride: every
# reference holds (tests/chart/references.jq), nothing names
# gpumend-system, and two releases in one namespace share no name and
# select none of each other's pods.
ns=ml-infra
all="--set namespace.create=true --set networkPolicy.enabled=true
	--set monitoring.serviceMonitor.enabled=true --set monitoring.prometheusRule.enabled=true"
for names in gpumend acme; do
	over=""
	[ $names = acme ] && over="--set fullnameOverride=acme --set nameOverride=acme-webhook"
	# shellcheck disable=SC2086 # the arguments are words
	"$RENDER" render "$chart" -n $ns $all $over >"$dir/$names.yaml" 2>"$dir/err" ||
		fail "namespace $ns, names $names: the chart renders ($(cat "$dir/err"))"
	"$RENDER" json "$dir/$names.yaml" >"$dir/$names.json"
	jq -r -s --arg full $names --arg ns $ns -f "$data/references.jq" "$dir/$names.json" \
		>"$dir/refs" 2>&1
	if [ ! -s "$dir/refs" ] && [ "$(jq -s length "$dir/$names.json")" -ge 14 ]; then
		pass "namespace $ns, names $names: $(jq -s length "$dir/$names.json") objects, every reference holds"
	else
		fail "namespace $ns, names $names: every reference holds"
		sed 's/^/    /' "$dir/refs"
	fi
	check "namespace $ns, names $names: nothing names gpumend-system" \
		sh -c "! grep -n gpumend-system '$dir/$names.yaml'"
done
check "names acme: no object is named after gpumend's but the alerts' group" sh -c \
	"! grep -v '^  - name: gpumend-webhook\$' '$dir/acme.yaml' | grep -qE 'gpumend-(webhook|config|ca|selfsigned)'"
# the default release in gpumend-system beside acme's there: no name in
# common, and neither's selectors take the other's pods
# shellcheck disable=SC2086
"$RENDER" render "$chart" -n $ns $all >"$dir/first.yaml" 2>/dev/null
"$RENDER" json "$dir/first.yaml" | jq -s . >"$dir/first.json"
jq -s . "$dir/acme.json" >"$dir/second.json"
check "two releases in $ns (fullnameOverride, nameOverride): no object of the same kind and name (but the Namespace)" \
	jqq -e -n --slurpfile a "$dir/first.json" --slurpfile b "$dir/second.json" '
		def names: map(select(.kind != "Namespace") | [.kind, .metadata.name]);
		($a[0] | names) as $x | ($b[0] | names) as $y
		| ($x | length) >= 13 and ($y | length) >= 13 and $x - ($x - $y) == []'
check "two releases in $ns: neither's selectors take the other's pods" \
	jqq -e -n --slurpfile a "$dir/first.json" --slurpfile b "$dir/second.json" '
		def pods: map(select(.kind == "Deployment"))[0].spec.template.metadata.labels;
		def sels: [.[] | (.spec.selector.matchLabels? // empty), (select(.kind == "Service") | .spec.selector),
			(select(.kind == "NetworkPolicy") | .spec.podSelector.matchLabels)];
		def takes($l): to_entries | all(.[]; $l[.key] == .value);
		($a[0] | pods) as $pa | ($b[0] | pods) as $pb
		| ($a[0] | sels | length) >= 4 and ($b[0] | sels | length) >= 4
		  and ($a[0] | sels | all(.[]; takes($pb) | not)) and ($b[0] | sels | all(.[]; takes($pa) | not))'
# the registration under fullnameOverride
registration_is "names acme: the registration is what 'gpumend webhook-config --service acme-webhook --namespace $ns' prints, named acme" \
	"$dir/acme.json" acme --service acme-webhook --namespace $ns
check "namespace $ns: the Namespace object is $ns" \
	jqq -e -s "map(select(.kind == \"Namespace\")) | length == 1 and .[0].metadata.name == \"$ns\"" "$dir/gpumend.json"

# ------------------------------------------------------ the server takes them
# The arguments the Deployment gives gpumend-webhook under
# tests/chart/values/server.yaml (every option the chart passes, none at
# its default), the pod's paths made this machine's, and `--listen
# 127.0.0.1:0` after them, as extraArgs would come: the real server
# starts with them (the client CA read), gets ready, and stops.
if webhook_pair "$dir/pair"; then
	jq -r '.[] | select(.kind == "Deployment") | .spec.template.spec.containers[0].args[]' \
		"$vdir/server.json" >"$dir/server.args"
	set --
	while IFS= read -r arg; do
		case $arg in
		/tls/tls.crt) arg=$dir/pair/tls.crt ;;
		/tls/tls.key) arg=$dir/pair/tls.key ;;
		/config/config.yaml) arg=$chart/files/config.yaml ;;
		/client-ca/*) arg=$dir/pair/ca.crt ;;
		esac
		set -- "$@" "$arg"
	done <"$dir/server.args"
	n_args=$#
	if WEBHOOK_LISTEN="" webhook_start chart-args "$@" --listen 127.0.0.1:0; then
		pass "gpumend-webhook starts with the chart's $n_args arguments (server.yaml) and gets ready"
		# the first SIGTERM starts the shutdown delay (server.shutdownDelay),
		# a second one ends it
		kill -TERM "$webhook_pid"
		i=0
		while [ $i -lt 100 ] && [ "$(curl -sk --max-time 2 -o /dev/null -w '%{http_code}' \
			"$webhook_url/readyz")" = 200 ]; do
			sleep 0.05
			i=$((i + 1))
		done
		if webhook_stop; then
			pass "gpumend-webhook with the chart's arguments stops on SIGTERM, exit 0"
		else
			fail "gpumend-webhook with the chart's arguments stops on SIGTERM, exit 0 (exit $webhook_status)"
		fi
	else
		fail "gpumend-webhook starts with the chart's arguments (exit $webhook_status)"
		sed 's/^/    /' "$webhook_log" | tail -n 5
	fi
	check "gpumend-webhook with the chart's arguments logged at debug, as logLevel says" \
		grep -q '"level":"debug"' "$webhook_log"
else
	fail "gpumend certs makes a pair for the server ($(cat "$dir/pair/certs.err"))"
fi

# ------------------------------------------------------ NOTES.txt
# What `helm install` prints names the objects the chart made, under the
# defaults and under other names, namespace, certificates and network.
notes_names() {
	sed -n 's|.* deployment/\([a-z0-9-]*\).*|Deployment \1|p
		s|.* certificate/\([a-z0-9-]*\).*|Certificate \1|p
		s|.* mutatingwebhookconfiguration \([a-z0-9-]*\).*|MutatingWebhookConfiguration \1|p' "$1" | sort -u
}
for set in defaults other; do
	args="-n gpumend-system"
	[ $set = other ] && args="-n ml-infra --set fullnameOverride=acme --set image.registry=registry.example.com
		--set certificates.source=secret --set certificates.secret.caBundle=LS0tLS1CRUdJTiBDRVJU
		--set registration.failurePolicy=Ignore --set hostNetwork=true --set port=9443"
	# shellcheck disable=SC2086 # the arguments are words
	"$RENDER" notes "$chart" $args >"$dir/notes.$set" 2>"$dir/err" ||
		fail "NOTES.txt ($set) renders ($(cat "$dir/err"))"
	# shellcheck disable=SC2086
	"$RENDER" render "$chart" $args | "$RENDER" json /dev/stdin |
		jq -r '"\(.kind) \(.metadata.name)"' | sort -u >"$dir/made.$set"
	notes_names "$dir/notes.$set" >"$dir/named.$set"
	check "NOTES.txt ($set) names $(wc -l <"$dir/named.$set") objects, each one the chart made" \
		sh -c '[ "$(wc -l <"$1")" -ge 2 ] && [ -z "$(comm -23 "$1" "$2")" ]' sh "$dir/named.$set" "$dir/made.$set"
done
check "NOTES.txt (defaults): the certificate to wait for, the unset registry, Fail" sh -c "
	grep -q 'wait --for=condition=Ready certificate/gpumend-webhook-tls' '$dir/notes.defaults' &&
	grep -q 'image.registry is still set-your-registry.invalid' '$dir/notes.defaults' &&
	grep -q 'legacy GPU objects are refused' '$dir/notes.defaults' &&
	grep -q 'kube-system\$' '$dir/notes.defaults' && grep -q '^and gpumend-system,' '$dir/notes.defaults'"
check "NOTES.txt (other): ml-infra, no certificate to wait for, no warning, Ignore, the node's port" sh -c "
	grep -q 'rollout status deployment/acme-webhook' '$dir/notes.other' &&
	! grep -q 'certificate/\|WARNING' '$dir/notes.other' &&
	grep -q 'unmigrated (registration.failurePolicy=Ignore)' '$dir/notes.other' &&
	grep -q 'port 9443 of their nodes' '$dir/notes.other' && grep -q '^and ml-infra,' '$dir/notes.other'"

# ------------------------------------------------------ README.md, Chart.yaml
if python3 "$data/values_doc.py" "$chart" >"$dir/doc" 2>&1; then
	pass "README.md's table, values.yaml and values.schema.json: the same $(grep -c '^| `' "$chart/README.md") values, the same defaults"
else
	fail "README.md's table, values.yaml and values.schema.json name the same values, the same defaults"
	sed 's/^/    /' "$dir/doc"
fi
icon=$(sed -n 's|^icon: https://raw.githubusercontent.com/gpumend/gpumend/main/||p' "$chart/Chart.yaml")
check "Chart.yaml: home, sources, and an icon in the repository ($icon)" sh -c "
	grep -q '^home: https://github.com/gpumend/gpumend\$' '$chart/Chart.yaml' &&
	grep -A1 '^sources:\$' '$chart/Chart.yaml' | grep -q '^  - https://github.com/gpumend/gpumend\$' &&
	[ -n '$icon' ] && grep -q '<svg' '$REPO_DIR/$icon'"

# ------------------------------------------------------ gpumend lint
(cd "$REPO_DIR" && "$GPUMEND" lint charts/gpumend >"$dir/lint" 2>"$dir/lint.err")
rc=$?
if [ $rc = 0 ] && [ ! -s "$dir/lint" ] &&
	grep -q ' 0 with findings, .* 0 failed; 0 errors, 0 warnings, 0 info$' "$dir/lint.err"; then
	pass "gpumend lint charts/gpumend finds nothing"
else
	fail "gpumend lint charts/gpumend finds nothing (exit $rc)"
	sed 's/^/    /' "$dir/lint" "$dir/lint.err"
fi

finish chart
