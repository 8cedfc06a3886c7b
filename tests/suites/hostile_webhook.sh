#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/hostile_webhook.sh - gpumend-webhook against a catalogue of
# hostile requests, each a test with the answer it must get (an HTTP
# status, a closed connection, or a well-formed AdmissionReview) and a
# time bound:
#   - connections: hundreds of idle ones (TCP only, TLS, half a request
#     head, half a ClientHello), slow headers and slow bodies, stalled or
#     trickled (slowloris): the connection timeout must close them all
#     while other requests are served (tests/hostile/webhook-connections.tsv);
#   - floods: thousands of idle connections, from one address and from
#     many, and connections that announce or start large bodies and stall,
#     against a server of their own: every good review still answered
#     within the registration's timeoutSeconds, the limits in force, every
#     one closed by the header or connection timeout
#     (tests/hostile/webhook-floods.tsv; the latencies are figures of
#     `make bench`, tests/bench/floods.sh);
#   - HTTP framing, as raw bytes (tests/hostile/tls_client.c): oversize,
#     truncated and chunked bodies in and over the cap, bad Content-Length
#     and Transfer-Encoding, huge headers, pipelining, not TLS at all; one
#     head per answer, the connection closed where RFC 9112 wants it, a
#     refused body drained so that the client reads the answer
#     (tests/hostile/webhook-framing.tsv);
#   - bodies: at and over the size cap; JSON text: 100k-deep nesting, huge
#     strings and numbers, invalid UTF-8, NUL, duplicate keys, a BOM,
#     trailing bytes (tests/hostile/webhook-bodies.tsv);
#   - wrong JSON types in every field the engine reads, missing or empty
#     uid (tests/hostile/webhook-types.tsv);
#   - memory: 3 MB reviews of 1,000,000 values (over limits.maxValues) and
#     of 150,000, one and four at once, within the memory budget: the
#     server's peak memory judged (tests/hostile/webhook-memory.tsv);
#   - pods with 10,000 containers, volumes, mounts, env entries...
#     (tests/hostile/webhook-scale.tsv); how the work grows with their
#     number is proven by instruction counts in tests/suites/complexity.sh.
# The cases are data, read by one loop per file: adding a case is adding a
# line.
# An answer with a patch is checked further: the patch applies to the
# object, and the object it gives gets no patch from a second review.
# Meanwhile a loop of good requests must all succeed, and at the end the
# server's RSS must be back near its baseline (both numbers printed).
# Time bounds scale with $GPUMEND_SLOW (3 under the sanitizers).
. "$(dirname "$0")/../lib.sh"

# not dir=$(scratch): see tests/lib.sh
scratch >/dev/null
dir=$_scratch
WEBHOOK_DIR=$dir
hostile="$TESTS_DIR/hostile"
data="$TESTS_DIR/webhook"

SLOW=${GPUMEND_SLOW:-1}
case "$SLOW" in '' | *[!0-9]* | 0) SLOW=1 ;; esac
TIMEOUT=2                       # --connection-timeout of the server
MAX_BODY=4194304                # --max-body
RSS_SLACK_KB=8192               # RSS growth allowed over the whole run

for tool in curl jq cc pkg-config; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		fail "hostile_webhook: '$tool' not found"
		finish hostile_webhook
		exit 1
	fi
done
# the kubectl of the project's set-up: it applies the patches of the
# 10,000-item cases ("external"); without it those cases fail
kubectl=$(tool kubectl) || kubectl=""

loop_pid=""
bg_pids=""
at_exit 'for p in $loop_pid $bg_pids; do kill -KILL "$p" 2>/dev/null; done'

# ------------------------------------------------------------------
# Helpers

started=$(date +%s)
# section NAME: says where the suite is, and since when.
section() {
	echo "# $1 ($(($(date +%s) - started)) s in)"
}

# ms N: N milliseconds, scaled by $GPUMEND_SLOW.
ms() {
	echo $(($1 * SLOW))
}

# within SECONDS BOUND-MS: SECONDS (a decimal) is at most BOUND-MS.
within() {
	awk -v s="$1" -v b="$2" 'BEGIN { exit !(s * 1000 <= b) }'
}

# rss: the server's VmRSS in kB.
rss() {
	awk '$1 == "VmRSS:" { print $2 }' "/proc/$server_pid/status" 2>/dev/null
}

# post FILE OUT [CURL-ARGS...]: POSTs FILE to /mutate; prints
# "STATUS SECONDS" (status 000 when no answer came).
post() {
	_in=$1 _out=$2
	shift 2
	curl -sS -k -H 'Content-Type: application/json' --data-binary "@$_in" \
		-o "$_out" -w '%{http_code} %{time_total}' --max-time 60 "$@" \
		"$url/mutate" 2>/dev/null
}

