#!/bin/sh
# tests/suites/hostile_webhook.sh - gpumend-webhook against a catalogue of
# hostile requests, each a test with the answer it must get (an HTTP
# status, a closed connection, or a well-formed AdmissionReview) and a
# time bound:
#   - connections: hundreds of idle ones (TCP only, TLS, half a request
#     head, half a ClientHello), slow headers and slow bodies, stalled or
#     trickled (slowloris): the connection timeout must close them all
#     while other requests are served;
#   - HTTP framing, as raw bytes (tests/hostile/tls_client.c): oversize,
#     truncated and chunked bodies in and over the cap, bad Content-Length
#     and Transfer-Encoding, huge headers, pipelining, not TLS at all;
#   - JSON text: 100k-deep nesting, huge strings and numbers, invalid
#     UTF-8, NUL, duplicate keys, a BOM, trailing bytes;
#   - wrong JSON types in every field the engine reads, missing or empty
#     uid (tests/hostile/webhook-types.tsv);
#   - pods with 10,000 containers, volumes, mounts, env entries...
# An answer with a patch is checked further: the patch applies to the
# object, and the object it gives gets no patch from a second review.
# Meanwhile a loop of good requests must all succeed, and at the end the
# server's RSS must be back near its baseline (both numbers printed).
# Time bounds scale with $GPUMEND_SLOW (3 under the sanitizers).
. "$(dirname "$0")/../lib.sh"

# not dir=$(scratch): see tests/lib.sh
scratch >/dev/null
dir=$_scratch
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
have_kubectl=0
command -v kubectl >/dev/null 2>&1 && have_kubectl=1

server_pid=""
loop_pid=""
bg_pids=""
cleanup() {
	for p in $loop_pid $bg_pids $server_pid; do
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$_scratch_root"
}
trap cleanup EXIT

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
	raw_judge "$_name" "$_want" "$_bound" "$("$dir/tls_client" send "$port" \
		"$_file" --timeout-ms $((_bound + 1000)) "$@")"
}

# raw_judge NAME WANT BOUND-MS LINE: judges a line of `tls_client send`.
# WANT: statuses (200, or 200,200 for pipelined requests), or "closed"
# (no answer, the server closed the connection); alternatives joined by
# "|". All within BOUND-MS.
raw_judge() {
	_name=$1 _want=$2 _bound=$3 _line=$4
	# status S sent N of M closed C elapsed_ms T
	set -- $_line
	_seen=$2
	[ "$2" = 0 ] && [ "$8" = 1 ] && _seen=closed
	case "|$_want|" in
	*"|$_seen|"*) _match=1 ;;
	*) _match=0 ;;
	esac
	if [ "$#" != 10 ]; then
		fail "$_name: tls_client gave no result ($_line)"
	elif [ "$_match" != 1 ]; then
		fail "$_name: wanted $_want, got $_seen after ${10} ms ($_line)"
	elif [ "${10}" -gt "$_bound" ]; then
		fail "$_name: $_seen after ${10} ms, over the bound of $_bound ms"
	else
		pass "$_name: $_seen in ${10} ms"
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
			# without kubectl, the patch is only known to be an array
			[ "$have_kubectl" = 1 ] || continue
			printf '%s\n' "$_json" >"$qdir/$_i.patch"
			jq '.request.object' "$qdir/$_i.json" >"$qdir/$_i.object"
			kubectl patch --local -f "$qdir/$_i.object" --type=json \
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
				if [ "$_verdict" = external ] && [ "$have_kubectl" = 0 ]; then
					:
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

if ! cc -O2 -o "$dir/tls_client" "$hostile/tls_client.c" \
	$(pkg-config --cflags --libs openssl) 2>"$dir/cc.err"; then
	fail "cannot build tests/hostile/tls_client.c"
	sed 's/^/    /' "$dir/cc.err"
	finish hostile_webhook
	exit 1
fi
if ! "$GPUMEND" certs --service gpumend --namespace gpumend --out "$dir/certs" \
	--ip 127.0.0.1 >/dev/null 2>"$dir/certs.err"; then
	fail "cannot make certificates"
	sed 's/^/    /' "$dir/certs.err"
	finish hostile_webhook
	exit 1
fi

"$GPUMEND_WEBHOOK" --listen 127.0.0.1:0 --tls-cert "$dir/certs/tls.crt" \
	--tls-key "$dir/certs/tls.key" --connection-timeout "$TIMEOUT" \
	--max-body "$MAX_BODY" 2>"$dir/server.log" &
