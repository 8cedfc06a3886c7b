#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/bench/instructions.sh BUILD OUT - instructions per request, by
# callgrind, of gpumend-webhook, its floor (tests/bench/floor_server.c) and
# the Go peer (tests/bench/peer-go: net/http, crypto/tls, encoding/json).
#
# Each server runs whole under `valgrind --tool=callgrind` with its
# defaults, and tests/bench/count_client.c sends it one body N times, then,
# in a second run, M times, over one kept-alive TLS connection. The count
# of a run is every instruction of the process, all threads, from start to
# exit; per request = (I(M) - I(N)) / (M - N): start-up, the handshake and
# shutdown cancel out. The Go peer runs with GODEBUG=asyncpreemptoff=1 and
# is stopped by closing its standard input: callgrind stops on an
# assertion when a signal reaches a Go program (the preemption signal
# included).
#
# Other work on the machine can only add to a count (a request read in
# more pieces, more turns of the event loops), so I(N) and I(M) are each
# the least of BENCH_COUNT_REPEAT (3) runs.
#
# Prints, for each body, a line
#   instructions per request: gpumend N, floor N, go-peer N
# and appends a Markdown table to OUT. The callgrind files of the M runs
# stay in the work directory for callgrind_annotate. Checks first that the
# Go peer answers the patch gpumend answers with only its two fixes on.
#
# BENCH_COUNT_N, BENCH_COUNT_M (20, 220): the two request counts;
# BENCH_COUNT_LARGE_N, BENCH_COUNT_LARGE_M (2, 12) for the 200 KB
# Deployment; BENCH_CALLGRIND_ARGS: more callgrind options (for example
# --dump-instr=yes to profile); BENCH_COUNT_SERVERS (gpumend floor
# go-peer) and BENCH_COUNT_BODIES (legacy modern plain large): what to
# measure, the others being reported as "-"; BENCH_COUNT_LEGACY_BODY:
# another body in place of the legacy pod's (review-legacy-pod-reads.json
# is it with only the members its rules read). About fifteen minutes.
set -eu
BUILD=$(cd "$1" && pwd)
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
N=${BENCH_COUNT_N:-20}
M=${BENCH_COUNT_M:-220}
LARGE_N=${BENCH_COUNT_LARGE_N:-2}
LARGE_M=${BENCH_COUNT_LARGE_M:-12}
LARGE_KB=${BENCH_WEBHOOK_LARGE_KB:-200}
REPEAT=${BENCH_COUNT_REPEAT:-3}
CALLGRIND_ARGS=${BENCH_CALLGRIND_ARGS:-}
SERVERS=${BENCH_COUNT_SERVERS:-gpumend floor go-peer}
BODIES=${BENCH_COUNT_BODIES:-legacy modern plain large}
work=${BENCH_DIR:-${TMPDIR:-/tmp}/gpumend-bench}/instructions
mkdir -p "$work"

die() {
	echo "instructions bench: $*" >&2
	exit 1
}

legacy_body=${BENCH_COUNT_LEGACY_BODY:-$HERE/review-legacy-pod.json}
[ -r "$legacy_body" ] ||
	die "BENCH_COUNT_LEGACY_BODY: cannot read $legacy_body"

server_pid=""
cleanup() {
	exec 3>&- 2>/dev/null || true
	if [ -n "$server_pid" ]; then
		kill -TERM "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$M" -gt "$N" ] && [ "$LARGE_M" -gt "$LARGE_N" ] || die "M must exceed N"
if ! command -v valgrind >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq valgrind >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null && apt-get install -y -qq valgrind >/dev/null; } ||
		die "cannot install valgrind (apt-get install valgrind)"
fi
if [ ! -x "$BUILD/gpumend-webhook" ] || [ ! -x "$BUILD/gpumend" ]; then
	die "build the binaries first (make)"
fi

. "$HERE/tools.sh"
bench_build_floor
bench_build_peer_go
# shellcheck disable=SC2046
cc -O2 -o "$work/count_client" "$HERE/count_client.c" \
	$(pkg-config --cflags --libs openssl) || die "cannot build count_client"