# spaces N: N spaces. repeat N CHAR: CHAR N times.
spaces() {
	head -c "$1" /dev/zero | tr '\0' ' '
}
repeat() {
	head -c "$1" /dev/zero | tr '\0' "$2"
}

# ------------------------------------------------------------------
# Raw cases: tests/hostile/tls_client.c

# raw_case NAME WANT BOUND-MS FILE [TLS-CLIENT-ARGS...]: sends FILE as raw
# bytes and judges what came back (raw_judge).
raw_case() {
	_name=$1 _want=$2 _bound=$(ms "$3") _file=$4
	shift 4
	case $_want in *+close*) set -- "$@" --wait-close ;; esac
	raw_judge "$_name" "$_want" "$_bound" "$("$dir/tls_client" send "$port" \
		"$_file" --timeout-ms $((_bound + 1000)) "$@")"
}

# raw_judge NAME WANT BOUND-MS LINE: judges a line of `tls_client send`.
# WANT: statuses (200, or 200,200 for pipelined requests), or "closed"
# (no answer, the server closed the connection); alternatives joined by
# "|"; then, for all of them, "+close": the server also closes the
# connection after its answer; "+whole": the client could write its
# request whole first (the server read what it did not want, instead of
# resetting the connection). All within BOUND-MS. Every answer must come
# with one head (status line and headers), not two.
raw_judge() {
	_name=$1 _want=$2 _bound=$3 _line=$4 _close=0 _whole=0
	case $_want in *+close*) _close=1 ;; esac
	case $_want in *+whole*) _whole=1 ;; esac
	_want=${_want%%+*}
	# status S sent N of M closed C elapsed_ms T heads H eof E
	set -- $_line
	_seen=$2
	[ "$2" = 0 ] && [ "$8" = 1 ] && _seen=closed
	_answers=$(printf '%s\n' "$2" | awk -F, '$1 == 0 { print 0; exit } { print NF }')
	case "|$_want|" in
	*"|$_seen|"*) _match=1 ;;
	*) _match=0 ;;
	esac
	if [ "$#" != 14 ]; then
		fail "$_name: tls_client gave no result ($_line)"
	elif [ "$_match" != 1 ]; then
		fail "$_name: wanted $_want, got $_seen after ${10} ms ($_line)"
	elif [ "${10}" -gt "$_bound" ]; then
		fail "$_name: $_seen after ${10} ms, over the bound of $_bound ms"
	elif [ "${12}" != "$_answers" ]; then
		fail "$_name: $_seen, but ${12} status lines came for $_answers answers (a head sent twice)"
	elif [ "$_close" = 1 ] && [ "${14}" != 1 ]; then
		fail "$_name: $_seen, but the server did not close the connection after it"
	elif [ "$_whole" = 1 ] && [ "$4" != "$6" ]; then
		fail "$_name: $_seen, but the client could write only $4 of $6 bytes (the server reset the connection)"
	else
		pass "$_name: $_seen in ${10} ms$([ "$_close" = 1 ] && echo ", then closed")$([ "$_whole" = 1 ] && echo ", the request written whole")"
	fi
}

# hold_judge NAME BOUND-MS LINE: every connection of a `tls_client hold`
# was closed by the server within BOUND-MS.
hold_judge() {
	_name=$1 _bound=$2 _line=$3
	# opened N closed C first_close_ms T last_close_ms T
	set -- $_line
	if [ "$#" != 8 ] || [ "$2" = 0 ]; then
		fail "$_name: no connection could be opened ($_line)"
	elif [ "$2" != "$4" ]; then
		fail "$_name: $4 of $2 closed by the server within $_bound ms"
	elif [ "$8" -gt "$_bound" ]; then
		fail "$_name: the last closed after $8 ms, over the bound of $_bound ms"
	else
		pass "$_name: all $2 closed by the server in $6 to $8 ms"
	fi
}

# head_of [HEADER...]: a request head for POST /mutate, CRLF line ends.
head_of() {
	printf 'POST /mutate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n'
	for _h in "$@"; do
		printf '%s\r\n' "$_h"
	done
	printf '\r\n'
}

# ------------------------------------------------------------------
# JSON cases, in batches: one curl sends them all, one jq judges all the
# answers (tests/hostile/answer.jq), one curl sends the second reviews.
# jq 1.6 takes 40 ms to start: one jq per case would take minutes.

qdir="$dir/queue"
mkdir -p "$qdir"
qn=0
: >"$qdir/cases"
tab=$(printf '\t')
# apply_op of tests/webhook/jsonpatch.jq (not its main filter), verdict
jq_defs="$(grep -v '^reduce' "$data/jsonpatch.jq")
$(cat "$hostile/answer.jq")"

