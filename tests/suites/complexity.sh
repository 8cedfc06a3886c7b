#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/complexity.sh - the reviews whose cost once grew with the
# square of the input grow linearly (tests/complexity/cases.tsv).
#
# Each case is reviewed (`gpumend review`, the webhook's own code) under
# callgrind three times: the body without its repeated part (the base),
# with it n times and 2n times. The instructions of the whole process are
# counted, which gives the same figure on any machine, and
#   (cost(2n) - base) / (cost(n) - base)
# must be at most 2.2: 2 when linear, about 2.1 for n log n, 4 for n^2.
# Under `make check` callgrind cannot run the sanitizers' binaries: each
# case is a skip there (tests/skips.allow allows those under the
# sanitizers only).
. "$(dirname "$0")/../lib.sh"

tmp=$(scratch)
data="$TESTS_DIR/complexity"
max_ratio=2.2

# instructions TEMPLATE N: the instructions of `gpumend review` on the
# body of TEMPLATE repeated N times; the answer in $tmp/answer.
instructions() {
	awk -v n="$2" -f "$data/expand.awk" "$data/$1" >"$tmp/body"
	valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$GPUMEND" review "$tmp/body" >"$tmp/answer" 2>"$tmp/cg" || return 1
	sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$tmp/cg"
}

have_valgrind=1
if [ -z "${GPUMEND_SANITIZE:-}" ] && ! command -v valgrind >/dev/null 2>&1; then
	fail "valgrind is installed (make test-deps)"
	have_valgrind=0
fi

tab=$(printf '\t')
cases "$data/cases.tsv" >"$tmp/cases"
while IFS="$tab" read -r template n answer; do
	name="${template%.json}: linear (n = $n and $((2 * n)))"
	if [ -n "${GPUMEND_SANITIZE:-}" ]; then
		skip "${template%.json}: linear" "callgrind cannot run a binary built with the sanitizers"
		continue
	fi
	[ "$have_valgrind" = 1 ] || { fail "$name"; continue; }
	base=$(instructions "$template" 0) &&
		one=$(instructions "$template" "$n") &&
		jq -e "$answer" "$tmp/answer" >/dev/null 2>&1 &&
		two=$(instructions "$template" $((2 * n))) &&
		jq -e "$answer" "$tmp/answer" >/dev/null 2>&1
	if [ $? != 0 ] || [ -z "$base" ] || [ -z "$one" ] || [ -z "$two" ]; then
		fail "$name: reviewed, and the answer holds '$answer'"
		head -c 600 "$tmp/answer" | sed 's/^/    /'
		continue
	fi
	ratio=$(awk -v b="$base" -v o="$one" -v t="$two" \
		'BEGIN { if (o <= b) print "inf"; else printf "%.3f", (t - b) / (o - b) }')
	if awk -v r="$ratio" -v m="$max_ratio" 'BEGIN { exit !(r != "inf" && r <= m) }'; then
		pass "$name: ratio $ratio (base $base, n $one, 2n $two instructions)"
	else
		fail "$name: ratio $ratio > $max_ratio (base $base, n $one, 2n $two instructions)"
	fi
done <"$tmp/cases"

finish complexity
