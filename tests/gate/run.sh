#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/gate/run.sh BUILD - `make gate`: proves the registration's
# matchConditions against the engine on objects nobody wrote
# (docs/webhook.md, "How the registration is proven"). `celcheck gate`
# (tests/cel/gate*.go, built by tests/tools/get.sh) makes GATE_COUNT
# objects (default 100,000) from GATE_SEED (default: from the clock),
# evaluates the conditions of `BUILD/gpumend webhook-config` for each as
# the API server does, and compares with `BUILD/gpumend review --batch
# --entry`; the committed regression cases (tests/gate/regressions/*/)
# are judged again first. Each failing object is written as a regression
# case under GATE_OUT (default BUILD/gate). Prints the seed, the count,
# the time and the CI minutes; exits 0 when nothing failed.
set -u
cd "$(dirname "$0")/../.."
build=${1:-build}
t0=$(date +%s)
gpumend="$build/gpumend"
[ -x "$gpumend" ] || { echo "gate: error: no $gpumend (make first)" >&2; exit 2; }
celcheck=$(sh tests/tools/get.sh celcheck) || { echo "gate: error: no celcheck (tests/tools/get.sh, above)" >&2; exit 2; }
out=${GATE_OUT:-$build/gate}
rm -rf "$out"
rc=0
cases=$(ls -d tests/gate/regressions/*/ 2>/dev/null)
if [ -n "$cases" ]; then
	# shellcheck disable=SC2086 # the case folders are words
	"$celcheck" gate -gpumend "$gpumend" -classes tests/gate/classes.tsv -replay $cases |
		grep -v '^gate: ok ' || true
	# shellcheck disable=SC2086
	"$celcheck" gate -gpumend "$gpumend" -classes tests/gate/classes.tsv -replay $cases >/dev/null ||
		rc=1
	echo "gate: $(echo "$cases" | wc -l) regression cases of tests/gate/regressions judged again"
fi
"$celcheck" gate -gpumend "$gpumend" -classes tests/gate/classes.tsv -out "$out" \
	${GATE_SEED:+-seed "$GATE_SEED"} -count "${GATE_COUNT:-100000}" || rc=$?
t=$(($(date +%s) - t0))
echo "gate: make gate took $t s, celcheck's fetch and build included: $(awk -v t="$t" 'BEGIN { printf "%.1f", t / 60 }') CI minutes"
exit "$rc"