# queue NAME WANT BOUND-MS FILE [CHECK [FLAGS]]: a case for run_queue,
# FILE POSTed to /mutate. WANT 200: a well-formed answer (answer.jq) for
# which the jq CHECK holds; another status: a plain answer holding the
# text CHECK. FLAGS: "external" (kubectl applies the patch: jq is too slow
# for 10,000 operations), "once" (no second review). FILE is moved.
queue() {
	qn=$((qn + 1))
	mv "$4" "$qdir/$qn.json"
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${5:--}" "${6:--}" \
		>>"$qdir/cases"
}

# batch_post IDS: POSTs each $qdir/ID.json in one curl run, its answer in
# $qdir/ID.out; prints a "STATUS SECONDS" line for each.
batch_post() {
	: >"$qdir/curl.cfg"
	for _id in $1; do
		cat >>"$qdir/curl.cfg" <<EOF
url = "$url/mutate"
data-binary = "@$qdir/$_id.json"
output = "$qdir/$_id.out"
header = "Content-Type: application/json"
insecure
max-time = 60
write-out = "%{http_code} %{time_total}\\n"
next
EOF
	done
	curl -sS -K "$qdir/curl.cfg" 2>/dev/null
}

# run_queue: runs the queued cases, one test each, and empties the queue.
run_queue() {
	[ "$qn" -gt 0 ] || return 0
	batch_post "$(seq 1 "$qn")" >"$qdir/codes"
	_prog="$jq_defs"
	_files=""
	_i=0
	while IFS="$tab" read -r _name _want _bound _check _flags; do
		_i=$((_i + 1))
		[ "$_want" = 200 ] || continue
		[ "$(sed -n "${_i}p" "$qdir/codes" | cut -d' ' -f1)" = 200 ] || continue
		[ "$_check" = - ] && _check=true
		_ext=false
		[ "$_flags" = external ] && _ext=true
		_prog="$_prog
(input as \$q | input as \$r | [verdict(($_check); [\$q]; \$r; []; $_ext)] |
 \"$_i\\t\" + (.[0]) + (if .[1] then \"\\t\" + (.[1] | tojson) else \"\" end)),"
		_files="$_files $qdir/$_i.json $qdir/$_i.out"
	done <"$qdir/cases"
	# shellcheck disable=SC2086
	jq -r -n "$_prog empty" $_files >"$qdir/verdicts" 2>"$qdir/verdicts.err"

	# second reviews of the patched objects
	_agains=""
	while IFS="$tab" read -r _i _verdict _json; do
		_flags=$(sed -n "${_i}p" "$qdir/cases" | cut -f 5)
		case "$_verdict" in
		again)
			printf '%s\n' "$_json" >"$qdir/$_i-again.json" ;;
		external)
			[ -n "$kubectl" ] || continue
			printf '%s\n' "$_json" >"$qdir/$_i.patch"
			jq '.request.object' "$qdir/$_i.json" >"$qdir/$_i.object"
			"$kubectl" patch --local -f "$qdir/$_i.object" --type=json \
				--patch-file "$qdir/$_i.patch" -o json \
				>"$qdir/$_i.patched" 2>"$qdir/$_i.kubectl" || continue
			jq -c '.request.uid += "-again" | .request.object = $o[0]' \
				--slurpfile o "$qdir/$_i.patched" "$qdir/$_i.json" \
				>"$qdir/$_i-again.json" ;;
		*)
			continue ;;
		esac
		[ "$_flags" = once ] || _agains="$_agains $_i-again"
	done <"$qdir/verdicts"
	[ -n "$_agains" ] && batch_post "$_agains" >/dev/null

	_i=0
	while IFS="$tab" read -r _name _want _bound _check _flags; do
		_i=$((_i + 1))
		_got=$(sed -n "${_i}p" "$qdir/codes")
		_code=${_got% *} _secs=${_got#* }
		_why=""
		if [ "$_code" != "$_want" ]; then
			_why="status $_code, wanted $_want: $(head -c 200 "$qdir/$_i.out" 2>/dev/null)"
		elif ! within "$_secs" "$(ms "$_bound")"; then
			_why="answered in $_secs s, over the bound of $(ms "$_bound") ms"
		elif [ "$_want" != 200 ]; then
			[ "$_check" = - ] || grep -qF -- "$_check" "$qdir/$_i.out" ||
				_why="the answer does not say '$_check': $(head -c 200 "$qdir/$_i.out")"
		else
			_verdict=$(awk -F "$tab" -v i="$_i" '$1 == i { print $2 }' "$qdir/verdicts")
			case "$_verdict" in
			ok) ;;
			again | external)
				if [ "$_verdict" = external ] && [ -z "$kubectl" ]; then
					_why="no kubectl to apply the patch (tests/tools/get.sh)"
				elif [ "$_verdict" = external ] && [ ! -s "$qdir/$_i-again.json" ]; then
					_why="the patch does not apply (kubectl): $(head -c 300 "$qdir/$_i.kubectl")"
				elif [ "$_flags" != once ] &&
				     { ! grep -q '"allowed":true' "$qdir/$_i-again.out" 2>/dev/null ||
				       grep -q '"patch":' "$qdir/$_i-again.out"; }; then
					_why="the patched object gets another patch: $(head -c 300 "$qdir/$_i-again.out" 2>/dev/null)"
				fi ;;
			ERR*) _why=${_verdict#ERR: } ;;
			*) _why="no verdict: $(head -c 300 "$qdir/verdicts.err")" ;;
			esac
		fi
		if [ -z "$_why" ]; then
			pass "$_name: $_want in ${_secs}s"
		else
			fail "$_name: $_why"
		fi
	done <"$qdir/cases"
	rm -f "$qdir"/*
	: >"$qdir/cases"
	qn=0
}

# ------------------------------------------------------------------
# The client, certificates, the server

if ! tls_client_build "$dir"; then
	fail "cannot build tests/hostile/tls_client.c"
	sed 's/^/    /' "$dir/cc.err"
	finish hostile_webhook
	exit 1
fi
if ! webhook_pair "$dir/certs"; then
	fail "cannot make certificates"
	sed 's/^/    /' "$dir/certs/certs.err"
	finish hostile_webhook
	exit 1
fi

# the connections section holds hundreds of connections from 127.0.0.1,
# the address of the good requests too: over the default per-address limit
if ! webhook_start server --tls-cert "$dir/certs/tls.crt" \
	--tls-key "$dir/certs/tls.key" --connection-timeout "$TIMEOUT" \
	--max-body "$MAX_BODY" --max-connections-per-address 2000; then
	fail "the webhook does not start"
	sed 's/^/    /' "$dir/server.log"
	finish hostile_webhook
	exit 1
fi
server_pid=$webhook_pid
port=$webhook_port
url=$webhook_url
pass "the webhook started (connection timeout ${TIMEOUT}s, max body $MAX_BODY)"

# the good request (a legacy GPU pod that several rules mutate), and the
# RSS baseline after a warm-up
jq -c '{apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview",
	request: {uid: "good", kind: {group: "", version: "v1", kind: "Pod"},
		resource: {group: "", version: "v1", resource: "pods"},
		namespace: "ml", name: .metadata.name, operation: "CREATE",
		userInfo: {username: "system:serviceaccount:ci:test"},
		object: ., oldObject: null, dryRun: false}}' \
	"$data/legacy-pod.json" >"$dir/good.json"
len=$(wc -c <"$dir/good.json")
i=0
while [ $i -lt 30 ]; do
	post "$dir/good.json" /dev/null >/dev/null
	i=$((i + 1))
done
rss_base=$(rss)

# good requests in a loop all through the catalogue
: >"$dir/good.log"
(
	while [ ! -f "$dir/stop" ]; do
		echo "$(post "$dir/good.json" "$dir/good.out")" >>"$dir/good.log"
		sleep 0.05
	done
) &
loop_pid=$!

# ------------------------------------------------------------------
# The cases' makers (the BYTES, BODY and POD columns of the data files)

# good: the good review. good_jq [JQ-ARGS...] FILTER: it through jq -c.
good() {
	cat "$dir/good.json"
}
good_jq() {
	jq -c "$@" "$dir/good.json"
}

# chunked [SIZE...]: stdin as a chunked body: chunks of the SIZEs given
# (the last one for the rest; default: one chunk), then the last chunk.
chunked() {
	cat >"$dir/chunked.in"
	_ct=$(wc -c <"$dir/chunked.in")
	_co=0
	_cs=$_ct
	while [ "$_co" -lt "$_ct" ]; do
		if [ $# -gt 0 ]; then
			_cs=$1
			[ $# -gt 1 ] && shift
		fi
		_cn=$((_ct - _co))
		[ "$_cn" -gt "$_cs" ] && _cn=$_cs
		printf '%x\r\n' "$_cn"
		tail -c +$((_co + 1)) "$dir/chunked.in" | head -c "$_cn"
		printf '\r\n'
		_co=$((_co + _cn))
	done
	printf '0\r\n\r\n'
}

# wrap UID: a review of a pod whose spec.x is the JSON text on stdin.
wrap() {
	printf '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"%s","operation":"CREATE","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"busybox"}],"x":' "$1"
	cat
	printf '}}}}'
}

# name_bytes BYTES: the good review with BYTES (sed escapes) in the name of
# its container "train".
name_bytes() {
	LC_ALL=C sed "s/\"name\":\"train\"/\"name\":\"tr$1ain\"/" "$dir/good.json"
}

# gpu_count N: the good review asking for N GPUs (as written: sed, not jq,
# which reads integers as doubles), uid gpu-N.
gpu_count() {
	sed -e "s/\"alpha.kubernetes.io\/nvidia-gpu\":2/\"alpha.kubernetes.io\/nvidia-gpu\":$1/" \
		-e "s/\"uid\":\"good\"/\"uid\":\"gpu-$1\"/" "$dir/good.json"
}

# make_case OUT TEXT: runs the sh TEXT of a data file (in a subshell: it cannot
# change the suite's variables), its output in OUT.
make_case() {
	(eval "$2") >"$1" </dev/null
}

# a 3 MB JSON string, for the big strings of webhook-bodies.tsv
{ printf '"'; repeat 3000000 a; printf '"'; } >"$dir/big"

# ------------------------------------------------------------------
section "connections: idle, half-open, slow (tests/hostile/webhook-connections.tsv)"
# All at once in the background while good requests are timed; judged
# when they are over.

close_bound=$(ms $((TIMEOUT * 1000 + 1500)))
slow_bound=$(ms $((TIMEOUT * 2000 + 1000)))
wait_for=$((slow_bound + 2000))
cases "$hostile/webhook-connections.tsv" >"$dir/conn.cases"
n=0
held=0
while IFS="$tab" read -r name want bound bytes opts <&3; do
	n=$((n + 1))
	f=""
	if [ "$bytes" != - ]; then
		f="$dir/conn$n.bytes"
		make_case "$f" "$bytes"
	fi
	if [ "$want" = held ]; then
		# OPTIONS: COUNT SECONDS [--tcp]
		held=$((held + ${opts%% *}))
		# shellcheck disable=SC2086
		"$dir/tls_client" hold "$port" $opts ${f:+--prefix "$f"} >"$dir/conn$n.line" &
	else
		held=$((held + 1))
		[ "$opts" = - ] && opts=""
		# shellcheck disable=SC2086
		"$dir/tls_client" send "$port" "$f" $opts --timeout-ms "$wait_for" \
			>"$dir/conn$n.line" &
	fi
	bg_pids="$bg_pids $!"
done 3<"$dir/conn.cases"

# while they are held: good requests answered, and quickly
sleep 0.5
worst=0
failed=0
i=0
while [ $i -lt 10 ]; do
	got=$(post "$dir/good.json" "$dir/resp.out")
	[ "${got% *}" = 200 ] || failed=$((failed + 1))
	worst=$(awk -v a="$worst" -v b="${got#* }" 'BEGIN { print (b > a ? b : a) }')
	i=$((i + 1))
	sleep 0.1
done
check "with $held idle or slow connections held, 10 good requests: $failed failed, slowest ${worst}s" \
	sh -c "[ $failed = 0 ] && awk 'BEGIN { exit !($worst * 1000 <= $(ms 1000)) }'"
for p in $bg_pids; do
	wait "$p"
done
bg_pids=""
n=0
while IFS="$tab" read -r name want bound bytes opts <&3; do
	n=$((n + 1))
	case $bound in
	close) b=$close_bound ;;
	slow) b=$slow_bound ;;
	*) b=$(ms "$bound") ;;
	esac
	if [ "$want" = held ]; then
		hold_judge "$name" "$b" "$(cat "$dir/conn$n.line")"
	else
		raw_judge "$name" "$want" "$b" "$(cat "$dir/conn$n.line")"
	fi
done 3<"$dir/conn.cases"

# ------------------------------------------------------------------
section "connection floods (tests/hostile/webhook-floods.tsv)"
# Each flood against a server of its own, one after the other: thousands
# of idle connections, from one address or from many, while good reviews
# are sent. Each review must be answered within the registration's
# timeoutSeconds (scaled): past it the API server gives up on the call.
# That is the smallest of the config's webhook.timeoutSeconds (the server
# runs the default config here; `gpumend webhook-config` writes it into
# the registration) and the timeoutSeconds of manifests/base. How long the
# reviews take is a figure of `make bench` (tests/bench/floods.sh), not a
# test.
review_timeout=$({
	"$GPUMEND" config | awk '/^webhook:/ { w = 1; next } /^[^ #]/ { w = 0 }
		w && $1 == "timeoutSeconds:" { print $2 }'
	sed -n 's/^ *timeoutSeconds: *\([0-9][0-9]*\) *$/\1/p' \
		"$REPO_DIR/manifests/base/mutatingwebhookconfiguration.yaml"
} | sort -n | head -n 1)
if [ -z "$review_timeout" ]; then
	fail "floods: no timeoutSeconds in 'gpumend config' or manifests/base"
	review_timeout=10
fi

head_of "Content-Length: $len" >"$dir/good.req"
good >>"$dir/good.req"
# what the floods send before they stall (--prefix NAME)
flood_prefixes "$dir"
# the floods hold thousands of descriptors, in the client and the server
ulimit -n "$(ulimit -Hn)" 2>/dev/null
fds=$(ulimit -n)
cases "$hostile/webhook-floods.tsv" >"$dir/floods.cases"
while IFS="$tab" read -r name args count opts held <&3; do
	if [ "$fds" != unlimited ] && [ "$fds" -lt $((count + 512)) ]; then
		skip "$name" "the descriptor limit ($fds, hard) is under $((count + 512))"
		continue
	fi
	[ "$args" = - ] && args=""
	# the header timeout: 3 s unless the line says, scaled; the connection
	# timeout: the server's default unless the line says, scaled
	header_timeout=$(printf '%s\n' "$args" | sed -n 's/.*--header-timeout \([0-9]*\).*/\1/p')
	conn_timeout=$(printf '%s\n' "$args" | sed -n 's/.*--connection-timeout \([0-9]*\).*/\1/p')
	args=$(printf '%s\n' "$args" | sed -e 's/--header-timeout [0-9]*//' \
		-e 's/--connection-timeout [0-9]*//')
	header_timeout=$((${header_timeout:-3} * SLOW))
	closing=$header_timeout
	if [ -n "$conn_timeout" ]; then
		conn_timeout=$((conn_timeout * SLOW))
		args="$args --connection-timeout $conn_timeout"
		[ "$conn_timeout" -gt "$closing" ] && closing=$conn_timeout
	fi
	flood_close=$((closing * 1000 + $(ms 1500)))
	# shellcheck disable=SC2086
	if ! webhook_start flood --tls-cert "$dir/certs/tls.crt" \
		--tls-key "$dir/certs/tls.key" --header-timeout "$header_timeout" $args; then
		fail "$name: the webhook does not start"
		sed 's/^/    /' "$dir/flood.log"
		continue
	fi
	rm -f "$dir/flood.ready"
	# (from $dir: a --prefix file of the data is there)
	# shellcheck disable=SC2086
	# (the line's --settle-ms, if any, comes after the default and wins)
	(cd "$dir" && exec ./tls_client hold "$webhook_port" "$count" \
		$((flood_close / 1000 + 5)) --settle-ms "$(ms 200)" $opts \
		--ready flood.ready) >"$dir/flood.line" &
	hold_pid=$!
	bg_pids="$bg_pids $hold_pid"
	i=0
	while [ ! -s "$dir/flood.ready" ] && [ $i -lt $((600 * SLOW)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	# opened N held H
	set -- $(cat "$dir/flood.ready" 2>/dev/null)
	opened=${2:-0} holding=${4:-0}
	# answered A of N ...: A counts the answers 200 that came within
	# --timeout-ms of their connect
	timed=$("$dir/tls_client" repeat "$webhook_port" "$dir/good.req" 200 \
		--from 127.0.0.1 --timeout-ms "$(ms $((review_timeout * 1000)))")
	set -- $timed
	check "$name: $holding held, every one of 200 good reviews answered 200 within the ${review_timeout} s timeoutSeconds ($2 of $4)" \
		[ "$#" = 10 -a "$2" = 200 -a "$4" = 200 ]
	case $held in
	"<="*)
		# a connection closed to make room is gone a moment later: a
		# hundredth more may still be seen. The server may close stalled
		# ones while the flood is still opening (eviction): the flood
		# must have reached the limit, not opened all of its count
		check "$name: the server held $holding of $opened (at most ${held#<=}, and a hundredth closing; at least ${held#<=} opened)" \
			[ "$opened" -ge "${held#<=}" -a "$holding" -le $((${held#<=} + ${held#<=} / 100)) ] ;;
	*)
		check "$name: the server held $holding of $opened (all $held)" \
			[ "$opened" = "$held" -a "$holding" = "$held" ] ;;
	esac
	wait "$hold_pid"
	hold_judge "$name: closed by the server's timeouts" "$flood_close" \
		"$(cat "$dir/flood.line")"
	webhook_stop
done 3<"$dir/floods.cases"

# ------------------------------------------------------------------
section "HTTP framing (tests/hostile/webhook-framing.tsv)"

cases "$hostile/webhook-framing.tsv" >"$dir/framing.cases"
while IFS="$tab" read -r name want bound bytes opts <&3; do
	make_case "$dir/r" "$bytes"
	# shellcheck disable=SC2086
	raw_case "$name" "$want" "$bound" "$dir/r" $opts
done 3<"$dir/framing.cases"

spaces $((MAX_BODY * 2)) >"$dir/r"
got=$(post "$dir/r" "$dir/resp.out" -H 'Transfer-Encoding: chunked')
check "a chunked body of twice --max-body, by curl: 413 or closed (${got% *})" \
	sh -c "[ '${got% *}' = 413 ] || [ '${got% *}' = 000 ]"

# ------------------------------------------------------------------
section "bodies: size, JSON text (tests/hostile/webhook-bodies.tsv)"

cases "$hostile/webhook-bodies.tsv" >"$dir/bodies.cases"
while IFS="$tab" read -r name want bound check flags body <&3; do
	make_case "$dir/r" "$body"
	queue "$name" "$want" "$bound" "$dir/r" "$check" "$flags"
done 3<"$dir/bodies.cases"
run_queue

# deeper than jq reads, so not batched: judged by the uid in the text
{ repeat 1000 '['; repeat 1000 ']'; } | wrap deep-1000 >"$dir/r"
got=$(post "$dir/r" "$dir/resp.out")
check "1,000 nested arrays (under the parser's limit): admitted unchanged, saying why (${got#* }s)" \
	sh -c "[ '${got% *}' = 200 ] && jq -e '.response.uid == \"deep-1000\" and .response.allowed and
		(.response | has(\"patch\") | not) and
		(.response.warnings[0] | contains(\"nests deeper\"))' '$dir/resp.out' >/dev/null"

# ------------------------------------------------------------------
section "wrong types (tests/hostile/webhook-types.tsv)"

# the requests made by one jq run, one per line
cases "$hostile/webhook-types.tsv" >"$dir/types.cases"
n=0
gen=""
: >"$dir/types"
while IFS="$tab" read -r name want filter expect <&3; do
	n=$((n + 1))
	printf '%s\t%s\t%s\n' "$name" "$want" "$expect" >>"$dir/types"
	gen="$gen${gen:+,
}(try (.request.uid = \"types-$n\" | $filter | tojson) catch \"not made\")"
done 3<"$dir/types.cases"
jq -r "$gen" "$dir/good.json" >"$dir/requests" 2>"$dir/jq.err" ||
	fail "webhook-types.tsv: the requests cannot be made: $(head -c 300 "$dir/jq.err")"
i=0
while IFS="$tab" read -r name want expect <&3; do
	i=$((i + 1))
	sed -n "${i}p" "$dir/requests" >"$dir/r"
	queue "$name" "$want" 2000 "$dir/r" "$expect"
done 3<"$dir/types"
run_queue

# ------------------------------------------------------------------
section "scale: 10,000 of everything (tests/hostile/webhook-scale.tsv)"

# pod N FILTER UID: a review of a pod made by the jq FILTER ($n = N).
pod() {
	jq -n -c --arg uid "$3" --argjson n "$1" "{apiVersion: \"admission.k8s.io/v1\",
		kind: \"AdmissionReview\", request: {uid: \$uid, operation: \"CREATE\",
		namespace: \"default\", object: ({apiVersion: \"v1\", kind: \"Pod\",
		metadata: {name: \"big\"}, spec: {}} | $2)}}"
}

cases "$hostile/webhook-scale.tsv" >"$dir/scale.cases"
while IFS="$tab" read -r name bound check flags filter <&3; do
	pod 10000 "$filter" "$name" >"$dir/r"
	queue "$name ($(($(wc -c <"$dir/r") / 1024)) KiB)" 200 "$bound" "$dir/r" "$check" "$flags"
done 3<"$dir/scale.cases"
run_queue


# ------------------------------------------------------------------
section "memory: values per review, budget of the reviews in flight (tests/hostile/webhook-memory.tsv)"
# Each line against a server of its own; its peak memory (VmHWM) judged.

cases "$hostile/webhook-memory.tsv" >"$dir/memory.cases"
main_url=$url
while IFS="$tab" read -r name args count check filter <&3; do
	budget=$(printf '%s\n' "$args" | sed -n 's/.*--memory-budget \([0-9]*\).*/\1/p')
	good_jq "$filter | .request.uid = \"memory\"" >"$dir/mem.json"
	size=$(wc -c <"$dir/mem.json")
	# shellcheck disable=SC2086
	if ! webhook_start memory --tls-cert "$dir/certs/tls.crt" \
		--tls-key "$dir/certs/tls.key" $args; then
		fail "$name: the webhook does not start"
		sed 's/^/    /' "$dir/memory.log"
		continue
	fi
	url=$webhook_url
	post "$dir/good.json" /dev/null >/dev/null
	held=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$webhook_pid/status")
	i=0
	pids=""
	while [ $i -lt "$count" ]; do
		i=$((i + 1))
		post "$dir/mem.json" "$dir/mem$i.out" >"$dir/mem$i.code" &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086
	wait $pids
	hwm=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$webhook_pid/status")
	bad=""
	i=0
	while [ $i -lt "$count" ]; do
		i=$((i + 1))
		code=$(cut -d' ' -f1 "$dir/mem$i.code")
		if [ "$code" != 200 ] || ! jq -e ".response.uid == \"memory\" and ($check)" \
			"$dir/mem$i.out" >/dev/null 2>&1; then
			bad="$bad $i:$code"
		fi
	done
	overloaded=$(cat "$dir"/mem*.out | grep -c 'overloaded')
	check "$name ($count of $((size / 1024)) KiB): all answered as CHECK says${bad:+ (not:$bad)}; $overloaded refused as overloaded" \
		[ -z "$bad" ]
	bound=$((held + count * size / 1024 + budget / 1024))
	if [ -n "${GPUMEND_SANITIZE:-}" ]; then
		echo "    $name: peak ${hwm} kB (not judged under the sanitizers)"
	else
		check "$name: peak memory ${hwm} kB, within ${held} kB held before, the bodies and the budget ($bound kB)" \
			[ -n "$hwm" -a "${hwm:-0}" -le "$bound" ]
	fi
	webhook_stop
	rm -f "$dir"/mem*.out "$dir"/mem*.code
done 3<"$dir/memory.cases"
url=$main_url

# ------------------------------------------------------------------
section "log fields: each capped"
# A review whose object name is 1 MiB of ASCII, and one whose name is "x"
# and 300,000 two-byte characters (the cap falls inside one): the log line
# of each stays short and valid JSON, the name cut at 256 bytes or fewer,
# never inside a character, and marked with its whole length.
for c in "ascii a 1048576 1048576" "utf8 é 300000 600001"; do
	set -- $c
	good_jq --arg uid "log-$1" --arg n "$(if [ "$1" = utf8 ]; then printf x; fi)" \
		--arg c "$2" --argjson k "$3" \
		'.request.uid = $uid | .request.object.metadata.name = $n + ($c * $k) |
		 .request.name = .request.object.metadata.name' >"$dir/r"
	got=$(post "$dir/r" "$dir/resp.out")
	grep -F "\"uid\":\"log-$1\"" "$dir/server.log" | tail -n 1 >"$dir/line"
	size=$(wc -c <"$dir/line")
	check "a name of $4 bytes ($1): answered ${got% *}, its log line $size bytes (at most 2048)" \
		[ "${got% *}" = 200 -a "$size" -gt 0 -a "$size" -le 2048 ]
	check "a name of $4 bytes ($1): logged cut to 256 bytes or fewer, whole characters, marked" \
		sh -c "jq -e --argjson n $4 '(.name | utf8bytelength) <= 256 + 24 and
			(.name | endswith(\"...[cut, \\(\$n) bytes]\")) and
			(.name | test(\"^x?[aé]+[.]\")) and (.name | contains(\"?\") | not)' \
			'$dir/line' >/dev/null"
done

touch "$dir/stop"
wait "$loop_pid"
loop_pid=""
total=$(grep -c . "$dir/good.log")
bad=$(awk '$1 != 200' "$dir/good.log" | wc -l)
slowest=$(awk 'BEGIN { m = 0 } $2 > m { m = $2 } END { print m }' "$dir/good.log")
check "good requests all through the catalogue: $total sent, $bad failed, slowest ${slowest}s" \
	sh -c "[ $total -gt 20 ] && [ $bad = 0 ] && awk 'BEGIN { exit !($slowest * 1000 <= $(ms 3000)) }'"
[ "$bad" = 0 ] || awk '{ print $1 }' "$dir/good.log" | sort | uniq -c | sed 's/^/    /'

code=$(curl -sS -k -o /dev/null -w '%{http_code}' "$url/healthz" 2>/dev/null)
check "the server is alive and healthy after the catalogue" \
	sh -c "[ '$code' = 200 ] && kill -0 $server_pid"

# memory: the warm-up again, then compare with the baseline
i=0
while [ $i -lt 30 ]; do
	post "$dir/good.json" /dev/null >/dev/null
	i=$((i + 1))
done
sleep 1.5 # the server gives memory back within a sweep (0.5 s)
rss_end=$(rss)
hwm=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$server_pid/status" 2>/dev/null)
echo "    RSS: baseline ${rss_base} kB, after the catalogue ${rss_end} kB (peak ${hwm} kB)"
if [ -n "${GPUMEND_SANITIZE:-}" ]; then
	echo "    (RSS not judged under the sanitizers: their allocator keeps freed memory)"
elif [ -n "$rss_base" ] && [ -n "$rss_end" ] &&
     [ $((rss_end - rss_base)) -le "$RSS_SLACK_KB" ]; then
	pass "RSS back near its baseline: +$((rss_end - rss_base)) kB (at most +$RSS_SLACK_KB)"
else
	fail "RSS not back near its baseline: ${rss_base} kB -> ${rss_end} kB (at most +$RSS_SLACK_KB kB)"
fi

if grep -q '"level":"error"' "$dir/server.log"; then
	fail "the server logged errors"
	grep '"level":"error"' "$dir/server.log" | head -n 5 | sed 's/^/    /'
else
	pass "the server logged no error"
fi

webhook_stop "$server_pid"
check "SIGTERM after the catalogue: exit 0" [ "$webhook_status" = 0 ]

finish hostile_webhook
