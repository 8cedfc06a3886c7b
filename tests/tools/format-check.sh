#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/tools/format-check.sh - the C files against .clang-format.
#
#   sh tests/tools/format-check.sh [--base REV]    check (make test)
#   sh tests/tools/format-check.sh --fix [--base REV]   lay them out (make format)
#   sh tests/tools/format-check.sh --all           measure every file whole
#
# What is checked: every line of a C file (*.c, *.h) written or changed
# since the commit that added .clang-format (REV with --base), in the
# working tree, committed or not, and every line of a C file git does not
# track yet. The code that was there before keeps its layout until a
# change touches it. A block that git sees as moved (git diff
# --color-moved=blocks: 20 letters and digits or more, as it was), with
# the lines of braces and blanks next to it, is not a change: moving a
# function to another file leaves it as it was.
#
# "Since the commit that added .clang-format", and not "since the merge
# base with main", so that the check means the same wherever it runs: on
# main itself (where the merge base is HEAD and nothing would be
# checked), on a branch, in a clean clone of CI, after any number of
# commits. A shallow clone, which lacks that history, is refused (exit 3)
# rather than checked against a wrong base; outside a git checkout the
# check cannot run (exit 4).
#
# Output of the check, a line per file with changed lines:
#   ok FILE N        its N changed lines are as clang-format lays them out
#   bad FILE N       not so; the difference follows, indented
# then "base COMMIT", and exit status 0, or 1 when a file is bad.
# --all prints, per file, the lines clang-format would change in it whole,
# and their sum: how close .clang-format is to the code as a whole.
# CLANG_FORMAT names the clang-format to run (default clang-format).
set -u
cd "$(dirname "$0")/../.." || exit 2
: "${CLANG_FORMAT:=clang-format}"

mode=check
base=""
while [ $# -gt 0 ]; do
	case $1 in
	--fix) mode=fix ;;
	--all) mode=all ;;
	--base) base=$2; shift ;;
	*) echo "usage: format-check.sh [--fix | --all] [--base REV]" >&2; exit 2 ;;
	esac
	shift
done

command -v "$CLANG_FORMAT" >/dev/null 2>&1 || {
	echo "format-check: no $CLANG_FORMAT (make test-deps installs Debian's clang-format)" >&2
	exit 2
}
[ -f .clang-format ] || { echo "format-check: no .clang-format" >&2; exit 2; }
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "format-check: not a git checkout: no history to tell the changed lines by" >&2
	exit 4
fi

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

if [ "$mode" = all ]; then
	git ls-files -- '*.c' '*.h' >"$tmp/files"
	while read -r f; do
		n=$("$CLANG_FORMAT" --style=file "$f" | diff "$f" - | grep -c '^<')
		echo "$n $(wc -l <"$f") $f"
	done <"$tmp/files" | sort -n >"$tmp/counts"
	awk '$1 > 0 { printf "%6d of %6d  %s\n", $1, $2, $3 }' "$tmp/counts"
	awk '{ c += $1; l += $2; n++; if ($1 > 0) f++ }
		END { printf "clang-format would change %d of %d lines (%.1f%%), in %d of %d files\n",
			c, l, l ? 100 * c / l : 0, f, n }' "$tmp/counts"
	exit 0
fi

if [ "$(git rev-parse --is-shallow-repository)" != false ]; then
	echo "format-check: a shallow clone: the history back to the commit that added .clang-format is needed (git fetch --unshallow)" >&2
	exit 3
fi
if [ -z "$base" ]; then
	base=$(git log --diff-filter=A --format=%H -- .clang-format | tail -n 1)
	# not committed yet: what is not committed
	[ -n "$base" ] || base=HEAD
fi
git rev-parse --verify -q "$base^{commit}" >"$tmp/base" ||
	{ echo "format-check: no commit '$base'" >&2; exit 2; }
base=$(cat "$tmp/base")

