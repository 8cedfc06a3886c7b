#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/runner.sh - tests/run.sh itself, on suites made here: it
# adds the counts up, lists every skipped check with its reason, ends with
# "N passed, N failed, N skipped"; under CI=true a skip fails the run
# unless the allowlist names it with a reason; a suite that does not finish
# fails; under the sanitizers a suite the allowlist names as "SUITE: *"
# (sanitize) is not run, and listed as skipped. And tests/skips.allow
# gives a reason for each entry.
. "$(dirname "$0")/../lib.sh"

# not dir=$(scratch): see tests/lib.sh
scratch >/dev/null
dir=$_scratch
tab=$(printf '\t')

# suite NAME BODY: a suite in $dir/NAME.sh sourcing tests/lib.sh.
suite() {
	printf '. "%s/lib.sh"\n%s\n' "$TESTS_DIR" "$2" >"$dir/$1.sh"
}
suite alpha 'pass one; pass two; skip "the thing" "no thing here"; finish alpha'
suite beta 'pass three; skip "other" "not today"; skip "third" "nor that"; finish beta'
suite broken 'pass four; fail five; finish broken'
suite unfinished 'pass six; exit 0'
suite old 'pass seven; echo "old: 1 passed, 0 failed"'
suite tool 'pass eight; pass nine; finish tool'

# runs OUT [VAR=VALUE...] -- SUITE...: tests/run.sh on those suites (no
# unit tests; a plain run, not the sanitizers', unless VAR says so), its
# output in $dir/OUT, its status in $rc.
runs() {
	_out=$1
	shift
	_env=""
	while [ "$1" != -- ]; do
		_env="$_env $1"
		shift
	done
	shift
	_suites=""
	for _s in "$@"; do
		_suites="$_suites $dir/$_s.sh"
	done
	# shellcheck disable=SC2086
	env -u CI -u GPUMEND_SANITIZE GPUMEND_UNIT= GPUMEND_SUITES="$_suites" $_env \
		sh "$TESTS_DIR/run.sh" >"$dir/$_out" 2>&1
	rc=$?
}
last() {
	tail -n 1 "$dir/$1"
}

runs plain -- alpha beta
check "the counts added up, skips too: $(last plain)" \
	[ "$(last plain)" = "3 passed, 0 failed, 3 skipped" ]
check "a run with skips and no failure exits 0" [ "$rc" = 0 ]
check "every skipped check listed by suite, name and reason" \
	sh -c "grep -qx '  alpha: the thing # no thing here' '$dir/plain' &&
		grep -qx '  beta: other # not today' '$dir/plain' &&
		grep -qx '  beta: third # nor that' '$dir/plain' &&
		grep -qx 'skipped (3):' '$dir/plain'"

runs ci CI=true -- alpha beta
check "CI=true: a skip not in the allowlist fails the run: $(last ci)" \
	sh -c "[ '$rc' != 0 ] && [ '$(last ci)' = '3 passed, 3 failed, 3 skipped' ] &&
		grep -q \"'alpha: the thing' was skipped\" '$dir/ci'"

printf '# a comment\nalpha: the thing%sthe thing is not here\nbeta: other%snot today either\nbeta: third%s \n' \
	"$tab" "$tab" "$tab" >"$dir/allow"
runs ci-allowed CI=true GPUMEND_SKIPS_ALLOW="$dir/allow" -- alpha beta
check "CI=true: the allowlist's entries pass, one without a reason does not: $(last ci-allowed)" \
	sh -c "[ '$rc' != 0 ] && [ '$(last ci-allowed)' = '3 passed, 1 failed, 3 skipped' ] &&
		grep -q \"'beta: third' was skipped\" '$dir/ci-allowed' &&
		! grep -q \"'alpha: the thing' was skipped\" '$dir/ci-allowed'"
sed '$d' "$dir/allow" >"$dir/allow2"
printf 'beta: third%sneither\n' "$tab" >>"$dir/allow2"
runs ci-all CI=true GPUMEND_SKIPS_ALLOW="$dir/allow2" -- alpha beta
check "CI=true: every skip allowed: the run passes" \
	[ "$rc" = 0 -a "$(last ci-all)" = "3 passed, 0 failed, 3 skipped" ]

# an entry whose third field is "sanitize" allows the skip only there
printf 'alpha: the thing%sno thing here%ssanitize\nbeta: other%sreason\nbeta: third%sreason\n' \
	"$tab" "$tab" "$tab" "$tab" >"$dir/allow3"