server_pid=$!
port=""
i=0
while [ $i -lt 200 ] && [ -z "$port" ] && kill -0 "$server_pid" 2>/dev/null; do
	port=$(sed -n 's/.*"msg":"started".*"listen":"127\.0\.0\.1:\([0-9]*\)".*/\1/p' \
		"$dir/server.log")
	[ -z "$port" ] && sleep 0.05
	i=$((i + 1))
done
if [ -z "$port" ]; then
	fail "the webhook does not start"
	sed 's/^/    /' "$dir/server.log"
	finish hostile_webhook
	exit 1
fi
url="https://127.0.0.1:$port"
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
section "connections: idle, half-open, slow"
# All at once in the background while good requests are timed; judged
# when they are over.

close_bound=$(ms $((TIMEOUT * 1000 + 1500)))
slow_bound=$(ms $((TIMEOUT * 2000 + 1000)))

head_of "Content-Length: 2000" | head -c 60 >"$dir/half-head"
# half a ClientHello: a record header announcing 512 bytes, and 40
printf '\026\003\001\002\000\001\000\001\374\003\003' >"$dir/half-hello"
head -c 29 /dev/zero >>"$dir/half-hello"
{
	printf 'POST /mutate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n'
	printf 'X-Slow: %s\r\n\r\n' "$(repeat 200 a)"
} >"$dir/slow-head"
{ head_of "Content-Length: $len"; cat "$dir/good.json"; } >"$dir/slow-body"
head -c 300 "$dir/slow-body" >"$dir/slow-body-part"
{ head_of "Content-Length: 1000"; head -c 100 "$dir/good.json"; } >"$dir/truncated"
{ head_of "Transfer-Encoding: chunked"; printf '%x\r\n' 100; head -c 100 "$dir/good.json"
  printf '\r\n'; } >"$dir/chunk-part"
{ head_of "Transfer-Encoding: gzip, chunked"; printf '%x\r\n' "$len"; cat "$dir/good.json"
  printf '\r\n0\r\n\r\n'; } >"$dir/te-unknown"

# background NAME COMMAND...: runs a tls_client command, its line in
# $dir/NAME.line.
background() {
	_n=$1
	shift
	"$dir/tls_client" "$@" >"$dir/$_n.line" &
	bg_pids="$bg_pids $!"
}
wait_for=$((slow_bound + 2000))
background hold-tls hold "$port" 300 30
background hold-tcp hold "$port" 100 30 --tcp
background hold-head hold "$port" 100 30 --prefix "$dir/half-head"
background hold-hello hold "$port" 50 30 --tcp --prefix "$dir/half-hello"
# slowloris: stalled, or trickled so that the connection is never idle
# for a whole timeout
background head-stall send "$port" "$dir/half-head" --timeout-ms "$wait_for"
background head-trickle send "$port" "$dir/slow-head" --chunk 1 --delay-ms 500 \
	--timeout-ms "$wait_for"
background body-stall send "$port" "$dir/slow-body-part" --timeout-ms "$wait_for"
background body-trickle send "$port" "$dir/slow-body" --chunk 40 --delay-ms 500 \
	--timeout-ms "$wait_for"
background truncated send "$port" "$dir/truncated" --timeout-ms "$wait_for"
background chunk-part send "$port" "$dir/chunk-part" --timeout-ms "$wait_for"
background te-unknown send "$port" "$dir/te-unknown" --timeout-ms "$wait_for"

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
check "with 557 idle or slow connections held, 10 good requests: $failed failed, slowest ${worst}s" \
	sh -c "[ $failed = 0 ] && awk 'BEGIN { exit !($worst * 1000 <= $(ms 1000)) }'"
for p in $bg_pids; do
	wait "$p"
done
bg_pids=""
hold_judge "300 idle TLS connections" "$close_bound" "$(cat "$dir/hold-tls.line")"
hold_judge "100 idle TCP connections, no handshake" "$close_bound" "$(cat "$dir/hold-tcp.line")"
hold_judge "100 connections with half a request head" "$close_bound" "$(cat "$dir/hold-head.line")"
hold_judge "50 connections with half a ClientHello" "$close_bound" "$(cat "$dir/hold-hello.line")"
raw_judge "slow headers, stalled" closed "$close_bound" "$(cat "$dir/head-stall.line")"
raw_judge "slow headers, 1 byte every 0.5 s (slowloris)" closed "$slow_bound" \
	"$(cat "$dir/head-trickle.line")"
