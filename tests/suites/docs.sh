#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/docs.sh - the documentation holds together: every relative
# link of README.md, CHANGELOG.md and docs/*.md names a file that exists
# and, with a #fragment, a heading of that file (GitHub's anchors); the
# README stays a front door (under 300 lines) and links every page of
# docs/; every command of `gpumend --help` and every flag of each
# command's --help, and of `gpumend-webhook --help`, appears in docs/.
. "$(dirname "$0")/../lib.sh"
cd "$REPO_DIR" || exit 2

pages="README.md CHANGELOG.md $(ls docs/*.md)"

# anchors FILE: the anchor of every heading of FILE, one a line, as GitHub
# makes them (lowercase; punctuation but '-' and '_' dropped; spaces become
# '-'; a repeated anchor gets -1, -2, ...). Fenced code is not a heading.
anchors() {
	awk '
	/^```/ { fence = !fence; next }
	fence { next }
	/^#+ / {
		h = $0
		sub(/^#+ /, "", h)
		h = tolower(h)
		out = ""
		for (i = 1; i <= length(h); i++) {
			c = substr(h, i, 1)
			if (c ~ /[a-z0-9_-]/) out = out c
			else if (c == " ") out = out "-"
			else if (c > "~") out = out c   # bytes of non-ASCII letters
		}
		if (seen[out]++) out = out "-" (seen[out] - 1)
		print out
	}' "$1"
}

# links FILE: "LINE TARGET" for every inline link of FILE outside code
links() {
	awk '
	/^```/ { fence = !fence; next }
	fence { next }
	{
		line = $0
		gsub(/`[^`]*`/, "", line)
		while (match(line, /\]\([^)]*\)/)) {
			print NR " " substr(line, RSTART + 2, RLENGTH - 3)
			line = substr(line, RSTART + RLENGTH)
		}
	}' "$1"
}

for page in $pages; do
	bad=""
	n=0
	dir=$(dirname "$page")
	tmp=$(links "$page")
	while read -r line target; do
		[ -n "$target" ] || continue
		case $target in
		http://* | https://* | mailto:*) continue ;;
		esac
		n=$((n + 1))
		file=${target%%#*}
		frag=""
		case $target in *"#"*) frag=${target#*#} ;; esac
		if [ -z "$file" ]; then
			file=$page
		else
			file=$dir/$file
		fi
		if [ ! -e "$file" ]; then
			bad="$bad $page:$line:$target(no such file)"
			continue
		fi
		if [ -n "$frag" ] && ! anchors "$file" | grep -qxF -- "$frag"; then
			bad="$bad $page:$line:$target(no such heading)"
		fi
	done <<-LINKS
	$tmp
	LINKS
	check "$page: its $n relative links and anchors resolve${bad:+:$bad}" [ -z "$bad" ]
done

lines=$(wc -l <README.md)
check "README.md is a front door: $lines lines, under 300" [ "$lines" -lt 300 ]
missing=""
for page in docs/*.md; do
	grep -qF "]($page" README.md || missing="$missing $page"
done
check "README.md links every page of docs/${missing:+ (not:$missing)}" [ -z "$missing" ]

# flags HELP: every long option (--name) of a --help text, once each
flags() {
	grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

documented() {
	grep -rqF -- "$1" docs/
}

cmds=$("$GPUMEND" --help | awk '/^Commands:/ { c = 1; next } c && NF { print $1 } c && !NF { exit }')
check "gpumend --help lists commands" [ -n "$cmds" ]
for cmd in $cmds; do
	check "docs: 'gpumend $cmd' is documented" documented "gpumend $cmd"
	undocumented=""
	for flag in $("$GPUMEND" "$cmd" --help 2>&1 | flags); do
		documented "$flag" || undocumented="$undocumented $flag"
	done
	check "docs: every flag of 'gpumend $cmd --help' is documented${undocumented:+ (not:$undocumented)}" \
		[ -z "$undocumented" ]
done
undocumented=""
for flag in $("$GPUMEND_WEBHOOK" --help 2>&1 | flags); do
	documented "$flag" || undocumented="$undocumented $flag"
done
check "docs: every flag of 'gpumend-webhook --help' is documented${undocumented:+ (not:$undocumented)}" \
	[ -z "$undocumented" ]

finish docs