bench_certs
large="$work/review-large-deployment.json"
large_review "$LARGE_KB" >"$large"

# ------------------------------------------------------------------

# start SERVER CALLGRIND-OUT: starts SERVER (gpumend, floor or go-peer)
# under callgrind; sets server_pid and port.
start() {
	_out=$2
	: >"$work/server.out"
	: >"$work/server.err"
	case $1 in
	gpumend)
		# shellcheck disable=SC2086
		valgrind --tool=callgrind --callgrind-out-file="$_out" $CALLGRIND_ARGS \
			"$BUILD/gpumend-webhook" --listen 127.0.0.1:0 \
			--tls-cert "$work/certs/tls.crt" --tls-key "$work/certs/tls.key" \
			>"$work/server.out" 2>"$work/server.err" &
		;;
	floor)
		# shellcheck disable=SC2086
		valgrind --tool=callgrind --callgrind-out-file="$_out" $CALLGRIND_ARGS \
			"$work/floor_server" "$work/certs/tls.crt" "$work/certs/tls.key" \
			>"$work/server.out" 2>"$work/server.err" &
		;;
	go-peer)
		rm -f "$work/stdin"
		mkfifo "$work/stdin"
		# shellcheck disable=SC2086
		GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
			--callgrind-out-file="$_out" $CALLGRIND_ARGS \
			"$BUILD/bench/peer-go" "$work/certs/tls.crt" "$work/certs/tls.key" \
			--until-eof <"$work/stdin" >"$work/server.out" 2>"$work/server.err" &
		exec 3>"$work/stdin"
		;;
	esac
	server_pid=$!
	port=""
	_i=0
	while [ -z "$port" ]; do
		port=$(sed -n -e 's/^port \([0-9]*\)$/\1/p' \
			-e 's/.*"msg":"started".*"listen":"127\.0\.0\.1:\([0-9]*\)".*/\1/p' \
			"$work/server.out" "$work/server.err")
		[ -n "$port" ] && break
		kill -0 "$server_pid" 2>/dev/null ||
			die "$1 did not start: $(tail -5 "$work/server.err")"
		_i=$((_i + 1))
		[ $_i -lt 1200 ] || die "$1 did not start in 120 s"
		sleep 0.1
	done
}

# stop SERVER: ends it the way it ends normally and waits for callgrind's
# summary; sets count to the instructions of the whole run.
stop() {
	if [ "$1" = go-peer ]; then
		exec 3>&-
	else
		kill -TERM "$server_pid"
	fi
	wait "$server_pid" || die "$1 exited with status $?: $(tail -5 "$work/server.err")"
	server_pid=""
	count=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$work/server.err")
	[ -n "$count" ] || die "$1: no callgrind summary: $(tail -5 "$work/server.err")"
}

# run SERVER BODY COUNT TAG: sets count to the instructions of a whole run
# of COUNT requests.
run() {
	start "$1" "$work/callgrind.$1.$4.$3"
	"$work/count_client" "$port" "$2" "$3" "$work/answer.$1.$4" ||
		die "$1: the requests failed"
	stop "$1"
}

# per_request SERVER BODY TAG N M: sets per to the instructions per
# request, from the least I(N) and the least I(M) of $REPEAT runs each.
per_request() {
	_a="" _b=""
	_r=0
	while [ $_r -lt "$REPEAT" ]; do
		run "$1" "$2" "$4" "$3"
		if [ -z "$_a" ] || [ "$count" -lt "$_a" ]; then _a=$count; fi
		run "$1" "$2" "$5" "$3"
		if [ -z "$_b" ] || [ "$count" -lt "$_b" ]; then _b=$count; fi
		_r=$((_r + 1))
	done
	per=$(awk -v a="$_a" -v b="$_b" -v n="$4" -v m="$5" \
		'BEGIN { printf "%.0f", (b - a) / (m - n) }')
}

# patch_of ANSWER: the decoded patch of an AdmissionReview answer.
patch_of() {
	sed -n 's/.*"patch":"\([^"]*\)".*/\1/p' "$1" | base64 -d
}

