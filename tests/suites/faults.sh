#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/faults.sh - gpumend-webhook when things go wrong around it,
# while requests keep coming:
#   - TLS policy: TLS 1.0/1.1, CBC, RC4, 3DES, NULL, export and non-forward-
#     secret suites refused (openssl s_client); TLS 1.2 and 1.3 work;
#   - certificate files deleted, truncated, replaced with garbage, a key
#     that does not match, a directory, an oversized or world-readable file,
#     an expired or a not yet valid certificate (counted in the metric of
#     refused reloads; one valid a few seconds later is then taken):
#     each refused and logged, the pair in use still served (its
#     fingerprint, by openssl s_client), 0 failed requests; a good pair
#     coming back is served again;
#   - the config replaced with invalid ones: the config in use stays in
#     force (seen in what the webhook does), then a good one takes over;
#   - SIGTERM under load (wrk, and slow uploads in flight): the requests in
#     flight complete, new connections are refused, no answer is an error,
#     exit 0 within the bound; a stalled upload is abandoned after the
#     drain timeout; 20 times SIGTERM while clients send one request per
#     connection: no request sent whole goes unanswered;
#   - --client-ca: client certificates required on /mutate (not on the
#     probes), and for client authentication (a serving certificate of a
#     trusted CA gets 403); a world-readable key refused at start-up and
#     on reload.
# Time bounds scale with $GPUMEND_SLOW.
. "$(dirname "$0")/../lib.sh"

# not dir=$(scratch): see tests/lib.sh
scratch >/dev/null
dir=$_scratch
WEBHOOK_DIR=$dir
data="$TESTS_DIR/webhook"
hostile="$TESTS_DIR/hostile"

SLOW=${GPUMEND_SLOW:-1}
case "$SLOW" in '' | *[!0-9]* | 0) SLOW=1 ;; esac

for tool in curl openssl jq; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		fail "faults: '$tool' not found"
		finish faults
		exit 1
	fi
done

bg_pids=""
at_exit 'for p in $bg_pids; do kill -KILL "$p" 2>/dev/null; done'

# ------------------------------------------------------------------
# Helpers

ms() {
	echo $(($1 * SLOW))
}

now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# fingerprint FILE: SHA-256 fingerprint of a PEM certificate.
fingerprint() {
	openssl x509 -in "$1" -noout -fingerprint -sha256 | sed 's/.*=//'
}

# served PORT: the fingerprint of the certificate the server presents.
served() {
	echo | openssl s_client -connect "127.0.0.1:$1" 2>/dev/null |
		openssl x509 -noout -fingerprint -sha256 2>/dev/null | sed 's/.*=//'
}

# count NAME PATTERN: lines of the log matching PATTERN.
count() {
	grep -c -- "$2" "$dir/$1.log" 2>/dev/null
}

# wait_count NAME PATTERN N: waits (up to 8 s, scaled) for N such lines.
wait_count() {
	_end=$(($(now_ms) + $(ms 8000)))
	while [ "$(now_ms)" -lt "$_end" ]; do
		[ "$(count "$1" "$2")" -ge "$3" ] && return 0
		sleep 0.05
	done
	return 1
}

# post URL FILE OUT [CURL-ARGS...]: POSTs FILE to URL/mutate, verifying the
# server against $dir/bundle.crt; prints the status (000: no answer).
post() {
	_u=$1 _in=$2 _out=$3
	shift 3
	curl -sS --cacert "$dir/bundle.crt" -H 'Content-Type: application/json' \
		--data-binary "@$_in" -o "$_out" -w '%{http_code}' --max-time 20 \
		"$@" "$_u/mutate" 2>/dev/null
}

# review UID OBJECT-FILE: an AdmissionReview v1 CREATE of the object.
review() {
	jq -c --arg uid "$1" '{apiVersion: "admission.k8s.io/v1",
		kind: "AdmissionReview", request: {uid: $uid,
		kind: {group: "", version: "v1", kind: "Pod"},
		resource: {group: "", version: "v1", resource: "pods"},
		namespace: "ml", operation: "CREATE", object: .}}' "$2"
}

