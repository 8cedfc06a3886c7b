#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
#
# tests/suites/man.sh - the man pages, the help and the completions agree:
#   - `mandoc -Tlint` finds nothing in man/*.[1-8] but cross-references to
#     pages that are not installed here;
#   - gpumend(1) has a section (.Ss) for every command of `gpumend --help`
#     and no other, and each section names exactly the flags of that
#     command's --help (both ways; -h and --help aside), and so do
#     gpumend-webhook(8) and `gpumend-webhook --help`, flags and
#     environment variables; gpumend.yaml(5) documents exactly the keys
#     `gpumend config` prints. A missing flag is named with the page and
#     section it is missing from;
#   - `gpumend help CMD` prints `gpumend CMD --help`;
#   - the bash, zsh and fish completions complete commands, options and
#     option values (each shell from the Makefile's test-deps);
#   - `make install DESTDIR=... PREFIX=/usr` installs the binaries, the man
#     pages and the completions where the shells look for them.
. "$(dirname "$0")/../lib.sh"
cd "$REPO_DIR" || exit 2
G=$GPUMEND
W=$GPUMEND_WEBHOOK
tmp=$(scratch)

# ------------------------------------------------------------------ lint
if ! command -v mandoc >/dev/null 2>&1; then
	fail "mandoc -Tlint: mandoc is not installed (make test-deps installs it)"
else
	for page in man/*.[1-8]; do
		out=$(mandoc -Tlint -W all "$page" 2>&1 |
			grep -v -e 'STYLE: referenced manual not found' -e 'outdated mandoc.db')
		check "mandoc -Tlint $page: nothing but missing cross-references${out:+: $out}" \
			[ -z "$out" ]
	done
fi

# help_flags: the flags in the text on stdin, one a line, sorted; -h and
# --help left out (every command has them)
help_flags() {
	grep -oE -- '(^|[][ ,|(=])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[^-]*//' |
		grep -vxE -- '-h|--help' | sort -u
}

# man_flags PAGE [SECTION]: the flags (.Fl) of PAGE, or of its .Ss SECTION
# in .Sh COMMANDS, one a line, sorted; -h and --help left out. Fl applies
# to each argument up to the next macro, delimiters aside.
man_flags() {
	awk -v want="${2-}" '
	function name(    s, i) {
		s = ""
		for (i = 2; i <= NF; i++)
			if ($i !~ /^[A-Z][a-z][a-z]?$/) s = s (s == "" ? "" : " ") $i
		return s
	}
	/^\.Sh / { sh = $2; ss = ""; next }
	/^\.Ss / { ss = name(); next }
	want != "" && (sh != "COMMANDS" || ss != want) { next }
	/^\./ {
		gsub(/\\-/, "-")
		for (i = 1; i <= NF; i++) {
			if ($i != "Fl" && $i != ".Fl") continue
			for (j = i + 1; j <= NF; j++) {
				if ($j ~ /^[A-Z][a-z][a-z]?$/) break
				if ($j ~ /^[|,;.:()\[\]]$/) continue
				print "-" $j
			}
		}
	}' "$1" | grep -vxE -- '-h|--help|-' | sort -u
}

# same_set THING A A-FILE B B-FILE: the sorted lists A-FILE and B-FILE hold the same THINGs; each one missing on either side is named
same_set() {
	_missing=$(comm -23 "$3" "$5" | tr '\n' ' ')
	_extra=$(comm -13 "$3" "$5" | tr '\n' ' ')
	check "every $1 of $2 is in $4${_missing:+; missing there: $_missing}" \
		test -z "$_missing"
	check "every $1 of $4 is in $2${_extra:+; missing there: $_extra}" \
		test -z "$_extra"
}

# agree WHAT HELP-FILE PAGE [SECTION]: the flags of HELP-FILE (WHAT's
# --help) and of the page (section) are the same
agree() {
	help_flags <"$2" >"$tmp/help"
	man_flags "$3" "${4-}" >"$tmp/man"
	same_set flag "'$1 --help'" "$tmp/help" "$3${4:+ (.Ss $4)}" "$tmp/man"
}

