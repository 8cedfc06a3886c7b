#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
#
# tests/tools/spdx-headers.sh [FILE...] - gives every file of code,
# scripts, manifests and build files its SPDX copyright and licence lines,
# in the comment syntax of its kind, so that `reuse lint` passes
# (tests/suites/reuse.sh). Idempotent: a file that already names a licence
# in its first lines is left as it is. Files covered by .reuse/dep5 (data
# that must stay byte for byte, docs) are never touched.
#
# FILE: paths from the top of the tree; without FILE, every file git
# tracks. Prints each file it changes, and
# each one it does not know how to comment ("no comment syntax"), and
# exits 1 when there was such a file. Run from anywhere in the tree.
set -u
cd "$(dirname "$0")/../.." || exit 2

# Written in two parts, so that reuse does not read this script's own text
# as a licence line.
tag_copyright="SPDX-FileCopyrightText"": 2026 The gpumend authors"
tag_license="SPDX-License-Identifier"": Apache-2.0"

# covered FILE: .reuse/dep5 covers FILE (its Files: patterns, where '*'
# matches any text, '/' too)
covered() {
	awk -v f="$1" '
	function glob_match(p, s,    re) {
		re = p
		gsub(/[.+^$(){}|\[\]\\]/, "\\\\&", re)
		gsub(/\*/, ".*", re)
		gsub(/\?/, ".", re)
		return s ~ ("^" re "$")
	}
	/^Files:/ { infiles = 1; sub(/^Files:/, "") }
	/^[A-Za-z-]+:/ && !/^Files:/ { infiles = 0 }
	/^$/ { infiles = 0 }
	infiles {
		for (i = 1; i <= NF; i++)
			if (glob_match($i, f)) found = 1
	}
	END { exit !found }' .reuse/dep5
}

# style FILE: the comment style of FILE: c, hash, hash-shebang, slash,
# dashes, helm, troff, none (needs none: the licence texts), or unknown
style() {
	case $1 in
	LICENSE | LICENSES/* | .reuse/*) echo none; return ;;
	*.c | *.h) echo c; return ;;
	*.go | go.mod | */go.mod | *.js | *.mjs | *.cjs | *.ts | *.rs | *.cc | *.cpp | *.hpp)
		echo slash; return ;;
	*.lua) echo dashes; return ;;
	*/templates/*.yaml | */templates/*.tpl | */templates/*.txt) echo helm; return ;;
	*.[1-8]) echo troff; return ;;
	*.yaml | *.yml | *.jq | *.supp | *.allow | *.toml | *.mk | *.cfg | *.conf | .clang-format | \
		Makefile | */Makefile | Dockerfile | */Dockerfile | Containerfile | \
		.gitignore | */.gitignore | .dockerignore | */.dockerignore | \
		.helmignore | */.helmignore | *.py | *.pl | *.rb | *.awk | *.ini | \
		*.bash | *.zsh | *.fish)
		echo hash; return ;;
	esac
	# scripts without a suffix (.ci/run, debian/rules) and *.sh
	if head -c 2 "$1" | grep -q '^#!'; then
		echo hash-shebang
		return
	fi
	case $1 in
	*.sh) echo hash ;;
	*) echo unknown ;;
	esac
}

# header STYLE: the lines to add
header() {
	case $1 in
	c) printf '/* %s */\n/* %s */\n' "$tag_copyright" "$tag_license" ;;
	slash) printf '// %s\n// %s\n' "$tag_copyright" "$tag_license" ;;
	dashes) printf -- '-- %s\n-- %s\n' "$tag_copyright" "$tag_license" ;;
	helm) printf '{{- /*\n%s\n%s\n*/ -}}\n' "$tag_copyright" "$tag_license" ;;
	troff) printf '.\\" %s\n.\\" %s\n' "$tag_copyright" "$tag_license" ;;
	*) printf '# %s\n# %s\n' "$tag_copyright" "$tag_license" ;;
	esac
}

# add FILE: writes the header into FILE (after a shebang, or a
# `# syntax=` line of a Dockerfile, which must stay first), keeping its
# mode; atomically, through a temporary file beside it
add() {
	_s=$(style "$1")
	case $_s in
	none) return 0 ;;
	unknown)
		echo "spdx-headers: $1: no comment syntax known for it; add it to" \
			"tests/tools/spdx-headers.sh or .reuse/dep5" >&2
		return 1
		;;
	esac
	_tmp="$1.spdx-tmp"
	{
		_first=$(head -n 1 "$1")
		case $_s:$_first in
		hash-shebang:'#!'* | hash:'#!'* | hash:'# syntax='*)
			printf '%s\n' "$_first"
			header "$_s"
			tail -n +2 "$1"
			;;
		*)
			header "$_s"
			cat "$1"
			;;
		esac
	} >"$_tmp" &&
		chmod --reference="$1" "$_tmp" &&
		mv "$_tmp" "$1" || {
		rm -f "$_tmp"
		echo "spdx-headers: $1: cannot rewrite" >&2
		return 1
	}
	echo "$1"
}

# one FILE: adds the header when FILE needs one; 1 when it cannot
one() {
	[ -f "$1" ] && [ ! -L "$1" ] || return 0
	covered "$1" && return 0
	# already has one (idempotent)
	head -n 5 "$1" | grep -q 'SPDX-License-''Identifier' && return 0
	add "$1"
}

unknown=0
if [ $# -eq 0 ]; then
	git ls-files >/dev/null || exit 2
	git ls-files | {
		while IFS= read -r f; do
			one "$f" || unknown=1
		done
		exit "$unknown"
	} || unknown=1
else
	for f in "$@"; do
		one "$f" || unknown=1
	done
fi
exit "$unknown"