# loop_start NAME: requests in a loop, one new TLS connection each (every
# one a handshake with the pair in use), codes in $dir/NAME.codes, until
# $dir/NAME.stop exists.
loop_start() {
	: >"$dir/$1.codes"
	rm -f "$dir/$1.stop"
	(
		while [ ! -f "$dir/$1.stop" ]; do
			echo "$(post "$main_url" "$dir/good.json" /dev/null)" >>"$dir/$1.codes"
		done
	) &
	bg_pids="$bg_pids $!"
	eval "loop_pid_$1=\$!"
}

# loop_stop NAME WHAT: stops the loop; one test: every request answered 200.
loop_stop() {
	touch "$dir/$1.stop"
	eval "wait \$loop_pid_$1"
	_total=$(grep -c . "$dir/$1.codes")
	_bad=$(grep -vc '^200$' "$dir/$1.codes")
	check "$2: $_total requests, $_bad failed" [ "$_total" -gt 10 -a "$_bad" = 0 ]
	[ "$_bad" = 0 ] || sort "$dir/$1.codes" | uniq -c | sed 's/^/    /'
}

# ------------------------------------------------------------------
# Certificates, the mount, the config, the server

if ! webhook_pair "$dir/a" || ! webhook_pair "$dir/b"; then
	fail "cannot make certificates: $(cat "$dir/a/certs.err" "$dir/b/certs.err" 2>/dev/null)"
	finish faults
	exit 1
fi
cat "$dir/a/ca.crt" "$dir/b/ca.crt" >"$dir/bundle.crt"
fp_a=$(fingerprint "$dir/a/tls.crt")
fp_b=$(fingerprint "$dir/b/tls.crt")

# a Secret volume as the kubelet lays it out: files behind ..data
mount_dir="$dir/mount"
mkdir -p "$mount_dir/..v1"
cp -p "$dir/a/tls.crt" "$dir/a/tls.key" "$mount_dir/..v1/"
ln -s ..v1 "$mount_dir/..data"
ln -s ..data/tls.crt "$mount_dir/tls.crt"
ln -s ..data/tls.key "$mount_dir/tls.key"
v=1
# swap CERT KEY: a new ..vN holding copies of CERT and KEY as tls.crt and
# tls.key, swapped in as the kubelet does it.
swap() {
	v=$((v + 1))
	mkdir "$mount_dir/..v$v"
	cp -Rp "$1" "$mount_dir/..v$v/tls.crt"
	cp -Rp "$2" "$mount_dir/..v$v/tls.key"
	ln -s "..v$v" "$mount_dir/..data_tmp"
	mv -T "$mount_dir/..data_tmp" "$mount_dir/..data"
}

mkdir -p "$dir/conf"
printf 'rules:\n  gpu-visibility:\n    mode: mutate\n' >"$dir/conf/config.yaml"
review good "$data/legacy-pod.json" >"$dir/good.json"

if webhook_start main --tls-cert "$mount_dir/tls.crt" --tls-key "$mount_dir/tls.key" \
	-c "$dir/conf/config.yaml" --drain-timeout 10; then
	pass "the webhook started (a kubelet-style certificate mount, a config file)"
else
	fail "the webhook does not start"
	sed 's/^/    /' "$dir/main.log"
	finish faults
	exit 1
fi
main_pid=$webhook_pid
main_port=$webhook_port
main_url=$webhook_url

# ------------------------------------------------------------------
# TLS policy

# handshake NAME WANT ARGS...: openssl s_client with ARGS; WANT ok or
# refused.
handshake() {
	_name=$1 _want=$2
	shift 2
	if echo | openssl s_client -connect "127.0.0.1:$main_port" "$@" \
		>"$dir/hs.out" 2>&1 && grep -q '^New, .*Cipher is [A-Z]' "$dir/hs.out"; then
		_got=ok
	else
		_got=refused
	fi
	check "TLS: $_name: $_want" [ "$_got" = "$_want" ]
}
handshake "TLS 1.0" refused -tls1 -cipher 'DEFAULT@SECLEVEL=0'
handshake "TLS 1.1" refused -tls1_1 -cipher 'DEFAULT@SECLEVEL=0'
handshake "RC4, 3DES, NULL and export suites over TLS 1.2" refused -tls1_2 \
	-cipher 'RC4:3DES:NULL:EXPORT:@SECLEVEL=0'
handshake "CBC suites over TLS 1.2" refused -tls1_2 \
	-cipher 'ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA:ECDHE-ECDSA-AES128-SHA256:ECDHE-ECDSA-AES256-SHA384'