raw_judge "slow body, stalled" closed "$close_bound" "$(cat "$dir/body-stall.line")"
raw_judge "slow body, 40 bytes every 0.5 s (slow POST)" closed "$slow_bound" \
	"$(cat "$dir/body-trickle.line")"
raw_judge "a body shorter than its Content-Length, then the client waits" closed \
	"$close_bound" "$(cat "$dir/truncated.line")"
raw_judge "a chunked body without its last chunk, then the client waits" closed \
	"$close_bound" "$(cat "$dir/chunk-part.line")"
raw_judge "an unknown Transfer-Encoding (RFC 9112 6.1: 501)" "501|400" "$(ms 1000)" \
	"$(cat "$dir/te-unknown.line")"

# ------------------------------------------------------------------
section "HTTP framing"

head_of "Content-Length: 10000000000" >"$dir/r"
raw_case "Content-Length of 10 GB, no body" 413 1000 "$dir/r"
head_of "Content-Length: 99999999999999999999999" >"$dir/r"
raw_case "Content-Length past 2^64" 413 1000 "$dir/r"
head_of "Content-Length: -1" >"$dir/r"
raw_case "Content-Length -1" 400 1000 "$dir/r"
head_of "Content-Length: 12abc" >"$dir/r"
raw_case "Content-Length not a number" 400 1000 "$dir/r"
{ head_of "Content-Length: $len" "Content-Length: 5"; cat "$dir/good.json"; } >"$dir/r"
raw_case "two different Content-Lengths (RFC 9112 6.3: 400)" 400 1000 "$dir/r"
{ head_of "Content-Length: 100"; head -c 100 "$dir/good.json"; } >"$dir/r"
raw_case "a body cut inside the JSON" 400 1000 "$dir/r"
head_of "Content-Length: 0" >"$dir/r"
raw_case "an empty body" 400 1000 "$dir/r"
head_of "Content-Length: 9999999" "Expect: 100-continue" >"$dir/r"
raw_case "Expect: 100-continue over the cap: refused before the body" 413 1000 "$dir/r"

{ head_of "Transfer-Encoding: chunked"; printf '%x\r\n' "$len"; cat "$dir/good.json"
  printf '\r\n0\r\n\r\n'; } >"$dir/r"
raw_case "a chunked body under the cap" 200 1000 "$dir/r"
{ head_of "Transfer-Encoding: chunked"; printf '%x\r\n' 100; head -c 100 "$dir/good.json"
  printf '\r\n%x\r\n' $((len - 100)); tail -c +101 "$dir/good.json"; printf '\r\n0\r\n\r\n'; } >"$dir/r"
raw_case "a chunked body in two chunks, sent 100 bytes at a time" 200 3000 "$dir/r" \
	--chunk 100 --delay-ms 20
{ head_of "Transfer-Encoding: chunked"; printf '%x\r\n' $((MAX_BODY + 4096))
  spaces $((MAX_BODY + 4096)); printf '\r\n0\r\n\r\n'; } >"$dir/r"
raw_case "a chunked body just over the cap" 413 5000 "$dir/r"
{ head_of "Transfer-Encoding: chunked"; j=0
  while [ $j -lt 10 ]; do printf '%x\r\n' 1048576; spaces 1048576; printf '\r\n'; j=$((j + 1)); done
  printf '0\r\n\r\n'; } >"$dir/r"
raw_case "a chunked body of 10 MiB, far over the cap" "413|closed" 5000 "$dir/r"
{ head_of "Transfer-Encoding: chunked"; printf 'zz\r\nabc\r\n0\r\n\r\n'; } >"$dir/r"
raw_case "a chunk size not hexadecimal" 400 1000 "$dir/r"
{ head_of "Transfer-Encoding: chunked"; printf 'fffffffffffffffffffffff\r\nabc\r\n0\r\n\r\n'; } >"$dir/r"
raw_case "a chunk size past 2^64" "413|400" 1000 "$dir/r"
{ head_of "Transfer-Encoding: chunked" "Content-Length: 5"; printf '%x\r\n' "$len"
  cat "$dir/good.json"; printf '\r\n0\r\n\r\n'; } >"$dir/r"
raw_case "chunked and Content-Length together (RFC 9112 6.1: chunked wins, or 400)" \
	"200|400" 1000 "$dir/r"

