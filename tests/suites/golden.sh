#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/golden.sh - the golden cases: one folder per case under
# tests/golden/, holding
#   input.yaml | input.yml | input.json   the manifest
#   config.yaml        (optional) passed as -c
#   expected.<ext>     what `gpumend migrate` must write (same extension)
#   expected.lint      what `gpumend lint` must print (text format)
#   expected.exit      (optional) migrate's exit status, default 0
#   expected.stderr    (optional) what migrate must print on stderr
# For each case: the migrated output, its exit status and stderr; migrating
# the expected output again changes nothing (idempotence); lint's findings
# and exit status; and, for single-document inputs, the engine's JSON Patch
# applied by kubectl (the API server's patch library) gives the same object
# as the migrated file.
# The cases under tests/golden/dra/ run with --target dra (docs/dra.md); their
# JSON Patch is not checked (the templates are new documents).
# GOLDEN_UPDATE=1 writes the expected files from the current output instead.
. "$(dirname "$0")/../lib.sh"

tmp=$(scratch)
# the kubectl of the project's set-up; without it each patch check fails
kubectl=$(tool kubectl) || kubectl=""

for dir in "$TESTS_DIR"/golden/*/ "$TESTS_DIR"/golden/dra/*/; do
	name=$(basename "$dir")
	target=""
	case $dir in
	"$TESTS_DIR"/golden/dra/) continue ;;
	"$TESTS_DIR"/golden/dra/*) target="--target dra" name="dra/$name" ;;
	esac
	input=$(ls "$dir" | grep -E '^input\.(yaml|yml|json)$' | head -n 1)
	if [ -z "$input" ]; then
		fail "$name: no input file"
		continue
	fi
	ext=${input#input.}
	cfg=""
	[ -f "$dir/config.yaml" ] && cfg="-c config.yaml"
	want_exit=0
	[ -f "$dir/expected.exit" ] && want_exit=$(cat "$dir/expected.exit")

	(cd "$dir" && "$GPUMEND" migrate $target $cfg "$input" >"$tmp/out" 2>"$tmp/err")
	got_exit=$?
	(cd "$dir" && "$GPUMEND" lint $target $cfg "$input" >"$tmp/lint" 2>"$tmp/lint.err")
	lint_exit=$?

	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
		if [ "$got_exit" = 0 ]; then
			cp "$tmp/out" "$dir/expected.$ext"
		else
			rm -f "$dir/expected.$ext"
		fi
		cp "$tmp/lint" "$dir/expected.lint"
		if [ "$got_exit" != 0 ]; then
			echo "$got_exit" >"$dir/expected.exit"
			cp "$tmp/err" "$dir/expected.stderr"
		else
			rm -f "$dir/expected.exit" "$dir/expected.stderr"
		fi
		pass "$name: updated"
		continue
	fi

	if [ "$got_exit" = "$want_exit" ]; then
		pass "$name: migrate exits $want_exit"
	else
		fail "$name: migrate exits $got_exit, want $want_exit"
		sed 's/^/    /' "$tmp/err"
	fi
	if [ -f "$dir/expected.stderr" ]; then
		if diff -u "$dir/expected.stderr" "$tmp/err" >"$tmp/d"; then
			pass "$name: migrate stderr"
		else
			fail "$name: migrate stderr"
			sed 's/^/    /' "$tmp/d"
		fi
	fi
	if [ "$want_exit" = 0 ]; then
		if [ ! -f "$dir/expected.$ext" ]; then
			fail "$name: no expected.$ext"
		elif diff -u "$dir/expected.$ext" "$tmp/out" >"$tmp/d"; then
			pass "$name: migrated output"
		else
			fail "$name: migrated output"
			sed 's/^/    /' "$tmp/d"
		fi
		# idempotence: the expected output is a fixed point
		cp "$dir/expected.$ext" "$tmp/again.$ext"
		[ -f "$dir/config.yaml" ] && cp "$dir/config.yaml" "$tmp/config.yaml"
		if (cd "$tmp" && "$GPUMEND" migrate $target $cfg "again.$ext" >"$tmp/again.out" 2>/dev/null) &&
		   cmp -s "$tmp/again.out" "$dir/expected.$ext"; then
			pass "$name: idempotent"
		else
			fail "$name: migrating the expected output changes it"
			diff -u "$dir/expected.$ext" "$tmp/again.out" | sed 's/^/    /'
		fi
	else
		if [ -f "$dir/expected.$ext" ]; then
			fail "$name: expected.$ext exists for a failing case"
		else
			pass "$name: nothing written on error"
		fi
	fi

	if [ -f "$dir/expected.lint" ] && diff -u "$dir/expected.lint" "$tmp/lint" >"$tmp/d"; then
		pass "$name: lint findings"
	else
		fail "$name: lint findings"
		[ -f "$tmp/d" ] && sed 's/^/    /' "$tmp/d"
	fi
	want_lint_exit=0
	grep -qE ': (warning|error): ' "$tmp/lint" && want_lint_exit=1
	grep -qE '\[(syntax|input)\]$' "$tmp/lint" && want_lint_exit=2
	if [ "$lint_exit" = "$want_lint_exit" ]; then
		pass "$name: lint exits $want_lint_exit"
	else
		fail "$name: lint exits $lint_exit, want $want_lint_exit"
	fi

	# the engine's patch, applied by kubectl, gives the migrated object
	if [ "$want_exit" = 0 ] && [ -z "$target" ]; then
		(cd "$dir" && "$GPUMEND" migrate --json-patch $cfg "$input") >"$tmp/patches" 2>/dev/null
		docs=$(wc -l <"$tmp/patches")
		if [ "$docs" != 1 ] || grep -q '^kind: List' "$dir/$input" ||
		   grep -q '"kind": *"List"' "$dir/$input"; then
			: # a patch applies to one object
		elif [ -z "$kubectl" ]; then
			fail "$name: kubectl-applied patch: no kubectl (tests/tools/get.sh)"
		else
			patch=$(cat "$tmp/patches")
			if "$kubectl" patch --local -f "$dir/$input" --type=json -p "$patch" -o json >"$tmp/k1" 2>"$tmp/k1.err" &&
			   "$kubectl" patch --local -f "$dir/expected.$ext" --type=json -p '[]' -o json >"$tmp/k2" 2>"$tmp/k2.err" &&
			   diff -u "$tmp/k2" "$tmp/k1" >"$tmp/d"; then
				pass "$name: kubectl-applied patch equals the migrated file"
			else
				fail "$name: kubectl-applied patch differs from the migrated file"
				cat "$tmp/k1.err" "$tmp/k2.err" "$tmp/d" 2>/dev/null | sed 's/^/    /'
			fi
		fi
	fi
done
finish golden