handshake "suites without forward secrecy (static RSA, PSK)" refused -tls1_2 \
	-cipher 'AES128-GCM-SHA256:AES256-GCM-SHA384:PSK:@SECLEVEL=0'
handshake "anonymous suites (no certificate)" refused -tls1_2 -cipher 'aNULL:@SECLEVEL=0'
handshake "TLS 1.2 with an AEAD suite" ok -tls1_2 -CAfile "$dir/bundle.crt" -verify_return_error
handshake "TLS 1.3" ok -tls1_3 -CAfile "$dir/bundle.crt" -verify_return_error
echo | openssl s_client -connect "127.0.0.1:$main_port" -tls1_2 >"$dir/hs.out" 2>&1
cipher=$(sed -n 's/^New, .*Cipher is //p' "$dir/hs.out" | head -n 1)
case "$cipher" in
*GCM* | *CHACHA20*) pass "TLS 1.2 negotiates an AEAD suite with forward secrecy ($cipher)" ;;
*) fail "TLS 1.2 negotiates '$cipher'" ;;
esac
# client-initiated renegotiation: refused or harmless, never a crash
{ sleep 0.3; echo R; sleep 0.5; } | openssl s_client -connect "127.0.0.1:$main_port" \
	-tls1_2 >/dev/null 2>&1
code=$(curl -sS --cacert "$dir/bundle.crt" -o /dev/null -w '%{http_code}' "$main_url/healthz")
check "TLS: a client asking to renegotiate leaves the server serving" \
	sh -c "[ '$code' = 200 ] && kill -0 $main_pid"

# ------------------------------------------------------------------
# Certificate faults while requests flow

check "certificate: the first pair is served" [ "$(served "$main_port")" = "$fp_a" ]
loop_start certs
sleep 0.3

# mark: before a change of the files. fault NAME: after it, the server
# refused the new files and logged it, and keeps serving the pair in use.
mark() {
	marked=$(count main '"msg":"certificate reload refused')
}
fault() {
	check "certificate $1: refused and logged" \
		wait_count main '"msg":"certificate reload refused' $((marked + 1))
	check "certificate $1: the pair in use is still served" \
		[ "$(served "$main_port")" = "$fp_a" ]
}

mark
rm "$mount_dir/..v1/tls.crt" "$mount_dir/..v1/tls.key"
fault "and key deleted"
cp -p "$dir/a/tls.crt" "$dir/a/tls.key" "$mount_dir/..v1/"
sleep 0.5
head -c 300 "$dir/b/tls.crt" >"$dir/half.crt"
mark
swap "$dir/half.crt" "$dir/b/tls.key"
fault "truncated"
head -c 1200 /dev/urandom >"$dir/garbage.crt"
head -c 300 /dev/urandom >"$dir/garbage.key"
chmod 600 "$dir/garbage.key"
mark
swap "$dir/garbage.crt" "$dir/garbage.key"
fault "and key replaced with random bytes"
mark
swap "$dir/b/tls.crt" "$dir/garbage.key"
fault "with a key of random bytes"
: >"$dir/empty.crt"
: >"$dir/empty.key"
chmod 600 "$dir/empty.key"
mark
swap "$dir/empty.crt" "$dir/empty.key"
fault "and key emptied"
mark
swap "$dir/b/tls.crt" "$dir/a/tls.key"
fault "with the key of another certificate"
{ cat "$dir/b/tls.crt"; head -c 2000000 /dev/zero | tr '\0' 'A'; } >"$dir/huge.crt"
mark
swap "$dir/huge.crt" "$dir/b/tls.key"
fault "of 2 MB"
mkdir -p "$dir/cert-dir/tls.crt"
mark
swap "$dir/cert-dir/tls.crt" "$dir/b/tls.key"
fault "replaced by a directory"
sed 's/^-----BEGIN CERTIFICATE-----$/-----BEGIN CERTIFICATE-----\nMIIB/' "$dir/b/tls.crt" \
	>"$dir/corrupt.crt"
mark
swap "$dir/corrupt.crt" "$dir/b/tls.key"
fault "with a corrupt base64 body"
mark
ln -sfn ..nowhere "$mount_dir/..data_tmp"
mv -T "$mount_dir/..data_tmp" "$mount_dir/..data"
fault "mount pointing nowhere"

