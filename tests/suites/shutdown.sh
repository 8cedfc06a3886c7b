#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/shutdown.sh - gpumend-webhook's shutdown delay, at the
# process level, on 127.0.0.1:
#   - a rollout loses no review: a client that keeps its connection alive
#     as the API server does (tests/hostile/tls_client.c, "rollout") sends
#     a stream of reviews, SIGTERM comes in the middle: 0 failed reviews;
#     /readyz answers 503 while reviews are still served on new
#     connections, so before the drain (the order, from the client's
#     answers and from the server's log, never a time); answers ask the
#     client to close only once SIGTERM has come; exit 0;
#   - with the defaults (a 5 s delay) the same order, gpumend_ready 0 and
#     the delay running out by itself; --shutdown-delay 0 drains at once;
#     GPUMEND_SHUTDOWN_DELAY; bad values refused.
# With one replica, a client told to close reconnects to the same server,
# which still accepts during the delay; in a cluster the new connection
# goes, through the Service, to a replica that is still ready.
. "$(dirname "$0")/../lib.sh"

# not dir=$(scratch): see tests/lib.sh
scratch >/dev/null
dir=$_scratch
WEBHOOK_DIR=$dir
data="$TESTS_DIR/webhook"

for tool in curl jq cc pkg-config; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		fail "shutdown: '$tool' not found"
		finish shutdown
		exit 1
	fi
done
if ! tls_client_build "$dir"; then
	fail "shutdown: cannot build tests/hostile/tls_client.c"
	sed 's/^/    /' "$dir/cc.err"
	finish shutdown
	exit 1
fi
if ! webhook_pair "$dir/certs"; then
	fail "shutdown: cannot generate certificates"
	sed 's/^/    /' "$dir/certs/certs.err"
	finish shutdown
	exit 1
fi
cert="$dir/certs/tls.crt"
key="$dir/certs/tls.key"

# a review of a legacy GPU pod, as a raw HTTP request
jq -c '{apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview",
	request: {uid: "uid-rollout", kind: {group: "", version: "v1", kind: "Pod"},
		resource: {group: "", version: "v1", resource: "pods"},
		namespace: "ml", name: "cuda-train", operation: "CREATE",
		userInfo: {username: "system:serviceaccount:ci:test"},
		object: ., dryRun: false}}' "$data/legacy-pod.json" >"$dir/review.json"
printf 'POST /mutate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %s\r\n\r\n' \
	"$(wc -c <"$dir/review.json")" >"$dir/review.req"
cat "$dir/review.json" >>"$dir/review.req"

# line_of NAME PATTERN [last]: the number of the first (or last) line of
# the log NAME matching PATTERN; 0 when none.
line_of() {
	_n=$(grep -n -- "$2" "$dir/$1.log" | cut -d: -f1 | if [ "${3:-}" = last ]; then
		tail -n 1; else head -n 1; fi)
	echo "${_n:-0}"
}

# in_order N...: every N is above 0 and above the one before it.
in_order() {
	_prev=0
	for _n in "$@"; do
		[ "$_n" -gt "$_prev" ] || return 1
		_prev=$_n
	done
}

# field NAME LINE: the number after the word NAME in LINE.
field() {
	echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}

# ------------------------------------------------------------------
# A rollout: a kept-alive stream of reviews, SIGTERM in the middle

# a delay far longer than the test: the client's second SIGTERM ends it,
# once it has sent its reviews, so nothing here depends on how fast they go
before=30 after=30
if webhook_start rollout --tls-cert "$cert" --tls-key "$key" \
	--shutdown-delay 600 --log-level debug; then
	line=$("$dir/tls_client" rollout "$webhook_port" "$dir/review.req" \
		"$webhook_pid" --before $before --after $after --timeout-ms 60000)
	webhook_wait "$webhook_pid"
	status=$webhook_status
	echo "# $line"
	answered=$(field answered "$line")
	check "rollout: 0 failed reviews across SIGTERM ($(field answered "$line") answered)" \
		[ "$(field failed "$line")" = 0 -a "${answered:-0}" -ge $((before + after)) ]
	check "rollout: before SIGTERM, one kept-alive connection (no close asked, no reconnect)" \
		[ "$(field closes_before_term "$line")" = 0 -a "$(field reconnects_before_term "$line")" = 0 ]
	check "rollout: /readyz answers 503 after SIGTERM" [ "$(field ready_503 "$line")" = 1 ]
	check "rollout: after that 503, $after reviews answered, each asking the client to close" \
		[ "$(field answered_after_503 "$line")" = $after -a "$(field closes_after_503 "$line")" = $after ]
	# a new connection is accepted only before the drain: these prove
	# that /readyz failed while the server was not draining yet
	check "rollout: after that 503, new connections accepted and served (not draining yet)" \
		[ "$(field reconnects_after_503 "$line")" -ge $((after - 1)) ]
	check "rollout: exit 0" [ "$status" = 0 ]
	# the same order in the server's log
	l_shut=$(line_of rollout '"msg":"shutting down"')
	l_503=$(line_of rollout '"path":"/readyz","status":503')
	l_review=$(line_of rollout '"msg":"admission review"' last)
	l_drain=$(line_of rollout '"msg":"draining"')
	l_stop=$(line_of rollout '"msg":"stopped"')
	check "rollout log: shutting down, /readyz 503, the last review, draining, stopped, in that order ($l_shut $l_503 $l_review $l_drain $l_stop)" \
		in_order "$l_shut" "$l_503" "$l_review" "$l_drain" "$l_stop"
	check "rollout log: every review answered, none failed" \
		[ "$(grep -c '"msg":"admission review".*"status":200' "$dir/rollout.log")" = "$answered" -a \
		  "$(grep -c '"msg":"admission review"' "$dir/rollout.log")" = "$answered" ]
	check "rollout log: a second SIGTERM ends the delay" \
		grep -q '"msg":"shutdown delay cut short"' "$dir/rollout.log"
