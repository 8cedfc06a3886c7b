#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/bench/memory.sh BUILD OUT - the memory half of `make bench`: the
# peak memory (VmHWM) of gpumend-webhook for 3 MB reviews of a legacy GPU
# pod, one and four at once, each on a server of its own with --threads 4:
#   - 1,000,000 empty tolerations: over limits.maxValues, refused from
#     its skeleton (and, for the figure before the cap, with maxValues
#     raised past it);
#   - 50,000 tolerations (150,000 values, under the cap): reviewed, with
#     --memory-budget 64Mi and without a budget.
# Appends a Markdown table to OUT and prints it. Runs about 20 seconds.
set -eu
GPUMEND_BUILD=$1
OUT=$2
. "$(dirname "$0")/../lib.sh"
BUILD=$GPUMEND_BUILD
HERE=$TESTS_DIR/bench
ROOT=$REPO_DIR
work=${BENCH_DIR:-${TMPDIR:-/tmp}/gpumend-bench}/memory
mkdir -p "$work"

die() {
	echo "memory bench: $*" >&2
	exit 1
}
for t in curl jq; do
	command -v "$t" >/dev/null 2>&1 || die "$t not found"
done
. "$HERE/tools.sh"
bench_certs

review() {
	jq -c --argjson n "$1" --arg what "$2" '{apiVersion: "admission.k8s.io/v1",
		kind: "AdmissionReview", request: {uid: "memory", operation: "CREATE",
		namespace: "ml", dryRun: true, kind: {group: "", version: "v1", kind: "Pod"},
		object: (.request.object | .spec.tolerations = [range($n) | if $what == "empty"
			then {} else {key: "node.example.com/taint-\(.)", operator: "Exists"} end])}}' \
		"$HERE/review-legacy-pod.json"
}
review 1000000 empty >"$work/empty.json"
review 50000 keys >"$work/keys.json"
printf 'limits:\n  maxValues: 10000000\n' >"$work/uncapped.yaml"

WEBHOOK_DIR=$work
rows=""
# row NAME BODY COUNT ARGS...: the peak memory of a server of its own
# after COUNT copies of BODY at once, and how they were answered.
row() {
	_name=$1 _body=$2 _count=$3
	shift 3
	webhook_start memory --tls-cert "$work/certs/tls.crt" \
		--tls-key "$work/certs/tls.key" --threads 4 "$@" ||
		die "the webhook does not start: $(tail -n 3 "$work/memory.log")"
	_i=0 _pids=""
	while [ $_i -lt "$_count" ]; do
		_i=$((_i + 1))
		curl -sk -o "$work/answer$_i.json" -H 'Content-Type: application/json' \
			--data-binary "@$_body" "$webhook_url/mutate" &
		_pids="$_pids $!"
	done
	# shellcheck disable=SC2086
	wait $_pids
	_hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$webhook_pid/status")
	_how=$(cat "$work"/answer*.json | jq -r '.response |
		if .patch then "reviewed" elif ((.warnings // [])[0] // "" | contains("overloaded"))
		then "overloaded" elif ((.warnings // [])[0] // "" | contains("maxValues"))
		then "over maxValues" else "other" end' | sort | uniq -c |
		awk '{ n = $1; sub(/^ *[0-9]+ /, ""); printf "%s%s %s", (NR > 1 ? ", " : ""), n, $0 }')
	_budget=$(sed -n 's/.*"memory_budget":\([0-9]*\).*/\1/p' "$work/memory.log" | head -n 1)
	webhook_stop
	rm -f "$work"/answer*.json
	rows="$rows
| $_name | $_count | $(echo "$*" | sed "s|$work/||") | $((_budget / 1048576)) MiB | $(awk -v k="$_hwm" 'BEGIN { printf "%.1f MB", k / 1024 }') | $_how |"
}
row "1,000,000 empty tolerations, maxValues 10,000,000 (no cap)" "$work/empty.json" 1 \
	--memory-budget 0 -c "$work/uncapped.yaml"
row "1,000,000 empty tolerations" "$work/empty.json" 1
row "1,000,000 empty tolerations" "$work/empty.json" 4
row "50,000 tolerations (150,000 values)" "$work/keys.json" 1 --memory-budget 0
row "50,000 tolerations (150,000 values)" "$work/keys.json" 4 --memory-budget 0
row "50,000 tolerations (150,000 values)" "$work/keys.json" 4 --memory-budget 64Mi

{
	echo "### Webhook memory: large reviews"
	echo
	echo "Peak memory (VmHWM) of gpumend-webhook --threads 4 over the reviews"
	echo "of a legacy GPU pod of $(($(wc -c <"$work/empty.json") / 1000)) KB (1,000,000 empty tolerations) or"
	echo "$(($(wc -c <"$work/keys.json") / 1000)) KB (50,000 tolerations), sent at once; a server of its own"
	echo "for each row. Default limits.maxValues 250,000; default memory budget"
	echo "half the cgroup's memory limit (1 GiB without one; 0: none)."
	echo
	echo "| review | at once | server arguments | memory budget | peak memory | answers |"
	echo "|---|---:|---|---:|---:|---|$rows"
	echo
} | tee -a "$OUT"