printf 'GARBAGE\r\n\r\n' >"$dir/r"
raw_case "a garbage request line" "400|closed" 1000 "$dir/r"
printf 'FOO /mutate HTTP/1.1\r\nHost: x\r\n\r\n' >"$dir/r"
raw_case "an unknown method" 405 1000 "$dir/r"
printf 'GET /%s HTTP/1.1\r\nHost: x\r\n\r\n' "$(repeat 20000 a)" >"$dir/r"
raw_case "a URL of 20 KB" "404|414|431" 1000 "$dir/r"
printf 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n' "$(repeat 100000 a)" >"$dir/r"
raw_case "a header of 100 KB" 431 1000 "$dir/r"
{ printf 'GET /healthz HTTP/1.1\r\nHost: x\r\n'; j=0
  while [ $j -lt 5000 ]; do printf 'X-%d: y\r\n' $j; j=$((j + 1)); done; printf '\r\n'; } >"$dir/r"
raw_case "5,000 header lines" 431 1000 "$dir/r"
printf 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Nul: a\000b\r\n\r\n' >"$dir/r"
raw_case "a NUL byte in a header (RFC 9110 5.5: 400, or read as a space)" "400|200" 1000 "$dir/r"
printf 'GET /healthz HTTP/1.1\nHost: x\n\n' >"$dir/r"
raw_case "bare LF line ends" 200 1000 "$dir/r"
{ printf 'POST /mutate HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: %s\r\n\r\n' "$len"
  cat "$dir/good.json"; } >"$dir/r"
raw_case "HTTP/1.0 without Host" 200 1000 "$dir/r"
{ head_of "Content-Length: $len"; cat "$dir/good.json"; } >"$dir/one"
cat "$dir/one" "$dir/one" "$dir/one" >"$dir/r"
raw_case "three requests pipelined in one write" 200,200,200 2000 "$dir/r" --responses 3
printf 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n' >"$dir/r"
raw_case "plain HTTP to the TLS port" closed 1000 "$dir/r" --tcp
repeat 2000 '\377' >"$dir/r"
raw_case "2,000 bytes of 0xFF instead of a ClientHello" closed 1000 "$dir/r" --tcp

{ cat "$dir/good.json"; spaces $((MAX_BODY - len)); } >"$dir/r"
queue "a body of exactly --max-body" 200 3000 "$dir/r"
{ cat "$dir/good.json"; spaces $((MAX_BODY - len + 1)); } >"$dir/r"
queue "a body one byte over --max-body" 413 3000 "$dir/r" "too large"
run_queue
spaces $((MAX_BODY * 2)) >"$dir/r"
got=$(post "$dir/r" "$dir/resp.out" -H 'Transfer-Encoding: chunked')
check "a chunked body of twice --max-body, by curl: 413 or closed (${got% *})" \
	sh -c "[ '${got% *}' = 413 ] || [ '${got% *}' = 000 ]"

# ------------------------------------------------------------------
section "JSON text"

# wrap TEXT-FILE UID: a review of a pod whose spec.x is the JSON text.
wrap() {
	printf '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"%s","operation":"CREATE","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"busybox"}],"x":' "$2"
	cat "$1"
	printf '}}}}'
}
{ repeat 100000 '['; repeat 100000 ']'; } >"$dir/deep"
cp "$dir/deep" "$dir/r"
queue "100,000 nested arrays as the body" 400 2000 "$dir/r" "depth"
wrap "$dir/deep" deep >"$dir/r"
queue "100,000 nested arrays inside the object" 400 2000 "$dir/r" "depth"
{ repeat 50000 '{' | sed 's/{/{"a":/g'; printf 1; repeat 50000 '}'; } >"$dir/deep"
wrap "$dir/deep" deep-obj >"$dir/r"
queue "50,000 nested objects inside the object" 400 2000 "$dir/r" "depth"
{ repeat 100 '['; repeat 100 ']'; } >"$dir/deep"
wrap "$dir/deep" deep-100 >"$dir/r"
queue "100 nested arrays (under maxDepth): reviewed" 200 2000 "$dir/r" \
	'(.response.warnings // []) | all(contains("nests deeper") | not)'

{ printf '"'; repeat 3000000 a; printf '"'; } >"$dir/big"
jq -c --slurpfile s "$dir/big" '.request.uid = "long-name" |
	.request.object.spec.containers[0].name = $s[0]' "$dir/good.json" >"$dir/r"
