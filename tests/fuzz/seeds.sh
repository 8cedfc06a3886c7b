#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/fuzz/seeds.sh - builds the seed corpora of the fuzz targets.
#
#   sh tests/fuzz/seeds.sh OUTDIR SEED_TOOL
#
# Writes OUTDIR/<target>/ for admission, migrate, lint, config, pem and
# template
# (emptied first) from the repository's own examples: the golden inputs
# and configs, the example manifests, the webhook's test reviews; the
# golden manifests again, each object wrapped as AdmissionReviews (with
# jq); certificate and key pairs made with openssl. SEED_TOOL is the
# tests/fuzz/seed_tool.c binary (YAML documents to JSON, the default
# config). Run from the top of the repository.
set -eu

if [ $# -ne 2 ]; then
	echo "usage: seeds.sh OUTDIR SEED_TOOL" >&2
	exit 2
fi
out=$1
tool=$2
for t in admission migrate lint config pem template; do
	rm -rf "$out/$t"
	mkdir -p "$out/$t"
done

# --------------------------------------------------- migrate and lint
# name_of PATH: a file name for the seed made from PATH.
name_of() { echo "$1" | sed -e 's|^tests/||' -e 's|/|_|g'; }

manifests=$(ls tests/golden/*/input.* examples/*.yaml tests/e2e/data/*.yaml \
	tests/webhook/*.yaml tests/webhook/legacy-pod.json \
	tests/webhook/modern-pod.json manifests/base/*.yaml 2>/dev/null)
for f in $manifests; do
	cp "$f" "$out/migrate/$(name_of "$f")"
	cp "$f" "$out/lint/$(name_of "$f")"
done

# ----------------------------------------------------------- template
# the chart cases' templates, and the golden manifests (templates without
# actions)
for f in tests/helm/*/input/templates/* tests/golden/*/input.yaml; do
	[ -f "$f" ] && cp "$f" "$out/template/$(name_of "$f")"
done

# ---------------------------------------------------------- admission
for f in tests/webhook/admission-review.json tests/bench/review-*.json; do
	[ -f "$f" ] && cp "$f" "$out/admission/$(name_of "$f")"
done
printf '' >"$out/admission/empty"
printf '{}' >"$out/admission/object"
printf '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"operation":"CREATE"}}' \
	>"$out/admission/no-uid"

# Each object becomes a CREATE review (v1, namespace default); the first
# object of each file also a v1beta1 dry-run CREATE in namespace research
# and an UPDATE.
reviews='
def review($v; $op; $ns; $dry):
	{apiVersion: $v, kind: "AdmissionReview",
	 request: {uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
		kind: {group: "", version: "v1", kind: (.kind // "Pod")},
		resource: {group: "", version: "v1", resource: "pods"},
		namespace: $ns, operation: $op, dryRun: $dry,
		userInfo: {username: "admin"},
		object: ., oldObject: (if $op == "CREATE" then null else . end)}};
to_entries[]
| .key as $i | .value
| review("admission.k8s.io/v1"; "CREATE"; "default"; false),
  (select($i == 0) | review("admission.k8s.io/v1beta1"; "CREATE"; "research"; true),
		     review("admission.k8s.io/v1"; "UPDATE"; "default"; false))'
docs=$(mktemp)
# shellcheck disable=SC2086
"$tool" json $manifests >"$docs" 2>/dev/null
set -- $manifests
while IFS= read -r objects; do
	base=$(name_of "$1")
	shift
	printf '%s\n' "$objects" | jq -c "$reviews" | {
		i=0
		while IFS= read -r review; do
			printf '%s\n' "$review" >"$out/admission/$base-$i.json"
			i=$((i + 1))
		done
	}
done <"$docs"
rm -f "$docs"

# ------------------------------------------------------------- config
for f in tests/golden/*/config.yaml; do
	cp "$f" "$out/config/$(name_of "$f")"
done
"$tool" config >"$out/config/default.yaml"
printf '' >"$out/config/empty.yaml"
cat >"$out/config/everything.yaml" <<'EOF'
rules:
  deprecated-workload-api: off
  legacy-gpu-resource: {mode: deny}
  gpu-visibility: mutate
  removed-gpu-feature-gate: deny
resources:
  legacyGPU: example.com/old-gpu
  gpu: example.com/gpu
  sharedGPU: example.com/gpu
  gpuMemory: example.com/mem
labels: {legacyGPUName: old/name, gpuProduct: new/product, sharingStrategy: s/t}
sharing:
  strategy: hami
  memoryResources: {a.io/mem: MiB, b.io/mem: GiB}
  countResources: [c.io/count]
  nodeSelectors: {share: "yes"}
  schedulerNames: []
  staleAnnotationPrefixes: [OLD_]
  label: x/sharing
  memoryAnnotation: x/memory
hostPaths:
  obsolete: ["/opt/nvidia/*"]
  ambiguous: []
  ambiguousMountPaths: ["*"]
visibility: {images: ["*"]}
models:
  annotation: x/models
  namespaces: {default: ["Tesla K80"], research: [A100]}
annotations: {skip: x/skip, skipRules: x/skip-rules, mutations: x/mut}
limits: {maxDocumentBytes: 1024, maxDepth: 4, maxAliasNodes: 1}
webhook: {failurePolicy: deny}
EOF

# ---------------------------------------------------------------- pem
if command -v openssl >/dev/null 2>&1; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	san="subjectAltName=DNS:gpumend,DNS:gpumend.default,DNS:gpumend.default.svc,DNS:gpumend.default.svc.cluster.local,IP:127.0.0.1,IP:::1"
	# selfsigned NAME KEYOPTS...: a self-signed serving pair.
	selfsigned() {
		name=$1
		shift
		openssl req -x509 -nodes -days 30 -subj "/CN=gpumend" \
			-addext "$san" -addext "extendedKeyUsage=serverAuth" \
			"$@" -keyout "$tmp/$name.key" -out "$tmp/$name.crt" \
			>/dev/null 2>&1
	}
	# pair NAME CERT KEY: the seed "CERT\n--key--\nKEY".
	pair() {
		{ cat "$2"; printf -- '--key--\n'; cat "$3"; } >"$out/pem/$1"
	}
	selfsigned ec -newkey ec -pkeyopt ec_paramgen_curve:P-256
	selfsigned rsa -newkey rsa:2048
	selfsigned ed25519 -newkey ed25519 || true
	pair ec "$tmp/ec.crt" "$tmp/ec.key"
	pair rsa "$tmp/rsa.crt" "$tmp/rsa.key"
	[ -s "$tmp/ed25519.crt" ] && pair ed25519 "$tmp/ed25519.crt" "$tmp/ed25519.key"
	pair mismatched "$tmp/ec.crt" "$tmp/rsa.key"
	cat "$tmp/ec.crt" "$tmp/ec.key" >"$out/pem/bundle"
	openssl x509 -in "$tmp/rsa.crt" -outform DER -out "$tmp/rsa.der" 2>/dev/null
	pair der "$tmp/rsa.der" "$tmp/rsa.key"
	openssl rsa -in "$tmp/rsa.key" -traditional -out "$tmp/rsa1.key" \
		>/dev/null 2>&1 && pair rsa-pkcs1 "$tmp/rsa.crt" "$tmp/rsa1.key"
	openssl ec -in "$tmp/ec.key" -out "$tmp/sec1.key" >/dev/null 2>&1 &&
		pair ec-sec1 "$tmp/ec.crt" "$tmp/sec1.key"
	openssl pkey -in "$tmp/ec.key" -aes256 -passout pass:fuzz \
		-out "$tmp/enc.key" >/dev/null 2>&1 &&
		pair encrypted "$tmp/ec.crt" "$tmp/enc.key"
	# a chain: a serving certificate signed by a CA
	printf '%s\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' \
		"$san" >"$tmp/ext"
	openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-384 \
		-subj "/CN=gpumend.default.svc" -keyout "$tmp/leaf.key" \
		-out "$tmp/leaf.csr" >/dev/null 2>&1
	openssl x509 -req -in "$tmp/leaf.csr" -CA "$tmp/ec.crt" \
		-CAkey "$tmp/ec.key" -CAcreateserial -days 30 \
		-extfile "$tmp/ext" -out "$tmp/leaf.crt" >/dev/null 2>&1
	cat "$tmp/leaf.crt" "$tmp/ec.crt" >"$tmp/chain.crt"
	pair chain "$tmp/chain.crt" "$tmp/leaf.key"
	pair chain-ca "$tmp/leaf.crt" "$tmp/ec.crt"
fi
printf -- '--key--\n' >"$out/pem/separator-only"

for t in admission migrate lint config pem template; do
	echo "seeds: $t: $(ls "$out/$t" | wc -l) files"
done