else
	fail "rollout: the webhook does not start"
	sed 's/^/    /' "$dir/rollout.log"
fi

# ------------------------------------------------------------------
# The defaults: a 5 s delay that runs out by itself

curl_ca() {
	curl -sS --cacert "$dir/certs/ca.crt" "$@"
}
saved=$GPUMEND_SHUTDOWN_DELAY
unset GPUMEND_SHUTDOWN_DELAY
webhook_start default --tls-cert "$cert" --tls-key "$key" --log-level debug
started=$?
GPUMEND_SHUTDOWN_DELAY=$saved
export GPUMEND_SHUTDOWN_DELAY
if [ "$started" = 0 ]; then
	check "default: the started line says shutdown_delay 5" \
		sh -c "grep '\"msg\":\"started\"' '$dir/default.log' | jq -e '.shutdown_delay == 5' >/dev/null"
	kill -TERM "$webhook_pid"
	# /readyz until 503; a refused connection (000) would mean the drain
	# came first
	code=200 tries=0
	while [ "$code" = 200 ] && [ $tries -lt 500 ]; do
		code=$(curl_ca -o /dev/null -w '%{http_code}' "$webhook_url/readyz" 2>/dev/null)
		tries=$((tries + 1))
	done
	check "default: /readyz answers 503 after SIGTERM ($code)" [ "$code" = 503 ]
	code=$(curl_ca -o "$dir/default.resp" -D "$dir/default.head" -w '%{http_code}' \
		-H 'Content-Type: application/json' --data-binary @"$dir/review.json" \
		"$webhook_url/mutate" 2>/dev/null)
	check "default: then a review on a new connection is answered ($code)" \
		sh -c "[ '$code' = 200 ] && jq -e '.response.uid == \"uid-rollout\"' '$dir/default.resp' >/dev/null"
	check "default: and its answer asks the client to close" \
		grep -qi '^Connection: close' "$dir/default.head"
	curl_ca "$webhook_url/metrics" >"$dir/default.metrics" 2>/dev/null
	check "default: gpumend_ready 0 during the delay" \
		grep -q '^gpumend_ready 0$' "$dir/default.metrics"
	webhook_wait "$webhook_pid"
	check "default: exit 0" [ "$webhook_status" = 0 ]
	l_shut=$(line_of default '"msg":"shutting down"')
	l_503=$(line_of default '"path":"/readyz","status":503')
	l_review=$(line_of default '"msg":"admission review"' last)
	l_drain=$(line_of default '"msg":"draining"')
	check "default log: shutting down, /readyz 503, the review, draining, in that order ($l_shut $l_503 $l_review $l_drain)" \
		in_order "$l_shut" "$l_503" "$l_review" "$l_drain"
	check "default log: the delay ran out by itself" \
		sh -c "! grep -q 'cut short' '$dir/default.log'"
else
	fail "default: the webhook does not start"
	sed 's/^/    /' "$dir/default.log"
fi

# ------------------------------------------------------------------
# No delay, the environment, bad values

if webhook_start nodelay --tls-cert "$cert" --tls-key "$key" --shutdown-delay 0; then
	webhook_stop
	check "--shutdown-delay 0: SIGTERM drains at once, exit 0" \
		sh -c "[ '$webhook_status' = 0 ] && grep -q '\"msg\":\"draining\"' '$dir/nodelay.log' &&
			! grep -q '\"msg\":\"shutting down\"' '$dir/nodelay.log'"
else
	fail "--shutdown-delay 0: the webhook does not start"
fi
GPUMEND_SHUTDOWN_DELAY=7 webhook_start env --tls-cert "$cert" --tls-key "$key"
started=$?
GPUMEND_SHUTDOWN_DELAY=$saved
if [ "$started" = 0 ]; then
	check "GPUMEND_SHUTDOWN_DELAY: the started line says shutdown_delay 7" \
		sh -c "grep '\"msg\":\"started\"' '$dir/env.log' | jq -e '.shutdown_delay == 7' >/dev/null"
	# twice: the second ends the delay
	kill -TERM "$webhook_pid"
	wait_i=0
	until grep -q '"msg":"shutting down"' "$dir/env.log" || [ $wait_i -ge 200 ]; do
		sleep 0.05
		wait_i=$((wait_i + 1))
	done
	webhook_stop
	check "GPUMEND_SHUTDOWN_DELAY: a second SIGTERM ends the delay, exit 0" \
		sh -c "[ '$webhook_status' = 0 ] && grep -q 'cut short' '$dir/env.log'"
else
	fail "GPUMEND_SHUTDOWN_DELAY: the webhook does not start"
fi
for bad in -1 3601 5s ''; do
	"$GPUMEND_WEBHOOK" --listen 127.0.0.1:0 --tls-cert "$cert" --tls-key "$key" \
		--shutdown-delay "$bad" >/dev/null 2>"$dir/err"
	status=$?
	check "--shutdown-delay '$bad': refused (exit 2) naming the option" \
		sh -c "[ $status = 2 ] && grep -q -- '--shutdown-delay' '$dir/err'"
done

finish shutdown