queue "a container name of 3 MB" 200 3000 "$dir/r"
jq -c --slurpfile s "$dir/big" '.request.uid = "long-key" |
	.request.object.metadata.labels[$s[0][:1048576]] = "x"' "$dir/good.json" >"$dir/r"
queue "a label key of 1 MiB" 200 3000 "$dir/r"
jq -c --slurpfile s "$dir/big" '.request.uid = "long-image" |
	.request.object.spec.containers[1].image = "nvidia/cuda:" + $s[0]' "$dir/good.json" >"$dir/r"
queue "an image name of 3 MB" 200 3000 "$dir/r" \
	'.response.warnings | any(startswith("gpu-visibility"))'
printf '1e999999' >"$dir/n"
wrap "$dir/n" huge-real >"$dir/r"
queue "a number of 1e999999" 400 1000 "$dir/r" "malformed JSON"
repeat 400 9 >"$dir/n"
wrap "$dir/n" huge-int >"$dir/r"
queue "an integer of 400 digits" 400 1000 "$dir/r" "malformed JSON"
# edges of 64 bits as the GPU count (sed, not jq: jq 1.6 reads integers
# as doubles, and could not replay the patch either)
for n in 9223372036854775807 -9223372036854775808 0 1e-320 -0 1.5; do
	sed -e "s/\"alpha.kubernetes.io\/nvidia-gpu\":2/\"alpha.kubernetes.io\/nvidia-gpu\":$n/" \
		-e "s/\"uid\":\"good\"/\"uid\":\"gpu-$n\"/" "$dir/good.json" >"$dir/r"
	queue "a GPU count of $n" 200 1000 "$dir/r" - once
done

# bytes: invalid UTF-8 and friends
bytes() {
	LC_ALL=C sed "s/\"name\":\"train\"/\"name\":\"tr$1ain\"/" "$dir/good.json" >"$dir/r"
}
bytes '\xff'
queue "invalid UTF-8 (0xFF) in a container name" 400 1000 "$dir/r" "malformed JSON"
LC_ALL=C sed 's/"uid":"good"/"uid":"go\xc0\xafod"/' "$dir/good.json" >"$dir/r"
queue "an overlong UTF-8 sequence in the uid" 400 1000 "$dir/r" "malformed JSON"
bytes '\xed\xa0\x80'
queue "a UTF-8 encoded surrogate" 400 1000 "$dir/r" "malformed JSON"
bytes '\xe2\x82'
queue "a truncated UTF-8 sequence" 400 1000 "$dir/r" "malformed JSON"
bytes '\xf4\x90\x80\x80'
queue "a code point past U+10FFFF" 400 1000 "$dir/r" "malformed JSON"
bytes '\\ud800'
queue "a lone surrogate escape" 400 1000 "$dir/r" "malformed JSON"
bytes '\\u0000'
queue "a NUL escape in a string" 400 1000 "$dir/r" "malformed JSON"
bytes '\x00'
queue "a raw NUL byte in a string" 400 1000 "$dir/r" "malformed JSON"
bytes '\x09'
queue "a raw tab in a string" 400 1000 "$dir/r" "malformed JSON"
bytes '\\ud83d\\ude00\xf0\x9f\x98\x80'
queue "a surrogate pair escape and a 4-byte sequence: fine" 200 1000 "$dir/r"
sed 's/^{/{"kind":"AdmissionReview",/' "$dir/good.json" >"$dir/r"
queue "a duplicate key at the top" 400 1000 "$dir/r" "duplicate"
sed 's/"uid":"good"/"uid":"good","uid":"evil"/' "$dir/good.json" >"$dir/r"
queue "a duplicate uid" 400 1000 "$dir/r" "duplicate"
sed 's/"alpha.kubernetes.io\/nvidia-gpu":2/&,"alpha.kubernetes.io\/nvidia-gpu":0/' \
	"$dir/good.json" >"$dir/r"
queue "a duplicate key deep in the object" 400 1000 "$dir/r" "duplicate"
{ printf '\357\273\277'; cat "$dir/good.json"; } >"$dir/r"
queue "a byte order mark" 400 1000 "$dir/r" "malformed JSON"
{ cat "$dir/good.json"; printf '{}'; } >"$dir/r"
queue "a second JSON value after the review" 400 1000 "$dir/r" "malformed JSON"
for v in null '"review"' 42 '[]' true; do
	printf '%s' "$v" >"$dir/r"
	queue "the body $v" 400 1000 "$dir/r"
