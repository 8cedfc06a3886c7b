#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/bench/floods.sh BUILD OUT - the connection-flood half of `make
# bench`: how long good reviews take while thousands of idle connections
# are held, a figure where tests/suites/hostile_webhook.sh only asserts
# the contract (every review answered within the registration's
# timeoutSeconds).
#
# For each flood of tests/hostile/webhook-floods.tsv, against a server of
# its own (--header-timeout 3 and the line's SERVER-ARGS): 100 reviews of
# a legacy GPU pod one after the other, each on a new connection
# (handshake included, as an API server opening one) without the flood,
# then 200 while the flood is held (tests/hostile/tls_client.c, repeat and
# hold). Appends a Markdown table of p50 / p99 / max to OUT and prints it.
set -eu
GPUMEND_BUILD=$1
OUT=$2
. "$(dirname "$0")/../lib.sh"
BUILD=$GPUMEND_BUILD
HERE=$TESTS_DIR/bench
work=${BENCH_DIR:-${TMPDIR:-/tmp}/gpumend-bench}/floods
mkdir -p "$work"
WEBHOOK_DIR=$work

die() {
	echo "floods bench: $*" >&2
	exit 1
}

hold_pid=""
at_exit '[ -z "$hold_pid" ] || kill -KILL "$hold_pid" 2>/dev/null'

tls_client_build "$work" ||
	die "cannot build tests/hostile/tls_client.c: $(cat "$work/cc.err")"
"$BUILD/gpumend" certs --service gpumend --namespace gpumend --out "$work/certs" \
	--ip 127.0.0.1 --force >/dev/null 2>"$work/certs.err" ||
	die "cannot make certificates: $(cat "$work/certs.err")"
body="$HERE/review-legacy-pod.json"
printf 'POST /mutate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %s\r\n\r\n' \
	"$(wc -c <"$body")" >"$work/good.req"
cat "$body" >>"$work/good.req"
# what the floods send before they stall (--prefix NAME)
flood_prefixes "$work"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || :
fds=$(ulimit -n)

# figures LINE: "p50 / p99 / max" of a `tls_client repeat` line (answered
# A of N p50_ms T p99_ms T max_ms T), and the unanswered when there are.
figures() {
	echo "$1" | awk '{
		printf "%s / %s / %s", $6, $8, $10
		if ($2 != $4) printf " (%d of %d unanswered)", $4 - $2, $4
	}'
}

rows=""
tab=$(printf '\t')
cases "$TESTS_DIR/hostile/webhook-floods.tsv" >"$work/floods.cases"
while IFS="$tab" read -r name args count opts held <&3; do
	if [ "$fds" != unlimited ] && [ "$fds" -lt $((count + 512)) ]; then
		rows="$rows
| $name | (not run: the descriptor limit $fds is under $((count + 512))) | | |"
		continue
	fi
	[ "$args" = - ] && args=""
	header_timeout=$(printf '%s\n' "$args" | sed -n 's/.*--header-timeout \([0-9]*\).*/\1/p')
	args=$(printf '%s\n' "$args" | sed 's/--header-timeout [0-9]*//')
	# shellcheck disable=SC2086
	webhook_start flood --tls-cert "$work/certs/tls.crt" --tls-key "$work/certs/tls.key" \
		--header-timeout "${header_timeout:-3}" $args ||
		die "$name: the webhook does not start: $(tail -n 5 "$work/flood.log")"
	base=$("$work/tls_client" repeat "$webhook_port" "$work/good.req" 100 \
		--from 127.0.0.1 --timeout-ms 10000)
	rm -f "$work/flood.ready"
	# shellcheck disable=SC2086
	(cd "$work" && exec ./tls_client hold "$webhook_port" "$count" 60 $opts \
		--ready flood.ready) >/dev/null &
	hold_pid=$!
	i=0
	while [ ! -s "$work/flood.ready" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	# opened N held H
	held_now=$(awk '{ print $4 }' "$work/flood.ready" 2>/dev/null)
	timed=$("$work/tls_client" repeat "$webhook_port" "$work/good.req" 200 \
		--from 127.0.0.1 --timeout-ms 10000)
	kill -KILL "$hold_pid" 2>/dev/null || :
	wait "$hold_pid" 2>/dev/null || :
	hold_pid=""
	webhook_stop || :
	rows="$rows
| $name | ${held_now:-?} | $(figures "$base") | $(figures "$timed") |"
done 3<"$work/floods.cases"

{
	echo "### Webhook: good reviews during connection floods"
	echo
	echo "Each flood of tests/hostile/webhook-floods.tsv against a server of its own"
	echo "(its defaults, --header-timeout 3 unless the line says): milliseconds from"
	echo "the connect to the whole answer of a legacy GPU pod's review, each on a new"
	echo "TLS connection, one after the other (tests/hostile/tls_client.c repeat):"
	echo "100 without the flood, then 200 while it is held. The load runs on the"
	echo "same $(nproc) cores. tests/suites/hostile_webhook.sh asserts only that"
	echo "every review is answered within the registration's timeoutSeconds."
	echo
	echo "| flood | connections held | without: p50 / p99 / max ms | during: p50 / p99 / max ms |"
	echo "|---|---:|---:|---:|$rows"
	echo
} | tee -a "$OUT"
