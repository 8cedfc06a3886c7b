#!/bin/sh
# tests/run.sh - runs every suite: the unit tests, then tests/suites/*.sh.
# Each suite ends with "NAME: N passed, N failed"; this script adds them up
# and ends with the line "N passed, N failed".
: "${GPUMEND_BUILD:=build}"
export GPUMEND_BUILD
cd "$(dirname "$0")/.." || exit 2

total_passed=0
total_failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

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
}

run_suite "$GPUMEND_BUILD/test_unit"
for suite in tests/suites/*.sh; do
	[ -f "$suite" ] || continue
	echo "== $suite"
	run_suite sh "$suite"
done
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
