#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/schema.sh - every Kubernetes object the project ships is
# valid against the Kubernetes 1.36 OpenAPI schema (issue #29): each
# kustomization under manifests/ as kustomize builds it, examples/ as
# shipped and as `gpumend migrate` writes them (also with --target dra,
# and the golden outputs of tests/golden/dra/), and the webhook
# registration (`gpumend webhook-config -o json`, or tests/cel's sample
# until it exists). tests/schema/validate.mjs runs npm's kubernetes-models
# validators (types, enums, formats, required fields) and checks unknown
# fields itself; its known answers (tests/schema/cases/*.yaml, each
# saying "# want: VERDICT") run first.
. "$(dirname "$0")/../lib.sh"

# not dir=$(scratch): the subshell's exit trap would remove it at once
scratch >/dev/null
dir=$_scratch
schema="$TESTS_DIR/schema"

if ! command -v node >/dev/null 2>&1; then
	fail "schema: no node (make test-deps installs Debian's nodejs)"
	finish schema
	exit 1
fi
echo "# node $(node --version)"
if ! modules=$(tool k8s-schemas); then
	fail "schema: no validators (tests/tools/get.sh k8s-schemas, above)"
	finish schema
	exit 1
fi

# validate FILE...: validate.mjs over the FILEs, its report in
# $dir/report; its exit status.
validate() {
	node "$schema/validate.mjs" "$modules" "$@" >"$dir/report" 2>&1
}

# ------------------------------------------------------------------
# known answers

n=0
for f in "$schema"/cases/*.yaml; do
	n=$((n + 1))
	name=$(basename "$f" .yaml)
	want=$(sed -n 's/^# want: //p' "$f")
	validate "$f"
	got=$(cut -d' ' -f1 "$dir/report" | sort -u | tr '\n' ' ')
	if [ "$got" = "$want " ]; then
		pass "validate.mjs: $name ($want)"
	else
		fail "validate.mjs: $name: ${got:-nothing}, not $want"
		sed 's/^/    /' "$dir/report"
	fi
done
check "validate.mjs: the known answers ran ($n cases)" [ "$n" -ge 8 ]

# judge WHAT FILE...: one check: every object of the FILEs is valid.
judge() {
	_what=$1
	shift
	if validate "$@"; then
		pass "$_what: $(grep -c '^ok ' "$dir/report") objects valid"
	else
		fail "$_what"
		grep -v '^ok ' "$dir/report" | sed "s|$dir/||g; s/^/    /"
	fi
}

# ------------------------------------------------------------------
# manifests/: every kustomization, built as a user builds it (in a copy:
# the self-signed overlay needs certificates, and none are committed)

if ! kustomize=$(tool kustomize); then
	fail "schema: no kustomize (tests/tools/get.sh, above)"
	finish schema
	exit 1
fi
cp -R "$REPO_DIR/manifests" "$dir/manifests"
"$GPUMEND" certs --service gpumend-webhook --namespace gpumend-system \
	--out "$dir/manifests/overlays/self-signed/tls" >/dev/null 2>"$dir/certs.err" ||
	fail "schema: gpumend certs for the self-signed overlay ($(cat "$dir/certs.err"))"
n=0
for k in $(cd "$dir/manifests" && find . -name kustomization.yaml | sort); do
	k=${k#./}
	kdir=$(dirname "$k")
	n=$((n + 1))
	out="$dir/built-$n.yaml"
	if "$kustomize" build "$dir/manifests/$kdir" >"$out" 2>"$dir/kustomize.err"; then
		judge "manifests/$kdir (kustomize build)" "$out"
	else
		fail "manifests/$kdir: kustomize build fails"
		sed 's/^/    /' "$dir/kustomize.err"
	fi
done
check "manifests: the kustomizations were built ($n)" [ "$n" -ge 3 ]

# ------------------------------------------------------------------
# examples/, as shipped and as migrated

judge "examples/ as shipped" "$REPO_DIR"/examples/*.yaml
mkdir -p "$dir/migrated"
for f in "$REPO_DIR"/examples/*.yaml; do
	"$GPUMEND" migrate <"$f" >"$dir/migrated/$(basename "$f")" 2>"$dir/migrate.err" ||
		fail "gpumend migrate $(basename "$f") fails ($(cat "$dir/migrate.err"))"
done
judge "examples/ as gpumend migrate writes them" "$dir"/migrated/*.yaml
# --target dra: what it writes where it writes (a sharing or Kepler
# example is an error there, and leaves nothing to validate)
mkdir -p "$dir/dra"
for f in "$REPO_DIR"/examples/*.yaml; do
	"$GPUMEND" migrate -q --target dra <"$f" >"$dir/dra/$(basename "$f")" 2>/dev/null ||
		rm -f "$dir/dra/$(basename "$f")"
done
judge "examples/ as gpumend migrate --target dra writes them" "$dir"/dra/*.yaml

# ------------------------------------------------------------------
# what `gpumend migrate --target dra` writes: the golden outputs of
# tests/golden/dra/ (resource.k8s.io/v1 ResourceClaimTemplates, pods with
# resourceClaims); a custom resource has no schema here, its templates do

set --
for f in "$TESTS_DIR"/golden/dra/*/expected.yaml "$TESTS_DIR"/golden/dra/*/expected.json; do
	[ -f "$f" ] && set -- "$@" "$f"
done
check "tests/golden/dra: expected outputs to validate ($#)" [ "$#" -ge 8 ]
validate "$@"
templates=$(grep -c '^ok .* ResourceClaimTemplate$' "$dir/report")
if grep -v '^ok ' "$dir/report" | grep -v '^noschema .* kubeflow.org/v1 PyTorchJob$' >"$dir/bad"; then
	fail "tests/golden/dra: gpumend migrate --target dra writes invalid objects"
	sed "s|$TESTS_DIR/||g; s/^/    /" "$dir/bad"
else
	pass "tests/golden/dra: $(grep -c '^ok ' "$dir/report") objects valid, $templates of them ResourceClaimTemplates"
fi
check "tests/golden/dra: the templates were validated ($templates)" [ "$templates" -ge 10 ]

# ------------------------------------------------------------------
# the webhook registration

if "$GPUMEND" webhook-config -o json >"$dir/registration.json" 2>"$dir/reg.err"; then
	judge "gpumend webhook-config -o json" "$dir/registration.json"
elif grep -q "'webhook-config' is not a gpumend command" "$dir/reg.err"; then
	jq -n -f "$TESTS_DIR/cel/sample-webhook-config.jq" >"$dir/registration.json"
	judge "the sample registration (tests/cel/sample-webhook-config.jq; no gpumend webhook-config yet)" \
		"$dir/registration.json"
else
	fail "gpumend webhook-config -o json fails"
	sed 's/^/    /' "$dir/reg.err"
fi

finish schema
