#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
#
# tests/suites/reuse.sh - every file says its licence: `reuse lint`
# (Debian's reuse, from the Makefile's test-deps) passes on the tree, with
# each file it finds lacking named; LICENSE is the Apache-2.0 text that
# LICENSES/ holds; tests/tools/spdx-headers.sh knows a comment syntax for
# every file and is idempotent (run twice on a copy of the tree, the
# second run changes nothing).
. "$(dirname "$0")/../lib.sh"
cd "$REPO_DIR" || exit 2

if ! command -v reuse >/dev/null 2>&1; then
	fail "reuse lint: reuse is not installed (make test-deps installs it)"
else
	out=$(reuse lint 2>&1)
	rc=$?
	if [ "$rc" = 0 ]; then
		pass "reuse lint: every file has its copyright and licence"
	else
		# the files reuse found lacking (its lists' items; the summary's
		# items end in a colon or hold one): their number, the first 20
		gaps=$(scratch)/gaps
		printf '%s\n' "$out" | sed -n 's/^\* //p' | grep -v ':' >"$gaps"
		fail "reuse lint exits $rc; $(wc -l <"$gaps") files lack copyright or licence, such as: $(head -n 20 "$gaps" | tr '\n' ' ')(tests/tools/spdx-headers.sh adds them)"
		printf '%s\n' "$out" | sed -n '/^# SUMMARY/,$p' | sed 's/^/  /'
	fi
fi

check "LICENSE is LICENSES/Apache-2.0.txt, the Apache License 2.0" \
	sh -c 'cmp -s LICENSE LICENSES/Apache-2.0.txt &&
		grep -q "Apache License" LICENSE && grep -q "Version 2.0, January 2004" LICENSE'

# the header script on a copy of the tracked files: no file it does not
# know, and a second run is a no-op
copy=$(scratch)/tree
mkdir -p "$copy"
git ls-files -z | xargs -0 cp --parents -t "$copy" 2>/dev/null
if (cd "$copy" && git init -q && git add -A) >/dev/null 2>&1; then
	first=$(sh "$copy/tests/tools/spdx-headers.sh" 2>&1)
	rc=$?
	check "spdx-headers.sh knows how to comment every file${first:+ (changed or refused: $(printf '%s' "$first" | wc -l) files)}" \
		[ "$rc" = 0 ]
	second=$(sh "$copy/tests/tools/spdx-headers.sh" 2>&1)
	check "spdx-headers.sh run twice: the second run changes nothing${second:+ (it changed: $second)}" \
		[ -z "$second" ]
	if command -v reuse >/dev/null 2>&1; then
		check "reuse lint passes on the copy after spdx-headers.sh" \
			sh -c "cd '$copy' && git add -A && reuse lint >/dev/null 2>&1"
	fi
else
	fail "cannot make a git copy of the tree in $copy"
fi

finish reuse
