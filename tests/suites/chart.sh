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
#                           manifests/cases/NAME), with the certificates
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
#   - the registration is what `gpumend webhook-config` prints for the
#     same choices, for each line of tests/chart/registrations.tsv;
#   - another namespace: every object is in it, nothing names
#     gpumend-system;
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
check "the chart was compared with the overlays ($n cases)" [ "$n" -ge 5 ]

# ------------------------------------------------------ refused values
while IFS=$tab read -r name args where; do
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
	"$RENDER" json "$dir/reg.yaml" | jq -S 'select(.kind == "MutatingWebhookConfiguration") |
		del(.metadata.labels, .metadata.annotations)' >"$dir/reg.got"
	# shellcheck disable=SC2086
	"$GPUMEND" webhook-config $want -o json 2>/dev/null |
		jq -S 'del(.metadata.labels, .metadata.annotations)' >"$dir/reg.want"
	if [ -s "$dir/reg.got" ] && diff -u "$dir/reg.want" "$dir/reg.got" >"$dir/d"; then
		pass "registration $name: what 'gpumend webhook-config${want:+ $want}' prints"
	else
		fail "registration $name: what 'gpumend webhook-config${want:+ $want}' prints"
		sed 's/^/    /' "$dir/d" | head -n 40
	fi
done <<EOF_REGISTRATIONS
$(cases "$data/registrations.tsv")
EOF_REGISTRATIONS

# ------------------------------------------------------ another namespace
ns=ml-infra
"$RENDER" render "$chart" -n $ns --set namespace.create=true \
	--set monitoring.serviceMonitor.enabled=true \
	--set monitoring.prometheusRule.enabled=true >"$dir/ns.yaml" 2>"$dir/err" ||
	fail "namespace $ns: the chart renders ($(cat "$dir/err"))"
"$RENDER" json "$dir/ns.yaml" >"$dir/ns.json"
check "namespace $ns: every namespaced object is in $ns" sh -c "jq -e -s '
	map(select(.kind != \"Namespace\" and .kind != \"MutatingWebhookConfiguration\"))
	| length > 0 and all(.metadata.namespace == \"$ns\")' '$dir/ns.json' >/dev/null"
check "namespace $ns: nothing names gpumend-system" sh -c "! grep -q gpumend-system '$dir/ns.yaml'"
check "namespace $ns: the certificate names the Service in $ns" \
	grep -q "^    - gpumend-webhook.$ns.svc\$" "$dir/ns.yaml"

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