done
run_queue

# deeper than jq reads, so not batched: judged by the uid in the text
{ repeat 1000 '['; repeat 1000 ']'; } >"$dir/deep"
wrap "$dir/deep" deep-1000 >"$dir/r"
got=$(post "$dir/r" "$dir/resp.out")
check "1,000 nested arrays (under the parser's limit): admitted unchanged, saying why (${got#* }s)" \
	sh -c "[ '${got% *}' = 200 ] && jq -e '.response.uid == \"deep-1000\" and .response.allowed and
		(.response | has(\"patch\") | not) and
		(.response.warnings[0] | contains(\"nests deeper\"))' '$dir/resp.out' >/dev/null"

# ------------------------------------------------------------------
section "wrong types (tests/hostile/webhook-types.tsv)"

# the requests made by one jq run, one per line
n=0
gen=""
: >"$dir/types"
while IFS="$tab" read -r name want filter expect; do
	case "$name" in '' | '#'*) continue ;; esac
	n=$((n + 1))
	printf '%s\t%s\t%s\n' "$name" "$want" "$expect" >>"$dir/types"
	gen="$gen${gen:+,
}(try (.request.uid = \"types-$n\" | $filter | tojson) catch \"not made\")"
done <"$hostile/webhook-types.tsv"
jq -r "$gen" "$dir/good.json" >"$dir/requests" 2>"$dir/jq.err" ||
	fail "webhook-types.tsv: the requests cannot be made: $(head -c 300 "$dir/jq.err")"
i=0
while IFS="$tab" read -r name want expect; do
	i=$((i + 1))
	sed -n "${i}p" "$dir/requests" >"$dir/r"
	queue "$name" "$want" 2000 "$dir/r" "$expect"
done <"$dir/types"
run_queue

# ------------------------------------------------------------------
section "scale: 10,000 of everything"

# pod N FILTER UID: a review of a pod made by the jq FILTER ($n = N).
pod() {
	jq -n -c --arg uid "$3" --argjson n "$1" "{apiVersion: \"admission.k8s.io/v1\",
		kind: \"AdmissionReview\", request: {uid: \$uid, operation: \"CREATE\",
		namespace: \"default\", object: ({apiVersion: \"v1\", kind: \"Pod\",
		metadata: {name: \"big\"}, spec: {}} | $2)}}"
}

# big NAME BOUND-MS FILTER CHECK [FLAGS]: a pod made by the jq FILTER
# ($n = 10000), reviewed within BOUND-MS.
big() {
	_name=$1 _bound=$2
	pod 10000 "$3" "$1" >"$dir/r"
	queue "$_name ($(($(wc -c <"$dir/r") / 1024)) KiB)" 200 "$_bound" "$dir/r" "$4" \
		"${5:-once}"
}

big "10,000 containers with the legacy GPU resource" 5000 \
	'.spec.containers = [range(10000) | {name: "c\(.)", image: "busybox",
		resources: {limits: {"alpha.kubernetes.io/nvidia-gpu": 1}}}]' \
	'(.response.warnings[-1] | contains("more finding")) and (.response.patch | length > 0)' \
	external
big "10,000 obsolete CUDA hostPath volumes, each mounted" 5000 \
	'.spec.containers = [{name: "c", image: "busybox",
		volumeMounts: [range(10000) | {name: "v\(.)", mountPath: "/usr/local/nvidia/\(.)"}]}] |
	 .spec.volumes = [range(10000) | {name: "v\(.)", hostPath: {path: "/usr/lib/nvidia-\(.)"}}]' \
	'.response.patchType == "JSONPatch"'
big "10,000 ordinary volumes" 5000 \
	'.spec.containers = [{name: "c", image: "busybox"}] |
	 .spec.volumes = [range(10000) | {name: "v\(.)", emptyDir: {}}]' \
	'.response | has("patch") | not'
big "10,000 mounts of one obsolete volume" 5000 \
	'.spec.containers = [{name: "c", image: "busybox",
		volumeMounts: [range(10000) | {name: "drv", mountPath: "/usr/local/nvidia/\(.)"}]}] |
	 .spec.volumes = [{name: "drv", hostPath: {path: "/usr/local/nvidia"}}]' \
	'.response.patchType == "JSONPatch"'