# dated START END: a certificate for the key of b, signed by b's CA, valid
# from START to END (openssl's YYYYMMDDHHMMSSZ), on stdout (`openssl ca`
# takes any dates; `x509 -days` only from now on)
dated() {
	mkdir -p "$dir/dated"
	: >"$dir/dated/index.txt"
	printf '[ca]\ndefault_ca = d\n[d]\ndatabase = %s\nnew_certs_dir = %s\nserial = %s\ndefault_md = sha256\npolicy = p\nunique_subject = no\n[p]\ncommonName = supplied\n[x]\nsubjectAltName = IP:127.0.0.1\nextendedKeyUsage = serverAuth\n' \
		"$dir/dated/index.txt" "$dir/dated" "$dir/dated/serial" >"$dir/dated/ca.cnf"
	[ -f "$dir/dated/serial" ] || echo 1000 >"$dir/dated/serial"
	openssl req -new -key "$dir/b/tls.key" -subj /CN=gpumend -out "$dir/dated/req.csr" \
		2>/dev/null &&
	openssl ca -batch -config "$dir/dated/ca.cnf" -extensions x -notext \
		-cert "$dir/b/ca.crt" -keyfile "$dir/b/ca.key" -in "$dir/dated/req.csr" \
		-startdate "$1" -enddate "$2" -out /dev/stdout 2>"$dir/dated/err"
}
reloads_refused() {
	curl -sS --cacert "$dir/bundle.crt" "$main_url/metrics" 2>/dev/null |
		awk '$1 == "gpumend_reloads_total{kind=\"certificate\",result=\"failure\"}" { print $2 }'
}
refused_before=$(reloads_refused)
if dated 20200101000000Z 20200201000000Z >"$dir/expired.crt" &&
   dated 20990101000000Z 21000101000000Z >"$dir/future.crt" &&
   dated "$(date -u -d '+5 seconds' +%Y%m%d%H%M%SZ)" 21000101000000Z >"$dir/soon.crt"; then
	mark
	swap "$dir/expired.crt" "$dir/b/tls.key"
	fault "expired (the key its own)"
	check "certificate expired: the log says when" \
		grep -q 'expired at 2020-02-01T00:00:00Z' "$dir/main.log"
	mark
	swap "$dir/future.crt" "$dir/b/tls.key"
	fault "not valid until 2099 (the key its own)"
	check "certificate expired, not yet valid: each counted as a refused reload" \
		[ "$(reloads_refused)" = $((refused_before + 2)) ]
	# valid 5 s from now: refused now, then taken once valid, the files
	# unchanged (the check every 5 s retries a pair refused as not valid
	# yet: two waits of wait_count)
	mark
	marked_ok=$(count main '"msg":"certificate reloaded"')
	swap "$dir/soon.crt" "$dir/b/tls.key"
	fault "valid from 5 s on"
	wait_count main '"msg":"certificate reloaded"' $((marked_ok + 1)) ||
		wait_count main '"msg":"certificate reloaded"' $((marked_ok + 1))
	check "certificate valid from 5 s on: taken once valid" \
		[ "$(count main '"msg":"certificate reloaded"')" = $((marked_ok + 1)) ]
	check "certificate valid from 5 s on: then served" \
		[ "$(served "$main_port")" = "$(fingerprint "$dir/soon.crt")" ]
	# back to a itself, for what follows
	swap "$dir/a/tls.crt" "$dir/a/tls.key"
	wait_count main '"msg":"certificate reloaded"' $((marked_ok + 2))
else
	fail "cannot make dated certificates with openssl ca: $(head -c 300 "$dir/dated/err")"
fi

marked_ok=$(count main '"msg":"certificate reloaded"')
swap "$dir/b/tls.crt" "$dir/b/tls.key"
check "certificate: a good pair again: reloaded" \
	wait_count main '"msg":"certificate reloaded"' $((marked_ok + 1))
check "certificate: the good pair is served" [ "$(served "$main_port")" = "$fp_b" ]
sleep 0.3
loop_stop certs "certificate faults: requests all through them (new handshakes each)"
check "certificate faults: no other error logged" \
	sh -c "! grep '\"level\":\"error\"' '$dir/main.log' | grep -v 'certificate reload refused' | grep -q ."

