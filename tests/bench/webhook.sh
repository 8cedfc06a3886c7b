#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/bench/webhook.sh BUILD OUT - the webhook half of `make bench`.
#
# gpumend-webhook against its floor (tests/bench/floor_server.c: the same
# libmicrohttpd + GnuTLS set-up, a handler that reads the body and answers
# a fixed AdmissionReview), both on 127.0.0.1 with an ECDSA P-256
# certificate from `gpumend certs`, over kept-alive TLS connections, for
# four AdmissionReviews: a legacy GPU pod that needs several rules, a
# modern GPU pod that needs nothing, a pod without GPUs (most of what a
# cluster creates; the prefilter answers it without the rules), and a
# large Deployment (generated here) that needs one rule. For each:
#   - peak throughput: wrk, closed loop (BENCH_WEBHOOK_CONNECTIONS, 32),
#     and the server's CPU time per request; also of the Go peer
#     (tests/bench/peer-go);
#   - latency at a fixed rate, half of the floor's peak (and, for gpumend,
#     also half of its own peak when it cannot sustain the first), by
#     tests/bench/rate_client.c (open loop: wrk has no fixed rate and wrk2
#     is not in Debian); the handler's own p99 from the webhook's log
#     (review_ms of each request);
#   - the webhook's peak RSS (VmHWM, reset before each body).
# The webhook runs with its defaults (threads: one per CPU, log level
# info, its log going to a file). Appends Markdown tables to OUT and
# prints them. Runs about two and a half minutes.
set -eu
GPUMEND_BUILD=$1
OUT=$2
. "$(dirname "$0")/../lib.sh"
BUILD=$GPUMEND_BUILD
HERE=$TESTS_DIR/bench
ROOT=$REPO_DIR
DURATION=${BENCH_WEBHOOK_SECONDS:-8}
CONNS=${BENCH_WEBHOOK_CONNECTIONS:-32}
RATE_CONNS=${BENCH_WEBHOOK_RATE_CONNECTIONS:-16}
LARGE_KB=${BENCH_WEBHOOK_LARGE_KB:-200}
work=${BENCH_DIR:-${TMPDIR:-/tmp}/gpumend-bench}/webhook
mkdir -p "$work"

pids=""
cleanup() {
	for p in $pids; do
		kill -TERM "$p" 2>/dev/null || true
	done
	for p in $pids; do
		wait "$p" 2>/dev/null || true
	done
	rm -f "$work/webhook.log"
}
at_exit cleanup

die() {
	echo "webhook bench: $*" >&2
	exit 1
}

# ------------------------------------------------------------------
# Tools

if ! command -v wrk >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq wrk >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null; } ||
		die "cannot install wrk (apt-get install wrk)"
fi
command -v curl >/dev/null 2>&1 || die "curl not found"
if [ ! -x "$BUILD/gpumend-webhook" ] || [ ! -x "$BUILD/gpumend" ]; then
	die "build the binaries first (make)"
fi

. "$HERE/tools.sh"
bench_build_floor
bench_build_peer_go
# shellcheck disable=SC2046,SC2086
cc $CFLAGS_BENCH -o "$work/rate_client" "$HERE/rate_client.c" \
	$(pkg-config --cflags --libs openssl) -lpthread
bench_certs

large="$work/review-large-deployment.json"
large_review "$LARGE_KB" >"$large"

# ------------------------------------------------------------------
# The servers

"$work/floor_server" "$work/certs/tls.crt" "$work/certs/tls.key" \
	>"$work/floor.out" 2>"$work/floor.err" &
floor_pid=$!
pids="$floor_pid"
"$BUILD/bench/peer-go" "$work/certs/tls.crt" "$work/certs/tls.key" \
	>"$work/peer-go.out" 2>"$work/peer-go.err" &
