#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/fuzz_regressions.sh - the inputs the fuzzers found, replayed.
#
# Every file under tests/fuzz/regressions/TARGET/ goes through the checks of
# the fuzz target TARGET (tests/fuzz/fuzz_TARGET.c linked with the replay
# driver tests/fuzz/replay.c against this build's objects, sanitizers
# included under `make check`): no crash, no sanitizer report, and every
# property the target checks holds. The regression files of the CLI's
# targets go through the gpumend binary too, which must exit with a status
# rather than die of a signal. The repository's own examples (golden
# inputs and configs, the webhook's reviews, a pair from `gpumend certs`)
# are replayed as well, so that the checks themselves stay right.
. "$(dirname "$0")/../lib.sh"

# not dir=$(scratch): the subshell's exit trap would remove it at once
scratch >/dev/null
dir=$_scratch
regressions="$TESTS_DIR/fuzz/regressions"
pkgs="jansson yaml-0.1 libmicrohttpd openssl gnutls"

# ------------------------------------------------------ replay drivers
objs=""
for o in "$GPUMEND_BUILD"/rules/*.o "$GPUMEND_BUILD"/lib/*.o \
	"$GPUMEND_BUILD"/certs/*.o "$GPUMEND_BUILD"/helm/*.o \
	"$GPUMEND_BUILD"/cli/*.o "$GPUMEND_BUILD"/webhook/*.o; do
	case $o in */main.o) continue ;; esac
	# an object left from a source since moved or removed would
	# define its symbols twice
	src=${o#"$GPUMEND_BUILD"/}
	[ -f "$o" ] && [ -f "$REPO_DIR/${src%.o}.c" ] && objs="$objs $o"
done
flags="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O1 -g \
	-I$REPO_DIR/rules -I$REPO_DIR/lib -I$REPO_DIR/certs -I$REPO_DIR/helm \
	-I$REPO_DIR/cli -I$REPO_DIR/webhook \
	-I$TESTS_DIR/fuzz $(pkg-config --cflags $pkgs 2>/dev/null)"
# objects built with the sanitizers (make check) need them at link time
# shellcheck disable=SC2086
if [ -n "${GPUMEND_SANITIZE:-}" ] ||
	nm $objs 2>/dev/null | grep -q '__asan_report'; then
	flags="$flags -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
fi
libs="$(pkg-config --libs $pkgs 2>/dev/null) -lpthread"

# build TARGET: links $dir/replay_TARGET; 0 on success.
build() {
	# shellcheck disable=SC2086
	${CC:-cc} $flags -o "$dir/replay_$1" "$TESTS_DIR/fuzz/replay.c" \
		"$TESTS_DIR/fuzz/fuzz_common.c" "$TESTS_DIR/fuzz/fuzz_$1.c" \
		$objs $libs >"$dir/build_$1.log" 2>&1
}

# replay TARGET DESCRIPTION FILE...: the target's checks hold on the files.
replay() {
	_t=$1
	_desc=$2
	shift 2
	if timeout 300 "$dir/replay_$_t" "$@" >"$dir/out" 2>&1; then
		pass "$_desc"
	else
		fail "$_desc"
		tail -n 30 "$dir/out" | sed 's/^/    /'
	fi
}

# exits_cleanly DESCRIPTION COMMAND...: the command exits 0, 1 or 2.
exits_cleanly() {
	_desc=$1
	shift
	timeout 120 "$@" >"$dir/out" 2>&1
	_rc=$?
	if [ $_rc -le 2 ]; then
		pass "$_desc"
	else
		fail "$_desc (exit $_rc)"
		tail -n 30 "$dir/out" | sed 's/^/    /'
	fi
}

for t in admission migrate lint config pem template; do
	if ! build "$t"; then
		fail "fuzz $t: the replay driver builds"
		sed 's/^/    /' "$dir/build_$t.log" | head -n 30
		continue
	fi
	pass "fuzz $t: the replay driver builds"
	for f in "$regressions/$t"/*; do
		[ -f "$f" ] || continue
		name="fuzz $t: regression $(basename "$f")"
		replay "$t" "$name" "$f"
		case $t in
		admission)
			exits_cleanly "$name: gpumend review" "$GPUMEND" review "$f" ;;
		migrate)
			exits_cleanly "$name: gpumend migrate" "$GPUMEND" migrate "$f" ;;
		lint)
			exits_cleanly "$name: gpumend lint" \
				"$GPUMEND" lint --format sarif "$f" ;;
		config)
			exits_cleanly "$name: gpumend config -c" \
				"$GPUMEND" config -c "$f" ;;
		template)
			exits_cleanly "$name: gpumend migrate --chart" \
				"$GPUMEND" migrate --chart "$f" ;;
		esac
	done
done

# ------------------------------------------------ the repository's own
golden_inputs=$(ls "$TESTS_DIR"/golden/*/input.* 2>/dev/null)
golden_configs=$(ls "$TESTS_DIR"/golden/*/config.yaml 2>/dev/null)
# shellcheck disable=SC2086
[ -x "$dir/replay_migrate" ] &&
	replay migrate "fuzz migrate: the golden inputs" $golden_inputs
# shellcheck disable=SC2086
[ -x "$dir/replay_lint" ] &&
	replay lint "fuzz lint: the golden inputs" $golden_inputs
# shellcheck disable=SC2086
[ -x "$dir/replay_template" ] &&
	replay template "fuzz template: the chart cases' templates" \
		"$TESTS_DIR"/helm/*/input/templates/*.yaml
# shellcheck disable=SC2086
[ -x "$dir/replay_config" ] &&
	replay config "fuzz config: the golden configs" $golden_configs
[ -x "$dir/replay_admission" ] &&
	replay admission "fuzz admission: the webhook's test reviews" \
		"$TESTS_DIR/webhook/admission-review.json" \
		"$TESTS_DIR"/bench/review-*.json
if [ -x "$dir/replay_pem" ]; then
	if webhook_pair "$dir/certs"; then
		{ cat "$dir/certs/tls.crt"; printf -- '--key--\n'; cat "$dir/certs/tls.key"; } \
			>"$dir/pair"
		{ cat "$dir/certs/tls.crt"; printf -- '--key--\n'; cat "$dir/certs/ca.crt"; } \
			>"$dir/cert-and-ca"
		replay pem "fuzz pem: a pair from gpumend certs" "$dir/pair" \
			"$dir/cert-and-ca"
	else
		fail "fuzz pem: gpumend certs cannot make a pair to replay"
		sed 's/^/    /' "$dir/certs/certs.err"
	fi
fi

finish fuzz_regressions