# ------------------------------------------------------------------
# Config faults: gpu-visibility in mutate mode adds NVIDIA_VISIBLE_DEVICES
# to the exporter container of the legacy pod; in warn mode it does not

# visibility: "mutate" when the answer's patch sets NVIDIA_VISIBLE_DEVICES,
# else "warn".
visibility() {
	post "$main_url" "$dir/good.json" "$dir/vis.json" >/dev/null
	if jq -r '.response.patch // empty' "$dir/vis.json" | base64 -d 2>/dev/null |
		grep -q NVIDIA_VISIBLE_DEVICES; then
		echo mutate
	else
		echo warn
	fi
}
check "config: in force (gpu-visibility mutates)" [ "$(visibility)" = mutate ]
loop_start config
# cfault NAME: the config file was just broken (by replace, or after
# cmark): refused and logged, the config in use still in force.
cmark() {
	cmarked=$(count main '"msg":"config reload refused')
}
cfault() {
	check "config $1: refused and logged" \
		wait_count main '"msg":"config reload refused' $((cmarked + 1))
	check "config $1: the config in use stays in force" [ "$(visibility)" = mutate ]
}
# replace TEXT-FILE: the config file replaced by a rename, as editors do
replace() {
	cmark
	cp "$1" "$dir/conf/config.new"
	mv "$dir/conf/config.new" "$dir/conf/config.yaml"
}
printf 'rules:\n  gpu-visibility:\n    mode: [mutate\n' >"$dir/c1"
replace "$dir/c1"
cfault "with broken YAML"
printf 'rules:\n  gpu-visibility:\n    mode: loud\n' >"$dir/c2"
replace "$dir/c2"
cfault "with a bad mode"
printf 'rulez:\n  gpu-visibility:\n    mode: warn\n' >"$dir/c3"
replace "$dir/c3"
cfault "with an unknown key"
head -c 3000 /dev/urandom >"$dir/c4"
replace "$dir/c4"
cfault "with random bytes"
{ printf 'rules:\n  gpu-visibility:\n    mode: warn\n# '; head -c 5000000 /dev/zero | tr '\0' x; echo; } >"$dir/c5"
replace "$dir/c5"
cfault "of 5 MB"
printf 'a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\nrules: *f\n' >"$dir/c6"
replace "$dir/c6"
cfault "with an alias bomb"
cmark
rm "$dir/conf/config.yaml"
cfault "deleted"
cmark
mkdir "$dir/conf/config.yaml"
cfault "replaced by a directory"
rmdir "$dir/conf/config.yaml"
kill -HUP "$main_pid"
sleep 0.5
check "config: SIGHUP while the file is missing: the config in use stays in force" \
	[ "$(visibility)" = mutate ]
printf 'rules:\n  gpu-visibility:\n    mode: warn\n' >"$dir/c7"
replace "$dir/c7"
check "config: a good config again: reloaded" wait_count main '"msg":"config reloaded"' 1
check "config: the new config is in force (gpu-visibility only warns)" [ "$(visibility)" = warn ]
loop_stop config "config faults: requests all through them"
kill -0 "$main_pid" 2>/dev/null && pass "the server survived every fault" ||
	fail "the server died"

# ------------------------------------------------------------------
# SIGTERM under load

review slow "$data/legacy-pod.json" >"$dir/slow.json"
head -c 150000 /dev/zero | tr '\0' ' ' >>"$dir/slow.json"
have_wrk=0
command -v wrk >/dev/null 2>&1 && have_wrk=1
if [ "$have_wrk" = 1 ]; then
	GPUMEND_BODY="$dir/good.json" wrk -t 2 -c 16 -d "$(ms 4)s" --timeout 5s \
		-s "$hostile/post.lua" "$main_url" >"$dir/wrk.out" 2>&1 &
	wrk_pid=$!
	bg_pids="$bg_pids $wrk_pid"
fi
# three slow uploads (about 2 s each at 75 KB/s), and a loop of quick ones
i=1
while [ $i -le 3 ]; do
	curl -sS --cacert "$dir/bundle.crt" -H 'Content-Type: application/json' \
		--limit-rate 75k --data-binary @"$dir/slow.json" -o "$dir/slow$i.out" \
		-w '%{http_code}' --max-time 30 "$main_url/mutate" >"$dir/slow$i.code" 2>/dev/null &
	eval "slow_pid_$i=\$!"
	i=$((i + 1))