peer_pid=$!
pids="$pids $peer_pid"
# its log appended to (O_APPEND), so that it can be emptied between runs;
# sets webhook_pid and webhook_port
WEBHOOK_DIR=$work
webhook_start webhook --tls-cert "$work/certs/tls.crt" --tls-key "$work/certs/tls.key" ||
	die "the webhook did not start: $(cat "$work/webhook.log")"
pids="$pids $webhook_pid"

floor_port="" peer_port=""
i=0
while [ $i -lt 200 ] && { [ -z "$floor_port" ] || [ -z "$peer_port" ]; }; do
	floor_port=$(sed -n 's/^port \([0-9]*\)$/\1/p' "$work/floor.out")
	peer_port=$(sed -n 's/^port \([0-9]*\)$/\1/p' "$work/peer-go.out")
	kill -0 "$peer_pid" 2>/dev/null || die "the Go peer did not start: $(cat "$work/peer-go.err")"
	kill -0 "$floor_pid" 2>/dev/null || die "the floor server did not start: $(cat "$work/floor.err")"
	sleep 0.05
	i=$((i + 1))
done
if [ -z "$floor_port" ] || [ -z "$peer_port" ]; then
	die "the floor server or the Go peer did not start in 10 s"
fi

# ------------------------------------------------------------------
# Measures

clk_tck=$(getconf CLK_TCK)
load=$(cut -d' ' -f1-3 /proc/loadavg)

# cpu_ticks PID: user and system time of the process so far, in ticks.
cpu_ticks() {
	sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# peak PORT PID BODY: closed-loop throughput; prints "REQ/S CPU-US/REQ BAD"
# (BAD: non-2xx answers and socket errors).
peak() {
	_t0=$(cpu_ticks "$2")
	BENCH_BODY=$3 wrk -t2 -c"$CONNS" -d"${DURATION}s" -s "$HERE/post.lua" \
		"https://127.0.0.1:$1/mutate" >"$work/wrk.out" 2>&1 ||
		die "wrk failed: $(cat "$work/wrk.out")"
	_t1=$(cpu_ticks "$2")
	awk -v t0="$_t0" -v t1="$_t1" -v hz="$clk_tck" '
		/requests in/ { n = $1 }
		/^Requests\/sec:/ { rps = $2 }
		/Non-2xx/ { bad += $NF }
		/Socket errors/ {
			gsub(/,/, "")
			bad += $4 + $6 + $8 + $10
		}
		END {
			printf "%.0f %.0f %d\n", rps,
				n ? (t1 - t0) / hz * 1e6 / n : 0, bad
		}' "$work/wrk.out"
}

# fixed PORT BODY RATE: open-loop latency; prints rate_client's line.
fixed() {
	"$work/rate_client" "$1" "$2" "$3" $((DURATION + 1)) "$RATE_CONNS" 1 ||
		die "rate_client failed"
}

# field LINE NAME: the value after NAME in a rate_client line.
field() {
	echo "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}

# lat LINE: "p50 / p99 / p99.9" in ms, "overloaded" when requests missed.
lat() {
	echo "$1" | awk -v rate="$2" '{
		for (i = 1; i < NF; i++)
			v[$i] = $(i + 1)
		if (v["p50_us"] < 0 || v["p99_us"] < 0 || v["p999_us"] < 0)
			printf "overloaded (%s of %s req/s answered)", v["rate"], rate
		else
			printf "%.2f / %.2f / %.2f", v["p50_us"] / 1e3,
				v["p99_us"] / 1e3, v["p999_us"] / 1e3
	}'
}

# handler_p99 SKIP: p99 of review_ms in the webhook's log, the first SKIP
# reviews (the warm-up) left out; "-" when there are none.
handler_p99() {
	sed -n 's/.*"review_ms":\([0-9.e+-]*\).*/\1/p' "$work/webhook.log" |
		tail -n +"$(($1 + 1))" | sort -g |
		awk '{ v[NR] = $1 } END {
			if (!NR) { print "-"; exit }
			r = int(0.99 * NR + 0.999999)
			printf "%.2f", v[r]
		}'
}

vm_hwm_kb() {
	awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"
}