# "FILE LINE" for each line added (not moved) since the base, in the
# working tree; the colours tell added lines from moved ones.
esc=$(printf '\033')
git -c color.diff.new=green -c color.diff.newMoved=blue \
	-c color.diff.newMovedAlternative=blue -c color.diff.newMovedDimmed=blue \
	-c color.diff.newMovedAlternativeDimmed=blue -c diff.noprefix=false \
	diff --color=always --color-moved=blocks --no-ext-diff -U0 -M \
	--src-prefix=a/ --dst-prefix=b/ "$base" -- '*.c' '*.h' >"$tmp/diff" ||
	{ echo "format-check: git diff failed" >&2; exit 2; }
awk -v esc="$esc" '
	{ plain = $0; gsub(esc "\\[[0-9;]*m", "", plain) }
	plain ~ /^\+\+\+ / { file = (plain == "+++ /dev/null") ? "" : substr(plain, 7); next }
	plain ~ /^(diff --git|index |--- |new file|deleted file|similarity|rename |old mode|new mode)/ { next }
	plain ~ /^@@ / {
		split(plain, f, " ")
		sub(/^\+/, "", f[3])
		split(f[3], nl, ",")
		line = nl[1]
		next
	}
	plain ~ /^\+/ {
		if (file != "")
			print file, line, (index($0, esc "[32m") == 1 ? "new" : "moved"),
				(plain ~ /[A-Za-z0-9]/ ? "words" : "marks")
		line++
	}' "$tmp/diff" >"$tmp/added"
# A line of marks only ("{", "}", a blank line) next to a moved block is
# part of the move: git matches such lines anywhere, so a moved function
# keeps its braces where it was and its body looks moved without them.
awk '
	{ file[NR] = $1; line[NR] = $2; kind[NR] = $3; marks[NR] = ($4 == "marks") }
	END {
		do {
			changed = 0
			for (i = 1; i <= NR; i++) {
				if (kind[i] != "new" || !marks[i])
					continue
				if ((i > 1 && file[i - 1] == file[i] && line[i - 1] == line[i] - 1 &&
				     kind[i - 1] == "moved") ||
				    (i < NR && file[i + 1] == file[i] && line[i + 1] == line[i] + 1 &&
				     kind[i + 1] == "moved")) {
					kind[i] = "moved"
					changed = 1
				}
			}
		} while (changed)
		for (i = 1; i <= NR; i++)
			if (kind[i] == "new")
				print file[i], line[i]
	}' "$tmp/added" >"$tmp/lines"
git ls-files --others --exclude-standard -- '*.c' '*.h' | while read -r f; do
	awk -v f="$f" '{ print f, NR }' "$f"
done >>"$tmp/lines"

# each file once, with its ranges as --lines=FIRST:LAST arguments
awk '
	$1 != file || $2 != last + 1 {
		if (file != "") out[file] = out[file] " --lines=" first ":" last
		if ($1 != file) { if (!($1 in n)) order[++k] = $1 }
		file = $1; first = $2
	}
	{ last = $2; n[$1]++ }
	END {
		if (file != "") out[file] = out[file] " --lines=" first ":" last
		for (i = 1; i <= k; i++) print order[i], n[order[i]] out[order[i]]
	}' "$tmp/lines" >"$tmp/ranges"

status=0
while read -r file count ranges; do
	[ -f "$file" ] || continue
	if [ "$mode" = fix ]; then
		# shellcheck disable=SC2086
		"$CLANG_FORMAT" --style=file -i $ranges "$file" || status=1
		echo "formatted $file $count"
		continue
	fi
	# shellcheck disable=SC2086
	"$CLANG_FORMAT" --style=file $ranges "$file" >"$tmp/out" 2>"$tmp/err" || {
		echo "bad $file $count"
		sed 's/^/    /' "$tmp/err"
		status=1
		continue
	}
	if cmp -s "$file" "$tmp/out"; then
		echo "ok $file $count"
	else
		echo "bad $file $count"
		diff -u "$file" "$tmp/out" | tail -n +3 | head -n 60 | sed 's/^/    /'
		status=1
	fi
done <"$tmp/ranges"
echo "base $base"
exit $status