done
loop_start term
sleep 1
t_term=$(now_ms)
kill -TERM "$main_pid"
check "SIGTERM: draining logged" wait_count main '"msg":"draining"' 1
code=$(curl -sS --cacert "$dir/bundle.crt" --max-time 2 -o /dev/null -w '%{http_code}' \
	"$main_url/healthz" 2>/dev/null)
check "SIGTERM: a new connection is refused ($code)" [ "$code" = 000 ]
webhook_wait "$main_pid"
status=$webhook_status
t_exit=$(($(now_ms) - t_term))
check "SIGTERM: exit 0 ($status) in $t_exit ms, once the uploads in flight are done (at most $(ms 5000) ms)" \
	[ "$status" = 0 -a "$t_exit" -le "$(ms 5000)" ]
i=1
while [ $i -le 3 ]; do
	eval "wait \$slow_pid_$i"
	check "SIGTERM: slow upload $i in flight completes with a whole answer" \
		sh -c "[ \"\$(cat '$dir/slow$i.code')\" = 200 ] &&
		jq -e '.response.uid == \"slow\" and .response.allowed' '$dir/slow$i.out' >/dev/null 2>&1"
	i=$((i + 1))
done
touch "$dir/term.stop"
eval "wait \$loop_pid_term"
answered=$(grep -c '^200$' "$dir/term.codes")
errors=$(grep -v '^200$' "$dir/term.codes" | grep -vc '^000$')
check "SIGTERM: the request loop got $answered answers, all 200, then refusals (no error status)" \
	[ "$answered" -gt 0 -a "$errors" = 0 ]
if [ "$have_wrk" = 1 ]; then
	wait "$wrk_pid"
	statuses=$(grep '^statuses' "$dir/wrk.out")
	check "SIGTERM: wrk (16 kept-alive connections) got only 200s: $statuses" \
		awk '/^statuses/ { n = NF; for (i = 2; i <= NF; i++) if ($i !~ /^200=/) bad = 1 }
			END { exit !(n >= 2 && !bad) }' "$dir/wrk.out"
else
	skip "SIGTERM: wrk (16 kept-alive connections) gets only 200s" \
		"wrk not installed (make test installs it)"
fi
check "SIGTERM: stopped logged" grep -q '"msg":"stopped"' "$dir/main.log"

# a stalled upload: the drain timeout bounds the wait
if cc -O2 -o "$dir/tls_client" "$hostile/tls_client.c" \
	$(pkg-config --cflags --libs openssl) 2>"$dir/cc.err"; then
	# SIGTERM while 8 clients send one request per connection, over and
	# over: every request written whole must be answered (a connection
	# accepted just before may hold a request not read yet); only new
	# connections may be refused
	len=$(wc -c <"$dir/good.json")
	printf 'POST /mutate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %s\r\n\r\n' \
		"$len" >"$dir/storm.req"
	cat "$dir/good.json" >>"$dir/storm.req"
	runs=0 sent=0 answered=0 lost=0 bad_exit=0 bad_status=""
	: >"$dir/storm-bad.log"
	while [ $runs -lt 20 ]; do
		runs=$((runs + 1))
		webhook_start storm --tls-cert "$dir/a/tls.crt" --tls-key "$dir/a/tls.key" ||
			break
		"$dir/tls_client" storm "$webhook_port" "$dir/storm.req" $((10 * SLOW)) \
			--workers 8 >"$dir/storm.out" &
		storm_pid=$!
		bg_pids="$bg_pids $storm_pid"
		# SIGTERM after 0.2 to 0.6 s of requests
		sleep "0.$((runs % 5 + 2))"
		if ! webhook_stop; then
			bad_exit=$((bad_exit + 1)) bad_status="$bad_status $webhook_status"
			{ echo "run $runs: exit $webhook_status"; tail -n 5 "$webhook_log"; } >>"$dir/storm-bad.log"
		fi
		wait "$storm_pid"
		# sent S answered A lost L refused R
		set -- $(cat "$dir/storm.out")
		sent=$((sent + ${2:-0})) answered=$((answered + ${4:-0})) lost=$((lost + ${6:-1}))
	done
	_what="SIGTERM with one connection per request, $runs runs: $sent requests sent whole, $answered answered, $lost lost, $bad_exit runs not exiting 0${bad_status:+ (exit$bad_status)}"
	if [ "$runs" = 20 -a "$answered" -gt 0 -a "$lost" = 0 -a "$answered" = "$sent" -a "$bad_exit" = 0 ]; then
		pass "$_what"
	else
		fail "$_what"
		sed 's/^/    /' "$dir/storm-bad.log"
	fi

	webhook_start stall --tls-cert "$dir/a/tls.crt" --tls-key "$dir/a/tls.key" \
		--drain-timeout 2 --connection-timeout 60
	printf 'POST /mutate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"a":' \
		>"$dir/stall"
	"$dir/tls_client" send "$webhook_port" "$dir/stall" --timeout-ms 10000 >/dev/null &
	bg_pids="$bg_pids $!"
	sleep 0.5
	t_term=$(now_ms)
	webhook_stop
	status=$webhook_status
	t_exit=$(($(now_ms) - t_term))
	check "SIGTERM with an upload stalled: exit 0 ($status) after the 2 s drain timeout ($t_exit ms)" \
		[ "$status" = 0 -a "$t_exit" -ge 1800 -a "$t_exit" -le "$(ms 4000)" ]
	check "SIGTERM with an upload stalled: the abandoned request logged" \
		grep -q 'abandoned' "$dir/stall.log"
