#!/bin/sh
# tests/run.sh - runs every suite: the unit tests, then tests/suites/*.sh.
# Each suite ends with "NAME: N passed, N failed"; this script adds them up
# and ends with the line "N passed, N failed".
: "${GPUMEND_BUILD:=build}"
export GPUMEND_BUILD
cd "$(dirname "$0")/.." || exit 2

total_passed=0
total_failed=0

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
trap 'rm -f "$log"; [ -n "$san_dir" ] && rm -rf "$san_dir"' EXIT

run_suite() {
	"$@" 2>&1 | tee "$log"
	line=$(grep -E '^[A-Za-z0-9_-]+: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "$*: did not finish (no summary line)"
		total_failed=$((total_failed + 1))
		return
	fi
	p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1/')
	f=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\2/')
	total_passed=$((total_passed + p))
	total_failed=$((total_failed + f))
	# a sanitizer report anywhere fails the suite, whatever it counted
	if grep -qE 'runtime error:|ERROR: (AddressSanitizer|LeakSanitizer)' "$log"; then
		echo "$*: sanitizer report (see above)"
		total_failed=$((total_failed + 1))
	fi
	if [ -n "$san_dir" ] && [ -n "$(ls "$san_dir")" ]; then
		for r in "$san_dir"/*; do
			echo "$*: sanitizer report $r:"
			head -n 40 "$r"
		done
		rm -f "$san_dir"/*
		total_failed=$((total_failed + 1))
	fi
}

run_suite "$GPUMEND_BUILD/test_unit"
for suite in tests/suites/*.sh; do
	[ -f "$suite" ] || continue
	echo "== $suite"
	run_suite sh "$suite"
done
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