# check NAME FILE PATCH: the webhook allows FILE, with a patch when PATCH
# is 1 and none when 0; the floor answers 200.
check() {
	_code=$(curl -sk -o "$work/answer.json" -w '%{http_code}' \
		-H 'Content-Type: application/json' --data-binary "@$2" \
		"https://127.0.0.1:$webhook_port/mutate") || die "curl failed"
	if [ "$_code" != 200 ] || ! grep -q '"allowed":true' "$work/answer.json"; then
		die "$1: the webhook answered $_code: $(head -c 300 "$work/answer.json")"
	fi
	if grep -q '"patch":' "$work/answer.json"; then _has=1; else _has=0; fi
	[ "$_has" = "$3" ] || die "$1: expected patch=$3, the answer has $_has"
	_code=$(curl -sk -o /dev/null -w '%{http_code}' \
		-H 'Content-Type: application/json' --data-binary "@$2" \
		"https://127.0.0.1:$floor_port/mutate") || die "curl failed"
	[ "$_code" = 200 ] || die "$1: the floor answered $_code"
}

kb() {
	awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f KB", b / 1000 }'
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a >= 0) printf "%.2f", a / b; else print "-" }'
}

throughput_rows=""
latency_rows=""
verdicts=""
max_rss=0

# bench NAME FILE PATCH TARGET: measures one body; TARGET is the req/s
# ratio it must reach ("" for none).
bench() {
	_name=$1 _file=$2
	check "$_name" "$_file" "$3"
	echo "webhook bench: $_name ($(kb "$_file"))..." >&2
	echo 5 >"/proc/$webhook_pid/clear_refs" 2>/dev/null || true

	_f=$(peak "$floor_port" "$floor_pid" "$_file")
	_g=$(peak "$webhook_port" "$webhook_pid" "$_file")
	_p=$(peak "$peer_port" "$peer_pid" "$_file")
	read -r _p_rps _p_cpu _p_bad <<EOF
$_p
EOF
	read -r _f_rps _f_cpu _f_bad <<EOF
$_f
EOF
	read -r _g_rps _g_cpu _g_bad <<EOF
$_g
EOF
	if [ "$_f_bad" != 0 ] || [ "$_g_bad" != 0 ] || [ "$_p_bad" != 0 ]; then
		die "$_name: bad answers under load (floor $_f_bad, gpumend $_g_bad, Go peer $_p_bad)"
	fi
	_rps_ratio=$(ratio "$_g_rps" "$_f_rps")

	_rate=$((_f_rps / 2))
	[ "$_rate" -ge 1 ] || _rate=1
	_fl=$(fixed "$floor_port" "$_file" "$_rate")
	: >"$work/webhook.log"
	_gl=$(fixed "$webhook_port" "$_file" "$_rate")
	_h99=$(handler_p99 "$_rate")
	_p99_ratio="overloaded"
	if [ "$(field "$_gl" p99_us)" != -1 ] && [ "$(field "$_fl" p99_us)" != -1 ]; then
		_p99_ratio=$(ratio "$(field "$_gl" p99_us)" "$(field "$_fl" p99_us)")
	fi
	# when it cannot keep up, also at half of its own peak
	_own="" _own_h99=""
	_own_rate=$((_g_rps / 2))
	[ "$_own_rate" -ge 1 ] || _own_rate=1
	if [ "$(field "$_gl" missed)" != 0 ]; then
		: >"$work/webhook.log"
		_ol=$(fixed "$webhook_port" "$_file" "$_own_rate")
		_own="$_own_rate req/s: $(lat "$_ol" "$_own_rate")"
		_own_h99=$(handler_p99 "$_own_rate")
	fi
	_rss=$(vm_hwm_kb "$webhook_pid")
	[ "$_rss" -gt "$max_rss" ] && max_rss=$_rss

	throughput_rows="$throughput_rows
| $_name | $(kb "$_file") | $_f_rps | $_g_rps | $_rps_ratio | $_p_rps | $(ratio "$_g_rps" "$_p_rps") | $_f_cpu | $_g_cpu | $_p_cpu | $(awk -v k="$_rss" 'BEGIN { printf "%.1f MB", k / 1024 }') |"
	latency_rows="$latency_rows
| $_name | $_rate | $(lat "$_fl" "$_rate") | $(lat "$_gl" "$_rate") | $_p99_ratio | $_h99 | ${_own:--} | ${_own_h99:--} |"
	if [ -n "$4" ]; then
		if awk -v r="$_rps_ratio" -v t="$4" 'BEGIN { exit !(r != "-" && r >= t) }'; then
			_v="met"
		else
			_v="NOT met"
		fi
		verdicts="$verdicts
- $_name: req/s >= ${4}x floor: $_v ($_rps_ratio)"
	fi
	# the handler target, at half of the floor's peak or else of its own
	_hv=$_h99
	[ -n "$_own_h99" ] && _hv=$_own_h99
	if awk -v h="$_hv" 'BEGIN { exit !(h != "-" && h <= 1) }'; then
		_v="met"
	else
		_v="NOT met"
	fi
	# (no `[ ] && echo` in the substitution: its status would end the
	# function, and set -e the script, when the webhook kept up)
	_where=""
	if [ -n "$_own_h99" ]; then
		_where=", at half of its own peak"
	fi
	verdicts="$verdicts
- $_name: handler p99 <= 1 ms at half of peak: $_v ($_hv ms$_where)"
}