else
	fail "SIGTERM with an upload stalled: cannot build tests/hostile/tls_client.c"
	sed 's/^/    /' "$dir/cc.err"
fi

# ------------------------------------------------------------------
# Client certificates and key permissions

check "--client-ca: in gpumend-webhook --help" \
	sh -c "'$GPUMEND_WEBHOOK' --help 2>/dev/null | grep -q -- '--client-ca'"

# a client CA, a client certificate it signed, and one signed by another
mkclient() {
	_d="$dir/$1"
	mkdir -p "$_d"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj "/CN=$1-ca" -keyout "$_d/ca.key" -out "$_d/ca.crt" >/dev/null 2>&1 &&
	mkleaf "$_d" client 'extendedKeyUsage=clientAuth'
}
# mkleaf DIR NAME [EXTENSION...]: DIR/NAME.crt and .key, signed by the CA
# in DIR, with these extensions besides keyUsage
mkleaf() {
	_d=$1 _n=$2
	shift 2
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-subj "/CN=kube-apiserver" -keyout "$_d/$_n.key" -out "$_d/$_n.csr" \
		>/dev/null 2>&1 &&
	printf '%s\n' keyUsage=digitalSignature "$@" >"$_d/$_n.ext" &&
	openssl x509 -req -in "$_d/$_n.csr" -CA "$_d/ca.crt" -CAkey "$_d/ca.key" \
		-CAcreateserial -days 2 -extfile "$_d/$_n.ext" -out "$_d/$_n.crt" >/dev/null 2>&1
}
# of the client CA: one for server authentication only, one that says
# nothing of its use (RFC 5280: not restricted), one for both
if ! mkclient client || ! mkclient rogue ||
   ! mkleaf "$dir/client" server-only 'extendedKeyUsage=serverAuth' ||
   ! mkleaf "$dir/client" no-eku ||
   ! mkleaf "$dir/client" both 'extendedKeyUsage=serverAuth,clientAuth'; then
	fail "cannot make client certificates with openssl"
	finish faults
	exit 1