# ------------------------------------------------------- gpumend(1)
commands=$("$G" --help | awk '/^Commands:/ { c = 1; next } c && /^$/ { exit } c { print $1 }')
sections=$(awk '/^\.Sh / { sh = $2; next }
	sh == "COMMANDS" && /^\.Ss / {
		s = ""
		for (i = 2; i <= NF; i++) if ($i !~ /^[A-Z][a-z][a-z]?$/) s = s (s == "" ? "" : " ") $i
		print s
	}' man/gpumend.1)
check "gpumend --help lists commands ($(echo $commands))" [ -n "$commands" ]
for cmd in $commands; do
	printf '%s\n' "$sections" | grep -qx "$cmd" &&
		pass "man/gpumend.1 has a section for '$cmd'" ||
		fail "man/gpumend.1 has no section (.Ss Cm $cmd) for the command '$cmd' of gpumend --help"
done
printf '%s\n' "$sections" | while IFS= read -r s; do
	case " $(echo $commands) " in *" ${s%% *} "*) ;; *) echo "$s" ;; esac
done >"$tmp/stale"
stale=$(tr '\n' ' ' <"$tmp/stale")
check "man/gpumend.1 has no section for a command gpumend lacks${stale:+: $stale}" \
	[ ! -s "$tmp/stale" ]

printf '%s\n' "$sections" | while IFS= read -r s; do
	[ "$s" = help ] && continue
	# shellcheck disable=SC2086
	"$G" $s --help >"$tmp/help.$$" 2>&1
	cp "$tmp/help.$$" "$tmp/help-$(echo "$s" | tr ' ' +)"
done
for s in $(printf '%s\n' "$sections" | tr ' ' + | grep -vx help); do
	# a command's help may show its subcommands' usage (certs: certs
	# check); their flags belong to their own section
	for sub in $(printf '%s\n' "$sections" | grep "^$(echo "$s" | tr + ' ') " | tr ' ' +); do
		grep -v "gpumend $(echo "$sub" | tr + ' ')" "$tmp/help-$s" >"$tmp/help-own"
		mv "$tmp/help-own" "$tmp/help-$s"
	done
	agree "gpumend $(echo "$s" | tr + ' ')" "$tmp/help-$s" man/gpumend.1 "$(echo "$s" | tr + ' ')"
done

# ------------------------------------------------ gpumend-webhook(8)
"$W" --help >"$tmp/webhook-help" 2>&1
agree "gpumend-webhook" "$tmp/webhook-help" man/gpumend-webhook.8
grep -oE 'GPUMEND_[A-Z_]*[A-Z]' "$tmp/webhook-help" | sort -u >"$tmp/env-help"
grep -oE 'GPUMEND_[A-Z_]*[A-Z]' man/gpumend-webhook.8 | sort -u >"$tmp/env-man"
same_set "environment variable" "'gpumend-webhook --help'" "$tmp/env-help" \
	man/gpumend-webhook.8 "$tmp/env-man"

# ------------------------------------------------- gpumend.yaml(5)
"$G" config | awk '
	/^[a-zA-Z]+:/ { sec = $1; sub(/:$/, "", sec); print sec; next }
	/^  [a-zA-Z]+:/ { k = $1; sub(/:$/, "", k); print sec "." k }' | sort -u >"$tmp/keys-config"
awk '
	/^\.Ss Ic / { sec = $3; print sec; next }
	/^\.Sh / { sec = "" }
	sec != "" && /^\.It Ic / { print sec "." $3 }' man/gpumend.yaml.5 | sort -u >"$tmp/keys-man"
check "gpumend config prints keys ($(wc -l <"$tmp/keys-config"))" test -s "$tmp/keys-config"
same_set key "'gpumend config'" "$tmp/keys-config" man/gpumend.yaml.5 "$tmp/keys-man"

# ------------------------------------------------------- gpumend help
for cmd in $commands "certs check"; do
	[ "$cmd" = help ] && continue
	# shellcheck disable=SC2086
	"$G" $cmd --help >"$tmp/a" 2>&1
	# shellcheck disable=SC2086
	"$G" help $cmd >"$tmp/b" 2>&1
	check "gpumend help $cmd prints gpumend $cmd --help" cmp -s "$tmp/a" "$tmp/b"