# The Go peer must answer what gpumend answers with only its two fixes.
cat >"$work/two-fixes.yaml" <<'EOF'
rules:
  deprecated-workload-api: off
  legacy-gpu-node-label: off
  legacy-affinity-annotation: off
  gpu-model-affinity: off
  gpu-sharing: off
  gpu-visibility: off
  removed-gpu-feature-gate: off
  critical-pod-annotation: off
  obsolete-gpu-component: off
  legacy-scheduler-config: off
EOF
case " $SERVERS " in
*" go-peer "*) checked="$HERE/review-legacy-pod.json $large" ;;
*) checked="" ;;
esac
for body in $checked; do
	"$BUILD/gpumend" review -c "$work/two-fixes.yaml" "$body" >"$work/answer.expected"
	start go-peer "$work/callgrind.check"
	"$work/count_client" "$port" "$body" 1 "$work/answer.go-peer.check" ||
		die "go-peer: the request failed"
	stop go-peer
	want=$(patch_of "$work/answer.expected")
	got=$(patch_of "$work/answer.go-peer.check")
	[ -n "$want" ] && [ "$want" = "$got" ] ||
		die "the Go peer's patch for $(basename "$body") is not gpumend's: $got"
done
rm -f "$work/callgrind.check"

rows=""
lines=""
# kilo COUNT: COUNT in thousands ("-" when not measured)
kilo() {
	case $1 in
	-) echo - ;;
	*) awk -v v="$1" 'BEGIN { printf "%.0f K", v / 1000 }' ;;
	esac
}

# ratio A B: A / B ("-" when either was not measured)
ratio() {
	case "$1 $2" in
	-* | *" -") echo - ;;
	*) awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }' ;;
	esac
}

# count_of SERVER FILE TAG N M: sets per for SERVER, or to - when it is
# not measured
count_of() {
	case " $SERVERS " in
	*" $1 "*) per_request "$@" ;;
	*) per=- ;;
	esac
}

# measure KEY NAME FILE N M
measure() {
	case " $BODIES " in
	*" $1 "*) ;;
	*) return 0 ;;
	esac
	shift
	echo "instructions bench: $1 (N=$3, M=$4)..." >&2
	_tag=$(basename "$2" .json)
	count_of gpumend "$2" "$_tag" "$3" "$4"
	_g=$per
	count_of floor "$2" "$_tag" "$3" "$4"
	_f=$per
	count_of go-peer "$2" "$_tag" "$3" "$4"
	_p=$per
	_line="instructions per request: gpumend $_g, floor $_f, go-peer $_p"
	echo "$1"
	echo "$_line"
	lines="$lines
$1: $_line"
	rows="$rows
| $1 | $(awk -v b="$(stat -c %s "$2")" 'BEGIN { printf "%.1f KB", b / 1000 }') | $(kilo "$_f") | $(kilo "$_g") | $(kilo "$_p") | $(ratio "$_g" "$_f") | $(ratio "$_p" "$_g") |"
}

measure legacy "legacy pod" "$legacy_body" "$N" "$M"
measure modern "modern GPU pod" "$HERE/review-modern-pod.json" "$N" "$M"
measure plain "pod without GPUs" "$HERE/review-plain-pod.json" "$N" "$M"
measure large "Deployment, ${LARGE_KB} KB" "$large" "$LARGE_N" "$LARGE_M"

{
	echo "### Webhook: instructions per request (callgrind)"
	echo
	echo "Each server whole under valgrind --tool=callgrind, with its defaults;"
	echo "one kept-alive TLS connection; (I(M) - I(N)) / (M - N) over runs of"
	echo "N=$N and M=$M requests (N=$LARGE_N and M=$LARGE_M for the Deployment),"
	echo "each I the least of $REPEAT runs."
	echo "Go peer: tests/bench/peer-go ($(go version | cut -d' ' -f3), GODEBUG=asyncpreemptoff=1)."
	echo
	echo "| body | size | floor | gpumend | Go peer | gpumend / floor | Go / gpumend |"
	echo "|---|--:|--:|--:|--:|--:|--:|$rows"
	echo
	echo "$lines" | sed '1d'
	echo
} >>"$OUT"