fi
# the client CAs also hold the CA of the serving pair (one CA for both,
# as a small cluster may have): its serving certificate is then signed by
# a trusted CA, but not for client authentication
cat "$dir/client/ca.crt" "$dir/a/ca.crt" >"$dir/client-cas.crt"
if webhook_start mtls --tls-cert "$dir/a/tls.crt" --tls-key "$dir/a/tls.key" \
	--client-ca "$dir/client-cas.crt"; then
	pass "--client-ca: the webhook started"
	code=$(post "$webhook_url" "$dir/good.json" "$dir/mtls.out" \
		--cert "$dir/client/client.crt" --key "$dir/client/client.key")
	check "--client-ca: a client certificate of that CA: 200 ($code)" \
		sh -c "[ '$code' = 200 ] && jq -e '.response.uid == \"good\"' '$dir/mtls.out' >/dev/null"
	code=$(post "$webhook_url" "$dir/good.json" "$dir/mtls.out")
	check "--client-ca: no client certificate: refused ($code: 403 or no TLS)" \
		sh -c "[ '$code' = 403 ] || [ '$code' = 000 ]"
	code=$(post "$webhook_url" "$dir/good.json" "$dir/mtls.out" \
		--cert "$dir/rogue/client.crt" --key "$dir/rogue/client.key")
	check "--client-ca: a certificate of another CA: refused ($code)" \
		sh -c "[ '$code' = 403 ] || [ '$code' = 000 ]"
	code=$(post "$webhook_url" "$dir/good.json" "$dir/mtls.out" \
		--cert "$dir/a/tls.crt" --key "$dir/a/tls.key")
	check "--client-ca: the server's own certificate (a client CA, server auth only): 403 ($code)" \
		[ "$code" = 403 ]
	for leaf in server-only:403 no-eku:200 both:200; do
		code=$(post "$webhook_url" "$dir/good.json" "$dir/mtls.out" \
			--cert "$dir/client/${leaf%:*}.crt" --key "$dir/client/${leaf%:*}.key")
		check "--client-ca: a certificate of that CA, extended key usage ${leaf%:*}: ${leaf#*:} ($code)" \
			[ "$code" = "${leaf#*:}" ]
	done
	code=$(curl -sS --cacert "$dir/bundle.crt" -o /dev/null -w '%{http_code}' \
		"$webhook_url/healthz" 2>/dev/null)
	check "--client-ca: /healthz needs no client certificate (kubelet probes): $code" \
		[ "$code" = 200 ]
	webhook_stop
else
	fail "--client-ca: the webhook does not start"
	sed 's/^/    /' "$dir/mtls.log"
fi
"$GPUMEND_WEBHOOK" --listen 127.0.0.1:0 --tls-cert "$dir/a/tls.crt" \
	--tls-key "$dir/a/tls.key" --client-ca "$dir/garbage.crt" >/dev/null 2>"$dir/err"
status=$?
check "--client-ca of random bytes: refused at start-up, saying why (exit $status)" \
	sh -c "[ $status != 0 ] && grep -qi 'client CA' '$dir/err'"

# key permissions
cp -p "$dir/a/tls.key" "$dir/open.key"
chmod 644 "$dir/open.key"
if webhook_start open --tls-cert "$dir/a/tls.crt" --tls-key "$dir/open.key"; then
	webhook_stop
	status="0, after serving"
else
	status=$webhook_status
fi
check "a world-readable key (0644): refused at start-up (exit $status), saying why" \
	sh -c "{ [ '$status' = 1 ] || [ '$status' = 2 ]; } && grep -q 'readable' '$dir/open.log'"
chmod 640 "$dir/open.key"
if webhook_start perm --tls-cert "$dir/a/tls.crt" --tls-key "$dir/open.key"; then
	pass "a key readable by its group only (0640, a Secret's defaultMode 0440 style): accepted"
	webhook_stop
else
	fail "a key readable by its group only (0640): refused"
	sed 's/^/    /' "$dir/perm.log"
fi
# on reload: a world-readable key is refused and the pair in use kept
mkdir -p "$dir/pm/..v1"
cp -p "$dir/a/tls.crt" "$dir/a/tls.key" "$dir/pm/..v1/"
ln -s ..v1 "$dir/pm/..data"
ln -s ..data/tls.crt "$dir/pm/tls.crt"
ln -s ..data/tls.key "$dir/pm/tls.key"
if webhook_start reperm --tls-cert "$dir/pm/tls.crt" --tls-key "$dir/pm/tls.key"; then
	mkdir "$dir/pm/..v2"
	cp -p "$dir/b/tls.crt" "$dir/b/tls.key" "$dir/pm/..v2/"
	chmod 644 "$dir/pm/..v2/tls.key"
	ln -s ..v2 "$dir/pm/..data_tmp"
	mv -T "$dir/pm/..data_tmp" "$dir/pm/..data"
	check "a world-readable key on reload: refused and logged" \
		wait_count reperm 'certificate reload refused.*readable' 1
	check "a world-readable key on reload: the pair in use is still served" \
		[ "$(served "$webhook_port")" = "$fp_a" ]
	webhook_stop
else
	fail "the webhook does not start on a kubelet-style mount"
fi

finish faults