done
"$G" help no-such-command >/dev/null 2>"$tmp/err"
rc=$?
check "gpumend help no-such-command: exit 2, names it" \
	sh -c "[ $rc = 2 ] && grep -q \"'no-such-command' is not a gpumend command\" '$tmp/err'"

# ------------------------------------------------------ completions
mkdir -p "$tmp/bin"
ln -s "$G" "$tmp/bin/gpumend"
path="$tmp/bin:$PATH"
# "WORDS" "EXPECTED WORD" per line: completing the last word offers it
completion_cases='gpumend mi|migrate
gpumend |completion
gpumend lint --fo|--format
gpumend lint --format |sarif
gpumend lint --fail-on |warning
gpumend help li|lint
gpumend certs |check
gpumend certs check --se|--service
gpumend migrate --in|--in-place
gpumend completion |zsh
gpumend rules legacy-gpu-r|legacy-gpu-resource
gpumend rules --format |json
gpumend rules --format json gpu-vis|gpu-visibility'

# offered SHELL WORDS: what SHELL's completion script
# ($tmp/completion.SHELL) offers for the last word of WORDS (a trailing
# space: an empty word), one a line. In zsh, compadd and _files stand in
# for zsh's own: they print every candidate (zsh filters them by prefix).
offered() {
	_words=$2
	_empty=""
	case $_words in *' ') _empty="''" ;; esac
	eval "set -- $1 $_words $_empty"
	case $1 in
	bash)
		shift
		PATH=$path bash -c '
			. "$1"; shift
			COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gpumend
			printf "%s\n" "${COMPREPLY[@]}"' sh "$tmp/completion.bash" "$@"
		;;
	zsh)
		shift
		PATH=$path zsh -f -c '
			compdef() { : }
			. "$1"; shift
			compadd() {
				while [[ $1 == -* && $1 != -- ]]; do shift; done
				[[ $1 == -- ]] && shift
				print -rl -- "$@"
			}
			_files() { print -r -- "(files)" }
			words=("$@"); CURRENT=$#; PREFIX=${@[-1]}
			_gpumend' zsh "$tmp/completion.zsh" "$@"
		;;
	fish)
		PATH=$path HOME=$tmp XDG_CONFIG_HOME=$tmp/config XDG_DATA_HOME=$tmp/data \
			fish --no-config -c 'source $argv[1]; complete -C"$argv[2]"' \
			"$tmp/completion.fish" "$_words" | cut -f1
		;;
	esac 2>&1
}

printf '%s\n' "$completion_cases" >"$tmp/cases"
for shell in bash zsh fish; do
	if ! command -v "$shell" >/dev/null 2>&1; then
		fail "$shell completion: $shell is not installed (make test-deps installs it)"
		continue
	fi
	"$G" completion "$shell" >"$tmp/completion.$shell"
	check "$shell -n accepts gpumend completion $shell" "$shell" -n "$tmp/completion.$shell"
	while IFS='|' read -r words want; do
		got=$(offered "$shell" "$words")
		printf '%s\n' "$got" | grep -qx -- "$want" &&
			pass "$shell completes '$words' with $want" ||
			fail "$shell completes '$words' with $want (got: $(echo $got))"
	done <"$tmp/cases"
done

# ------------------------------------------------------ make install
dest=$tmp/root
make -s --no-print-directory install DESTDIR="$dest" PREFIX=/usr BUILD="$GPUMEND_BUILD" \
	>"$tmp/install.log" 2>&1
check "make install DESTDIR PREFIX=/usr exits 0" [ $? = 0 ]
for f in bin/gpumend bin/gpumend-webhook share/man/man1/gpumend.1 \
	share/man/man8/gpumend-webhook.8 share/man/man5/gpumend.yaml.5 \
	share/bash-completion/completions/gpumend \
	share/zsh/vendor-completions/_gpumend \
	share/fish/vendor_completions.d/gpumend.fish; do
	check "make install installs /usr/$f" [ -s "$dest/usr/$f" ]
done
check "the installed bash completion is gpumend completion bash" \
	sh -c "'$G' completion bash | cmp -s - '$dest/usr/share/bash-completion/completions/gpumend'"

finish man
