#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/gate.sh - the gate of `make gate` (tests/gate/run.sh,
# tests/cel/gate*.go, docs/webhook.md "How the registration is proven")
# on a few thousand objects of a fixed seed, so that `make test` runs its
# generator and `gpumend review --batch` (under the sanitizers too, in
# `make check`): every kind and config made, both entries exercised, the
# same objects from the same seed, each failing object written as a
# regression case that fails again when judged again; the committed
# regression cases (tests/gate/regressions/*/) pass; the classes of
# over-approximation of tests/gate/classes.tsv are those docs/webhook.md
# lists, and each is seen.
. "$(dirname "$0")/../lib.sh"

scratch >/dev/null
dir=$_scratch
classes="$TESTS_DIR/gate/classes.tsv"
count=3000

if ! celcheck=$(tool celcheck); then
	fail "gate: no celcheck (tests/tools/get.sh, above)"
	finish gate
	exit 1
fi

# the classes: tests/gate/classes.tsv and the table of docs/webhook.md
sed -e '/^#/d' -e '/^$/d' "$classes" | cut -f1 | sort >"$dir/classes.tsv"
sed -n '/^### Over-approximations/,/^##/p' "$REPO_DIR/docs/webhook.md" |
	sed -n 's/^| `\([a-z-]*\)` |.*/\1/p' | sort >"$dir/classes.doc"
check "classes: docs/webhook.md lists exactly those of tests/gate/classes.tsv ($(wc -l <"$dir/classes.tsv"))" \
	sh -c "[ -s '$dir/classes.tsv' ] && cmp -s '$dir/classes.tsv' '$dir/classes.doc'"
diff "$dir/classes.tsv" "$dir/classes.doc" | sed -n 's/^[<>]/    &/p'

# the run: 3 configs of 1,000 objects (default, all deny, random)
"$celcheck" gate -gpumend "$GPUMEND" -seed 1 -count "$count" -per-config 1000 \
	-classes "$classes" -out "$dir/cases" -minimize-for 0s -q >"$dir/run.out" 2>"$dir/run.err"
rc=$?
sed -n 's/^gate: \(seed\|configs\|legacy\|advisory\|[0-9]* objects with\|failures\|over\)/# &/p' "$dir/run.out"
check "gate: the run ends with its verdict, exit 0 or 1 ($rc)" \
	sh -c "[ $rc -le 1 ] && grep -q '^gate: failures: ' '$dir/run.out'"
sed 's/^/    /' "$dir/run.err"
summary=$(grep '^gate: seed 1: ' "$dir/run.out")
check "gate: $count objects, CREATE and UPDATE, with nulls, wrong types and empty members, and plain ones" \
	sh -c "printf '%s\n' '$summary' | grep -qE '^gate: seed 1: $count objects \([1-9][0-9]* CREATE, [1-9][0-9]* UPDATE; .* [1-9][0-9]* with nulls' &&
		grep -qE '^gate: [1-9][0-9]* objects with no legacy construct' '$dir/run.out'"
# every row of the pod-shape table, a kind no entry registers, and the
# custom resource of the random configs when one has it
n_kinds=$("$celcheck" gate -gpumend "$GPUMEND" -kinds | cut -f1,2 | sort -u | grep -vc '^example.com	')
made=$(printf '%s\n' "$summary" | sed -n 's/.*; \([0-9]*\) kinds;.*/\1/p')
check "gate: every kind the generator makes ($made of $n_kinds)" [ "${made:-0}" -ge "$n_kinds" ]
check "gate: under the default config, all deny, and random modes" \
	grep -q '^gate: configs: 1 default, 1 all deny, 1 random$' "$dir/run.out"
for e in legacy advisory; do
	check "gate: $e.gpumend.io acts on some objects and matches some" \
		grep -qE "^gate: $e.gpumend.io: acts on [1-9][0-9]*, matched [1-9]" "$dir/run.out"
done
while read -r class; do
	check "gate: the over-approximation $class is made and counted" \
		grep -qE "^gate: over-approximation $class \((legacy|advisory)\): [1-9]" "$dir/run.out"
done <"$dir/classes.tsv"

# the same seed makes the same objects, whatever else runs
for i in 1 2; do
	"$celcheck" gate -gpumend "$GPUMEND" -seed 7 -count 200 -per-config 100 -classes "$classes" -q |
		sed 's/ in [0-9.]* s$//' >"$dir/same.$i"
done
check "gate: the same seed, the same run" sh -c "[ -s '$dir/same.1' ] && cmp -s '$dir/same.1' '$dir/same.2'"

# each failing object the run wrote fails again, alike
n_cases=$(ls "$dir/cases" 2>/dev/null | wc -l)
if [ "$n_cases" -gt 0 ]; then
	"$celcheck" gate -gpumend "$GPUMEND" -classes "$classes" -replay "$dir"/cases/*/ >"$dir/replay.out" 2>&1
fi
n_again=$(grep -c '^gate: FAIL ' "$dir/replay.out" 2>/dev/null)
n_ok=$(grep -c '^gate: ok ' "$dir/replay.out" 2>/dev/null)
check "gate: each of the $n_cases regression cases written fails again when judged again" \
	sh -c "[ '${n_ok:-0}' = 0 ] && ! grep -q '^gate: ERROR' '$dir/replay.out' 2>/dev/null &&
		[ \$(grep '^gate: FAIL ' '$dir/replay.out' 2>/dev/null | cut -d: -f2 | sort -u | wc -l) = $n_cases ]"
: "$n_again"

# the committed regression cases pass
n_committed=0
for c in "$TESTS_DIR"/gate/regressions/*/; do
	[ -d "$c" ] || continue
	n_committed=$((n_committed + 1))
	if "$celcheck" gate -gpumend "$GPUMEND" -classes "$classes" -replay "$c" >"$dir/one.out" 2>&1; then
		pass "gate: regression $(basename "$c")"
	else
		fail "gate: regression $(basename "$c")"
		sed 's/^/    /' "$dir/one.out"
	fi
done
echo "# $n_committed committed regression cases"

finish gate