runs ci-san-plain CI=true GPUMEND_SKIPS_ALLOW="$dir/allow3" -- alpha beta
check "CI=true: a sanitize-only entry does not allow the skip in a plain run: $(last ci-san-plain)" \
	sh -c "[ '$rc' != 0 ] && [ '$(last ci-san-plain)' = '3 passed, 1 failed, 3 skipped' ] &&
		grep -q \"'alpha: the thing' was skipped\" '$dir/ci-san-plain'"
runs ci-san CI=true GPUMEND_SANITIZE=1 GPUMEND_SKIPS_ALLOW="$dir/allow3" -- alpha beta
check "CI=true: a sanitize-only entry allows the skip under the sanitizers" \
	[ "$rc" = 0 -a "$(last ci-san)" = "3 passed, 0 failed, 3 skipped" ]

# "SUITE: *" with "sanitize": the whole suite is not run under the
# sanitizers, and says so; a plain run runs it
printf 'alpha: the thing%sreason\ntool: *%sruns tools only%ssanitize\n' \
	"$tab" "$tab" "$tab" >"$dir/allow4"
runs tool-san CI=true GPUMEND_SANITIZE=1 GPUMEND_SKIPS_ALLOW="$dir/allow4" -- alpha tool
check "sanitizers: a 'SUITE: *' suite is not run, one skip with its reason: $(last tool-san)" \
	sh -c "[ '$rc' = 0 ] && [ '$(last tool-san)' = '2 passed, 0 failed, 2 skipped' ] &&
		! grep -q '^ok - eight' '$dir/tool-san' &&
		grep -q 'tool.sh: not run under the sanitizers: runs tools only' '$dir/tool-san' &&
		grep -qx '  tool: \* # runs tools only' '$dir/tool-san'"
runs tool-plain CI=true GPUMEND_SKIPS_ALLOW="$dir/allow4" -- alpha tool
check "a plain run runs a 'SUITE: *' suite: $(last tool-plain)" \
	[ "$rc" = 0 -a "$(last tool-plain)" = "4 passed, 0 failed, 1 skipped" ]
printf 'tool: *%sno third field\n' "$tab" >"$dir/allow5"
runs tool-nosan CI=true GPUMEND_SANITIZE=1 GPUMEND_SKIPS_ALLOW="$dir/allow5" -- tool
check "sanitizers: 'SUITE: *' without 'sanitize' does not stop the suite" \
	[ "$rc" = 0 -a "$(last tool-nosan)" = "2 passed, 0 failed, 0 skipped" ]

runs fails -- alpha broken
check "a failure fails the run: $(last fails)" \
	[ "$rc" != 0 -a "$(last fails)" = "3 passed, 1 failed, 1 skipped" ]
runs unfinished -- alpha unfinished
check "a suite without its summary line fails the run: $(last unfinished)" \
	sh -c "[ '$rc' != 0 ] && [ '$(last unfinished)' = '2 passed, 1 failed, 1 skipped' ] &&
		grep -q 'did not finish' '$dir/unfinished'"
runs old -- old
check "a summary without its skipped count is read as none skipped" \
	[ "$rc" = 0 -a "$(last old)" = "1 passed, 0 failed, 0 skipped" ]

# the allowlist in the tree: each entry names a check and says why
bad=$(awk -F '\t' '!/^#/ && NF && !($1 ~ /^[A-Za-z0-9_-]+: ./ && $2 ~ /[^ ]/ && ($3 == "" || $3 == "sanitize") && NF <= 3 &&
		($1 !~ /: \*$/ || $3 == "sanitize"))' "$TESTS_DIR/skips.allow")
check "tests/skips.allow: every entry is 'SUITE: NAME<tab>reason[<tab>sanitize]', 'SUITE: *' with sanitize${bad:+: $bad}" [ -z "$bad" ]
# and each "SUITE: *" names a suite
bad=$(awk -F '\t' '!/^#/ && $1 ~ /: \*$/ { sub(/: \*$/, "", $1); print $1 }' "$TESTS_DIR/skips.allow" |
	while read -r s; do [ -f "$TESTS_DIR/suites/$s.sh" ] || printf '%s ' "$s"; done)
check "tests/skips.allow: each 'SUITE: *' is a suite in tests/suites${bad:+: not $bad}" [ -z "$bad" ]

finish runner
