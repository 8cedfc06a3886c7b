#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/fuzz/run.sh - builds the libFuzzer targets and runs them; what
# `make fuzz` and `make fuzz-smoke` call.
#
#   sh tests/fuzz/run.sh [TARGET...]          build, seed, run each target
#   sh tests/fuzz/run.sh build                build only
#   sh tests/fuzz/run.sh minimize TARGET FILE minimise a crashing input into
#                                             tests/fuzz/regressions/TARGET/
#
# Targets: admission migrate lint config pem template (all by default).
# Environment:
#   FUZZ_SECONDS  time per target (default 300)
#   FUZZ_JOBS     parallel fuzzing processes per target (default 1)
#   FUZZ_BUILD    build directory (default build-fuzz)
#   FUZZ_SRCS     the project's sources to link (the Makefile passes its
#                 lists; cli/main.c and webhook/main.c must not be in it)
#   MAKE, CLANG   the make and clang to use
#
# The project's objects are built by the Makefile itself into FUZZ_BUILD
# with clang, -O1 and -fsanitize=fuzzer-no-link,address,undefined; each
# target links them with -fsanitize=fuzzer. The corpus of each target grows
# in FUZZ_BUILD/corpus/TARGET across runs (seeded from the repository by
# seeds.sh and from tests/fuzz/regressions/TARGET); crashes, leaks and
# timeouts land in FUZZ_BUILD/artifacts/TARGET and fail the run.
set -u
cd "$(dirname "$0")/../.." || exit 2

ALL_TARGETS="admission migrate lint config pem template"
seconds=${FUZZ_SECONDS:-300}
jobs=${FUZZ_JOBS:-1}
B=${FUZZ_BUILD:-build-fuzz}
MAKE=${MAKE:-make}
PKGS="jansson yaml-0.1 libmicrohttpd openssl gnutls"
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
WARN="-Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith"

say() { echo "fuzz: $*"; }
die() { echo "fuzz: error: $*" >&2; exit 2; }

# -------------------------------------------------------------- clang
# A clang whose libFuzzer runtime links; installed (Debian) when missing.
clang_works() {
	command -v "$1" >/dev/null 2>&1 || return 1
	_t=$(mktemp -d)
	printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' \
		>"$_t/t.c"
	"$1" -fsanitize=fuzzer,address,undefined -o "$_t/t" "$_t/t.c" \
		>/dev/null 2>&1
	_rc=$?
	rm -rf "$_t"
	return $_rc
}

find_clang() {
	for c in ${CLANG:-} clang clang-14; do
		if clang_works "$c"; then
			CLANG=$c
			return 0
		fi
	done
	if [ "$(id -u)" != 0 ]; then
		die "no clang with libFuzzer; run as root or install: clang libclang-rt-14-dev"
	fi
	say "installing clang and its libFuzzer runtime (clang libclang-rt-14-dev)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq clang libclang-rt-14-dev \
		>/dev/null || die "apt-get install clang libclang-rt-14-dev failed"
	for c in ${CLANG:-} clang clang-14; do
		if clang_works "$c"; then
			CLANG=$c
			return 0
		fi
	done
	die "clang cannot link -fsanitize=fuzzer even after installing it"
}

# -------------------------------------------------------------- build
objects() {
	for s in $FUZZ_SRCS; do
		case $s in
		*/main.c) ;;
		*) echo "$B/${s%.c}.o" ;;
		esac
	done
}