big "10,000 init containers seeing every GPU" 5000 \
	'.spec.containers = [{name: "c", image: "busybox"}] |
	 .spec.initContainers = [range(10000) | {name: "i\(.)", image: "nvidia/cuda:12.0-base"}]' \
	'.response | has("patch") | not'
big "10,000 env entries" 5000 \
	'.spec.containers = [{name: "c", image: "busybox",
		env: [range(10000) | {name: "NVIDIA_VISIBLE_DEVICES", value: "\(.)"}]}]' -
big "10,000 nodeSelector labels" 5000 \
	'.spec.containers = [{name: "c", image: "busybox",
		resources: {limits: {"alpha.kubernetes.io/nvidia-gpu": 1}}}] |
	 .spec.nodeSelector = ([range(10000) | {key: "l\(.)", value: "v"}] | from_entries)' -
big "10,000 annotations" 5000 \
	'.spec.containers = [{name: "c", image: "busybox",
		resources: {limits: {"alpha.kubernetes.io/nvidia-gpu": 1}}}] |
	 .metadata.annotations = ([range(10000) | {key: "a\(.)", value: "v"}] | from_entries)' -
run_queue

# scaling NAME N FILTER: the time the server itself spends (review_ms in
# its log) on N and on 8N items ($n in FILTER): eight times as many may
# take eight times as long (or 32, for slack on a loaded machine), not 64:
# quadratic work lets one request of a few MB take minutes. (N large
# enough for the work on the items to outweigh the rest.)
scaling() {
	_small=$2 _large=$(($2 * 8))
	for _n in $_small $_large; do
		pod "$_n" "$3" "scaling-$_n-$1" >"$dir/r"
		post "$dir/r" /dev/null >/dev/null
	done
	_t1=$(grep "\"uid\":\"scaling-$_small-$1\"" "$dir/server.log" |
		sed -n 's/.*"review_ms":\([0-9.]*\).*/\1/p' | tail -n 1)
	_t4=$(grep "\"uid\":\"scaling-$_large-$1\"" "$dir/server.log" |
		sed -n 's/.*"review_ms":\([0-9.]*\).*/\1/p' | tail -n 1)
	check "scaling, $1: ${_t1:-?} ms for $_small, ${_t4:-?} ms for $_large (at most 32 times as long: 64 would be quadratic)" \
		awk -v a="${_t1:-0}" -v b="${_t4:-1e9}" -v floor="$(ms 200)" \
		'BEGIN { exit !(b <= 32 * a || b <= floor) }'
}
scaling containers 1000 '.spec.containers = [range($n) | {name: "c\(.)", image: "busybox",
	resources: {limits: {"alpha.kubernetes.io/nvidia-gpu": 1}}}]'
scaling "obsolete volumes" 3000 '.spec.containers = [{name: "c", image: "busybox",
	volumeMounts: [range($n) | {name: "v\(.)", mountPath: "/usr/local/nvidia/\(.)"}]}] |
	.spec.volumes = [range($n) | {name: "v\(.)", hostPath: {path: "/usr/lib/nvidia-\(.)"}}]'
scaling "GPU models" 2000 '.spec.containers = [{name: "c", image: "busybox",
	resources: {limits: {"alpha.kubernetes.io/nvidia-gpu": 1}}}] |
	.metadata.annotations["gpumend.io/gpu-models"] = ([range($n) | "Model \(.)"] | join(", "))'
scaling "node affinity terms" 1000 '.spec.containers = [{name: "c", image: "busybox"}] |
	.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms =
	[range($n) | {matchExpressions: [{key: "alpha.kubernetes.io/nvidia-gpu-name",
		operator: "In", values: ["Tesla K\(.)"]}]}]'
scaling "init containers" 1000 '.spec.containers = [{name: "c", image: "busybox"}] |
	.spec.initContainers = [range($n) | {name: "i\(.)", image: "nvidia/cuda:12.0-base"}]'
scaling "env entries" 1000 '.spec.containers = [{name: "c", image: "busybox",
	env: [range($n) | {name: "NVIDIA_VISIBLE_DEVICES", value: "\(.)"}]}]'

# ------------------------------------------------------------------
section "after the catalogue"

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

kill -TERM "$server_pid"
wait "$server_pid"
status=$?
server_pid=""
check "SIGTERM after the catalogue: exit 0" [ "$status" = 0 ]

finish hostile_webhook
