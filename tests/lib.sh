# tests/lib.sh - shared by the shell test suites (sourced, POSIX sh).
#
# A suite sources this file, calls pass/fail (or check) once per test, and
# ends with `finish NAME`, which prints "NAME: N passed, N failed" and sets
# the exit status. Binaries are in $GPUMEND_BUILD (default: build).

: "${GPUMEND_BUILD:=build}"
case "$GPUMEND_BUILD" in /*) ;; *) GPUMEND_BUILD="$(pwd)/$GPUMEND_BUILD" ;; esac
GPUMEND="$GPUMEND_BUILD/gpumend"
GPUMEND_WEBHOOK="$GPUMEND_BUILD/gpumend-webhook"
TESTS_DIR="$(cd "$(dirname "$0")/.." && pwd)"
REPO_DIR="$(cd "$TESTS_DIR/.." && pwd)"
export GPUMEND_BUILD GPUMEND GPUMEND_WEBHOOK TESTS_DIR REPO_DIR

_passed=0
_failed=0

pass() { _passed=$((_passed + 1)); echo "ok - $*"; }
fail() { _failed=$((_failed + 1)); echo "not ok - $*"; }

# check "description" command...: passes when the command exits 0.
check() {
	_desc=$1; shift
	if "$@"; then pass "$_desc"; else fail "$_desc"; fi
}

# Scratch space: every directory scratch() makes lives under one root that
# the suite's own shell removes at exit (scratch may run in a subshell, as
# in tmp=$(scratch), so the cleanup cannot be set up there).
_scratch_root=$(mktemp -d "${TMPDIR:-/tmp}/gpumend-test.XXXXXX")
trap 'rm -rf "$_scratch_root"' EXIT
scratch() {
	_scratch=$(mktemp -d "$_scratch_root/s.XXXXXX")
	echo "$_scratch"
}

finish() {
	echo "$1: $_passed passed, $_failed failed"
	[ "$_failed" -eq 0 ]
}