bench "legacy GPU pod (6 findings, 4 rules)" "$HERE/review-legacy-pod.json" 1 0.7
bench "modern pod (nothing to do)" "$HERE/review-modern-pod.json" 0 0.85
bench "plain pod, no GPU (nothing to do)" "$HERE/review-plain-pod.json" 0 0.85
bench "large Deployment (1 rule)" "$large" 1 ""

if [ "$max_rss" -le $((32 * 1024)) ]; then _v="met"; else _v="NOT met"; fi
verdicts="$verdicts
- webhook peak RSS <= 32 MB under load: $_v ($(awk -v k="$max_rss" 'BEGIN { printf "%.1f MB", k / 1024 }'))"

{
	echo "### Webhook: gpumend-webhook against its floor"
	echo
	echo "Over kept-alive TLS 1.3 connections to 127.0.0.1; the floor is"
	echo "tests/bench/floor_server.c (the same libmicrohttpd + GnuTLS set-up,"
	echo "reads the body, answers a fixed AdmissionReview). The webhook runs with"
	echo "its defaults ($(nproc) threads, log level info to a file). The load"
	echo "generators run on the same $(nproc) cores as the servers and take part of"
	echo "them: req/s is what this machine does with both, CPU us/req (the"
	echo "server's own CPU time over the requests it answered) is the server's cost."
	echo "Load average when the run started: $load (other work on the machine adds noise)."
	echo
	echo "Peak throughput: wrk -t2 -c$CONNS -d${DURATION}s (closed loop)."
	echo
	echo "| request | body | floor req/s | gpumend req/s | x floor | Go peer req/s | gpumend x Go peer | floor CPU us/req | gpumend CPU us/req | Go peer CPU us/req | webhook peak RSS |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|$throughput_rows"
	echo
	echo "Latency at a fixed rate, half of the floor's peak: tests/bench/rate_client.c,"
	echo "open loop, $RATE_CONNS connections, ${DURATION} s measured after 1 s of warm-up;"
	echo "milliseconds from when each request was due to its whole answer. Handler p99:"
	echo "the webhook's own review time (review_ms in its log) over the same requests."
	echo
	echo "| request | rate req/s | floor p50 / p99 / p99.9 | gpumend p50 / p99 / p99.9 | p99 x floor | handler p99 | gpumend at half its own peak | its handler p99 |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|$latency_rows"
	echo
	echo "Targets:$verdicts"
	echo
} | tee -a "$OUT"
