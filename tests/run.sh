#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/run.sh - runs every suite: the unit tests, then tests/suites/*.sh.
# Each suite ends with "NAME: N passed, N failed, N skipped" (", N
# skipped" may be missing: none); this script adds them up, lists every
# skipped check by name with its reason, and ends with the line
# "N passed, N failed, N skipped".
#
# Under CI=true a skipped check fails the run, unless tests/skips.allow
# names it (with the reason it may be skipped there, and "sanitize" when
# only `make check` may skip it).
#
# Under the sanitizers (`make check`, GPUMEND_SANITIZE set), a suite that
# tests/skips.allow names as "SUITE: *" with "sanitize" is not run at all:
# a tool-only suite, which runs external tools over files and exercises no
# memory handling of ours that another suite does not. It is listed as
# one skipped check, "SUITE: * # REASON", so the sum says so.
#
# GPUMEND_SUITES (default tests/suites/*.sh), GPUMEND_UNIT (default
# $GPUMEND_BUILD/test_unit; empty: none) and GPUMEND_SKIPS_ALLOW (default
# tests/skips.allow) choose other suites and allowlist
# (tests/suites/runner.sh tests this script with them).
: "${GPUMEND_BUILD:=build}"
export GPUMEND_BUILD
cd "$(dirname "$0")/.." || exit 2
unit=${GPUMEND_UNIT-$GPUMEND_BUILD/test_unit}
allow=${GPUMEND_SKIPS_ALLOW:-tests/skips.allow}

total_passed=0
total_failed=0
total_skipped=0

# Under `make check`, sanitizer reports go to files (a test may hide a
# binary's stderr); any report fails the suite that produced it.
san_dir=""
if [ -n "${GPUMEND_SANITIZE:-}" ]; then
	san_dir=$(mktemp -d)
	export ASAN_OPTIONS="log_path=$san_dir/asan:detect_leaks=1:abort_on_error=0"
	export UBSAN_OPTIONS="log_path=$san_dir/ubsan:print_stacktrace=1:halt_on_error=1"
	export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0"
fi
log=$(mktemp)
skips=$(mktemp)
trap 'rm -f "$log" "$skips"; [ -n "$san_dir" ] && rm -rf "$san_dir"' EXIT
trap 'exit 130' INT TERM HUP

summary='^[A-Za-z0-9_-]+: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$'

run_suite() {
	"$@" 2>&1 | tee "$log"
	line=$(grep -E "$summary" "$log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "$*: did not finish (no summary line)"
		total_failed=$((total_failed + 1))
		return
	fi
	name=${line%%:*}
	set -- $(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\1 \2 \4/')
	total_passed=$((total_passed + $1))
	total_failed=$((total_failed + $2))
	total_skipped=$((total_skipped + ${3:-0}))
	# each skipped check: "SUITE: NAME # REASON"
	sed -n "s/^skip - /$name: /p" "$log" >>"$skips"
	n=$(grep -c '^skip - ' "$log")
	if [ "$n" != "${3:-0}" ]; then
		echo "$name: counts ${3:-0} skipped but names $n (skip - NAME # REASON)"
		total_failed=$((total_failed + 1))
	fi
	# a sanitizer report anywhere fails the suite, whatever it counted
	if grep -qE 'runtime error:|ERROR: (AddressSanitizer|LeakSanitizer)' "$log"; then
		echo "$name: sanitizer report (see above)"
		total_failed=$((total_failed + 1))
	fi
	if [ -n "$san_dir" ] && [ -n "$(ls "$san_dir")" ]; then
		for r in "$san_dir"/*; do
			echo "$name: sanitizer report $r:"
			head -n 40 "$r"
		done
		rm -f "$san_dir"/*
		total_failed=$((total_failed + 1))
	fi
}

# allowed "SUITE: NAME": tests/skips.allow holds that name, tab, a
# reason, and, when a third field says "sanitize", this is the
# sanitizers' run (make check).
allowed() {
	[ -f "$allow" ] || return 1
	awk -F '\t' -v key="$1" -v san="${GPUMEND_SANITIZE:-}" '
		/^#/ { next }
		$1 == key && $2 ~ /[^ ]/ && ($3 == "" || ($3 == "sanitize" && san != "")) { found = 1 }
		END { exit !found }' "$allow"
}

# tool_only SUITE: the reason tests/skips.allow gives for not running
# SUITE under the sanitizers (its "SUITE: *" entry, with "sanitize");
# nothing when there is none.
tool_only() {
	[ -f "$allow" ] || return 0
	awk -F '\t' -v key="$1: *" '
		!/^#/ && $1 == key && $2 ~ /[^ ]/ && $3 == "sanitize" { print $2; exit }' "$allow"
}

[ -z "$unit" ] || run_suite "$unit"
for suite in ${GPUMEND_SUITES:-tests/suites/*.sh}; do
	[ -f "$suite" ] || continue
	name=$(basename "$suite" .sh)
	why=""
	[ -z "${GPUMEND_SANITIZE:-}" ] || why=$(tool_only "$name")
	if [ -n "$why" ]; then
		echo "== $suite: not run under the sanitizers: $why"
		echo "$name: * # $why" >>"$skips"
		total_skipped=$((total_skipped + 1))
		continue
	fi
	echo "== $suite"
	run_suite sh "$suite"
done

if [ -s "$skips" ]; then
	echo "skipped ($total_skipped):"
	sed 's/^/  /' "$skips"
	if [ "${CI:-}" = true ]; then
		while IFS= read -r s; do
			key=${s%% # *}
			if ! allowed "$key"; then
				echo "CI: '$key' was skipped, and $allow does not allow it"
				total_failed=$((total_failed + 1))
			fi
		done <"$skips"
	fi
fi
echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
[ "$total_failed" -eq 0 ]