build() {
	[ -n "${FUZZ_SRCS:-}" ] ||
		FUZZ_SRCS=$(ls rules/*.c lib/*.c certs/*.c helm/*.c cli/*.c webhook/*.c | grep -v "/main.c$")
	find_clang
	objs=$(objects)
	say "building the project's objects in $B with $CLANG"
	mkdir -p "$B/logs"
	# shellcheck disable=SC2086
	$MAKE --no-print-directory BUILD="$B" CC="$CLANG" OPT="-O1 -g" \
		EXTRA_CFLAGS="-fsanitize=fuzzer-no-link $SAN" $objs \
		>"$B/logs/make.log" 2>&1
	_rc=$?
	grep -v 'is up to date' "$B/logs/make.log"
	[ $_rc -eq 0 ] || die "building the objects failed"
	mkdir -p "$B/fuzz"
	cflags="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $WARN -O1 -g \
		-Irules -Ilib -Icerts -Ihelm -Icli -Iwebhook -Itests/fuzz \
		$(pkg-config --cflags $PKGS)"
	libs="$(pkg-config --libs $PKGS) -lpthread"
	# shellcheck disable=SC2086
	$CLANG $cflags -fsanitize=fuzzer-no-link $SAN -c tests/fuzz/fuzz_common.c \
		-o "$B/fuzz/fuzz_common.o" || die "building fuzz_common.c failed"
	for t in $ALL_TARGETS; do
		# shellcheck disable=SC2086
		$CLANG $cflags -fsanitize=fuzzer $SAN -o "$B/fuzz/fuzz_$t" \
			"tests/fuzz/fuzz_$t.c" "$B/fuzz/fuzz_common.o" $objs \
			$libs || die "building fuzz_$t failed"
	done
	# shellcheck disable=SC2086
	$CLANG $cflags -fsanitize=fuzzer-no-link $SAN -o "$B/fuzz/seed_tool" \
		tests/fuzz/seed_tool.c $objs $libs || die "building seed_tool failed"
	say "built $B/fuzz/fuzz_{$(echo $ALL_TARGETS | tr ' ' ,)}"
}

# ---------------------------------------------------------------- run
dict_of() {
	case $1 in
	admission) echo tests/fuzz/admission.dict ;;
	migrate | lint) echo tests/fuzz/yaml.dict ;;
	config) echo tests/fuzz/config.dict ;;
	pem) echo tests/fuzz/pem.dict ;;
	template) echo tests/fuzz/template.dict ;;
	esac
}

# Everything certs check prints would drown libFuzzer's own output.
fd_mask_of() { [ "$1" = pem ] && echo 3 || echo 0; }

run_target() {
	t=$1
	corpus="$B/corpus/$t"
	artifacts="$B/artifacts/$t"
	log="$B/logs/$t.log"
	mkdir -p "$corpus" "$artifacts" "$B/logs" "tests/fuzz/regressions/$t"
	before=$(ls "$artifacts" | wc -l)
	say "$t: ${seconds}s, $jobs job(s), log $log"
	ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
	UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
	"$B/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=25 \
		-rss_limit_mb=2560 -max_len=16384 -fork="$jobs" \
		-ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
		-close_fd_mask="$(fd_mask_of "$t")" -print_final_stats=1 \
		-dict="$(dict_of "$t")" -artifact_prefix="$artifacts/" \
		"$corpus" "$B/seeds/$t" "tests/fuzz/regressions/$t" \
		>"$log" 2>&1
	after=$(ls "$artifacts" | wc -l)
	stats=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	say "$t: $(ls "$corpus" | wc -l) corpus files; last: ${stats:-?}"
	if [ "$after" -gt "$before" ]; then
		say "$t: $((after - before)) new artifact(s) in $artifacts:"
		ls -t "$artifacts" | head -n $((after - before)) | sed 's/^/  /'
		return 1
	fi
	return 0
}

minimize() {
	t=$1
	file=$2
	[ -x "$B/fuzz/fuzz_$t" ] || build
	dest="tests/fuzz/regressions/$t/$(basename "$file")"
	mkdir -p "tests/fuzz/regressions/$t"
	"$B/fuzz/fuzz_$t" -minimize_crash=1 -max_total_time=120 -runs=1000000 \
		-close_fd_mask="$(fd_mask_of "$t")" \
		-exact_artifact_path="$dest" "$file" >"$B/logs/minimize.log" 2>&1
	[ -s "$dest" ] || cp "$file" "$dest"
	say "minimised $file ($(wc -c <"$file") bytes) to $dest ($(wc -c <"$dest") bytes)"
}

case "${1:-}" in
build)
	build
	exit 0
	;;
minimize)
	[ $# -eq 3 ] || die "usage: run.sh minimize TARGET FILE"
	mkdir -p "$B/logs"
	minimize "$2" "$3"
	exit 0
	;;
esac

targets=${*:-$ALL_TARGETS}
for t in $targets; do
	case " $ALL_TARGETS " in
	*" $t "*) ;;
	*) die "unknown target '$t' ($ALL_TARGETS)" ;;
	esac
done
build
sh tests/fuzz/seeds.sh "$B/seeds" "$B/fuzz/seed_tool" | sed 's/^/fuzz: /' ||
	die "making the seed corpora failed"
failed=""
for t in $targets; do
	run_target "$t" || failed="$failed $t"
done
if [ -n "$failed" ]; then
	say "FAILED:$failed (minimise with: sh tests/fuzz/run.sh minimize TARGET FILE)"
	exit 1
fi
say "no crash, leak or timeout in: $targets"
