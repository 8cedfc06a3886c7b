#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/soak.sh [BUILD] - `make soak`: gpumend-webhook under a steady TLS
# load for $SOAK_SECONDS (default 600), at half of its peak throughput:
#   1. peak: wrk, closed loop, $SOAK_CONNECTIONS (32) kept-alive TLS
#      connections, 10 s, POSTing the AdmissionReview of a legacy GPU pod
#      that several rules mutate (tests/webhook/legacy-pod.json);
#   2. the soak: the same connections paced (tests/hostile/post.lua waits
#      between requests, calibrated in a 5 s run) to half of that peak;
#      the server's VmRSS sampled every 5 s;
#   3. verdict: every answer 200 and no socket error, and RSS growth under
#      1 MiB from the end of the warm-up (a fifth of the run, at most 60 s)
#      to the end.
# The webhook runs with its defaults (a thread per CPU) but --log-level
# warn: at info, ten minutes write a line per request. Writes a Markdown
# report to BUILD/soak.md and prints it; exits 1 when the verdict fails.
set -u
GPUMEND_BUILD=${1:-build}
. "$(dirname "$0")/lib.sh"
SECONDS_TOTAL=${SOAK_SECONDS:-600}
CONNS=${SOAK_CONNECTIONS:-32}
HERE=$TESTS_DIR
OUT="$GPUMEND_BUILD/soak.md"
RSS_LIMIT_KB=1024

die() {
	echo "soak: $*" >&2
	exit 2
}
for tool in wrk curl jq; do
	command -v "$tool" >/dev/null 2>&1 || die "'$tool' not found (apt-get install $tool)"
done
work=$(scratch)
WEBHOOK_DIR=$work
pids=""
at_exit 'for p in $pids; do kill -TERM "$p" 2>/dev/null; done'

webhook_pair "$work/certs" || die "cannot make certificates: $(cat "$work/certs/certs.err")"
jq -c '{apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview",
	request: {uid: "soak", kind: {group: "", version: "v1", kind: "Pod"},
		resource: {group: "", version: "v1", resource: "pods"},
		namespace: "ml", operation: "CREATE", object: .}}' \
	"$HERE/webhook/legacy-pod.json" >"$work/body.json"
export GPUMEND_BODY="$work/body.json"

# (the "started" line is not logged at warn: webhook_start finds the port
# from the listening socket)
webhook_start webhook --tls-cert "$work/certs/tls.crt" --tls-key "$work/certs/tls.key" \
	--log-level warn || die "the webhook does not start: $(cat "$work/webhook.log")"
server=$webhook_pid
url=$webhook_url

rss() {
	awk '$1 == "VmRSS:" { print $2 }' "/proc/$server/status"
}

# wrk_run SECONDS DELAY-MS OUT: wrk over $CONNS connections.
wrk_run() {
	GPUMEND_DELAY_MS=$2 wrk -t 2 -c "$CONNS" -d "${1}s" --timeout 5s --latency \
		-s "$HERE/hostile/post.lua" "$url" >"$3" 2>&1
}
rate_of() {
	awk '/^Requests\/sec:/ { print int($2) }' "$1"
}

wrk_run 3 0 "$work/warm.out"
wrk_run 10 0 "$work/peak.out"
peak=$(rate_of "$work/peak.out")
[ -n "$peak" ] && [ "$peak" -gt 0 ] || die "no peak measured: $(cat "$work/peak.out")"
target=$((peak / 2))
# pace: rate = CONNS * 1000 / (delay + latency); one calibration step
delay=$((CONNS * 1000 / target))
[ "$delay" -ge 1 ] || delay=1
wrk_run 5 "$delay" "$work/calib.out"
got=$(rate_of "$work/calib.out")
if [ -n "$got" ] && [ "$got" -gt 0 ]; then
	# latency in ms per request at that pace, then the delay that leaves
	lat=$(awk -v c="$CONNS" -v r="$got" -v d="$delay" 'BEGIN { l = c * 1000 / r - d; print (l > 0 ? l : 0) }')
	delay=$(awk -v c="$CONNS" -v t="$target" -v l="$lat" 'BEGIN { d = c * 1000 / t - l; printf "%d", (d < 1 ? 1 : d + 0.5) }')
fi

# the soak, with RSS sampled every 5 s
warmup=$((SECONDS_TOTAL / 5))
[ "$warmup" -gt 60 ] && warmup=60
(
	t=0
	while webhook_running "$server" && [ ! -f "$work/done" ]; do
		echo "$t $(rss)"
		sleep 5
		t=$((t + 5))
	done
) >"$work/rss" &
sampler=$!
pids="$pids $sampler"
rss_start=$(rss)
wrk_run "$SECONDS_TOTAL" "$delay" "$work/soak.out"
touch "$work/done"
wait "$sampler"
rss_end=$(rss)
rss_warm=$(awk -v w="$warmup" '$1 >= w { print $2; exit }' "$work/rss")
rss_max=$(awk 'BEGIN { m = 0 } $2 > m { m = $2 } END { print m }' "$work/rss")
growth=$((rss_end - ${rss_warm:-$rss_start}))
achieved=$(rate_of "$work/soak.out")
requests=$(awk '/requests in/ { print $1 }' "$work/soak.out")
statuses=$(grep '^statuses' "$work/soak.out")
sockerr=$(grep 'Socket errors' "$work/soak.out")
latency=$(awk '/^  Latency Distribution/ { f = 1; next } f && /%/ { printf "%s %s, ", $1, $2 } /^  [0-9]+ requests/ { f = 0 }' \
	"$work/soak.out" | sed 's/, $//')
bad=$(echo "$statuses" | awk '{ for (i = 2; i <= NF; i++) if ($i !~ /^200=/) print $i }')
alive=yes
webhook_running "$server" || alive=no

verdict=pass
[ -n "$bad" ] || [ -n "$sockerr" ] || [ "$alive" = no ] || [ -z "$statuses" ] && verdict=fail
[ "$growth" -lt "$RSS_LIMIT_KB" ] || verdict=fail
{
	echo "## Soak ($(date -u +%Y-%m-%d), $(nproc) cores, ${SECONDS_TOTAL} s)"
	echo
	echo "Command: \`SOAK_SECONDS=$SECONDS_TOTAL make soak\`"
	echo
	echo "| | |"
	echo "|---|---|"
	echo "| peak (wrk, $CONNS connections, closed loop) | $peak requests/s |"
	echo "| soak target, half of peak | $target requests/s (each connection pausing $delay ms) |"
	echo "| achieved | ${achieved:-?} requests/s, ${requests:-?} requests |"
	echo "| answers | ${statuses#statuses } |"
	echo "| socket errors | ${sockerr:-none} |"
	echo "| latency | $latency |"
	echo "| RSS | ${rss_start} kB at the start, ${rss_warm:-?} kB after the ${warmup} s warm-up, ${rss_end} kB at the end (max ${rss_max} kB) |"
	echo "| RSS growth after the warm-up | ${growth} kB (limit ${RSS_LIMIT_KB} kB) |"
	echo "| server | $( [ "$alive" = yes ] && echo "alive" || echo "DIED" ), $(grep -c . "$work/webhook.log") warning/error log lines |"
	echo "| verdict | **$verdict** |"
} >"$OUT"
cat "$OUT"
echo "report written to $OUT"
webhook_stop "$server" ||
	{ echo "soak: the webhook exited $webhook_status on SIGTERM" >&2; verdict=fail; }
[ "$verdict" = pass ]
