#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/valgrind.sh - valgrind memcheck of both binaries (not part of
# `make test`; a minute or two):
#   - gpumend over every golden case: migrate (stdout, --diff,
#     --json-patch, -i on a copy), lint (text and SARIF), each case with
#     its config; review of AdmissionReviews;
#   - gpumend-webhook under a short load: good reviews (v1 and v1beta1),
#     bad requests, an oversized body, idle connections closed by the
#     timeout, a certificate and a config reload, then SIGTERM.
# Each run must end with no error (invalid reads or writes, uses of
# uninitialised values, bad frees) and nothing definitely or indirectly
# lost. Prints a summary per run and ends with "valgrind: N passed,
# N failed".
#
# usage: sh tests/valgrind.sh [BUILD]   (default: build)
. "$(dirname "$0")/lib.sh"

if [ -n "${1:-}" ]; then
	GPUMEND_BUILD=$1
	case "$GPUMEND_BUILD" in /*) ;; *) GPUMEND_BUILD="$(pwd)/$GPUMEND_BUILD" ;; esac
	GPUMEND="$GPUMEND_BUILD/gpumend"
	GPUMEND_WEBHOOK="$GPUMEND_BUILD/gpumend-webhook"
fi
for tool in valgrind curl jq; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "valgrind.sh: '$tool' not found (apt-get install $tool)" >&2
		exit 2
	fi
done

# jansson on plain malloc, so that memcheck sees every json value
export GPUMEND_NO_ARENA=1
dir=$(scratch)
golden="$TESTS_DIR/golden"
VG="valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect
	--errors-for-leak-kinds=definite,indirect --error-exitcode=99 --num-callers=30
	--track-fds=no"
runs=0

# vg NAME COMMAND...: runs COMMAND under memcheck in the current
# directory, judges the log.
vg() {
	_name=$1
	shift
	runs=$((runs + 1))
	_log="$dir/vg.$runs.log"
	# shellcheck disable=SC2086
	$VG --log-file="$_log" "$@" >"$dir/out" 2>"$dir/err" </dev/null
	_rc=$?
	judge "$_name" "$_log" "$_rc"
}

# judge NAME LOG RC: no memcheck error and no leak in LOG (RC 99 is
# valgrind's own verdict).
judge() {
	_errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$2" | tail -n 1)
	_definite=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$2" | tail -n 1 | tr -d ,)
	_indirect=$(sed -n 's/.*indirectly lost: \([0-9,]*\) bytes.*/\1/p' "$2" | tail -n 1 | tr -d ,)
	if [ "$3" != 99 ] && [ "${_errors:-x}" = 0 ] && [ "${_definite:-0}" = 0 ] &&
	   [ "${_indirect:-0}" = 0 ]; then
		pass "$1: 0 errors, definitely lost: ${_definite:-0}, indirectly lost: ${_indirect:-0}"
	else
		fail "$1: ${_errors:-?} errors, definitely lost: ${_definite:-?}, indirectly lost: ${_indirect:-?} (exit $3)"
		grep -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|[0-9,]+ bytes in)' "$2" |
			head -n 10 | sed 's/^/    /'
		grep -A 12 -E '^==[0-9]+== (Invalid|Conditional|Use of|[0-9,]+ bytes in .*definitely)' "$2" |
			head -n 40 | sed 's/^/    /'
	fi
}

# ------------------------------------------------------------------
# The CLI over the golden cases

plain=""
for case_dir in "$golden"/*/; do
	[ -f "$case_dir/config.yaml" ] && continue
	for f in "$case_dir"input.*; do
		[ -f "$f" ] && plain="$plain $f"
	done
done
# shellcheck disable=SC2086
vg "migrate: the golden cases without a config, all at once" "$GPUMEND" migrate $plain
# shellcheck disable=SC2086
vg "migrate --diff: the same" "$GPUMEND" migrate --diff $plain
# shellcheck disable=SC2086
vg "migrate --json-patch: the same" "$GPUMEND" migrate --json-patch $plain
# shellcheck disable=SC2086
vg "lint: the same" "$GPUMEND" lint $plain
# shellcheck disable=SC2086
vg "lint --format sarif: the same" "$GPUMEND" lint --format sarif $plain
mkdir -p "$dir/copy"
cp -R "$golden" "$dir/copy/"
vg "migrate -i: a copy of every golden case" "$GPUMEND" migrate -i "$dir/copy"
for case_dir in "$golden"/*/; do
	[ -f "$case_dir/config.yaml" ] || continue
	name=$(basename "$case_dir")
	input=$(ls "$case_dir" | grep -E '^input\.(yaml|yml|json)$' | head -n 1)
	here=$(pwd)
	cd "$case_dir" || continue
	vg "migrate $name (with its config)" "$GPUMEND" migrate -c config.yaml "$input"
	vg "lint $name (with its config)" "$GPUMEND" lint --format json -c config.yaml "$input"
	cd "$here" || exit 2
done
# hostile inputs: refused, with nothing lost or leaked on the way
mkdir -p "$dir/hostile"
cp "$golden/error-billion-laughs/input.yaml" "$dir/hostile/laughs.yaml"
{ head -c 10000 /dev/zero | tr '\0' '['; head -c 10000 /dev/zero | tr '\0' ']'; } \
	>"$dir/hostile/deep.yaml"
printf 'kind: Pod\nmetadata:\n  name: a\377b\n' >"$dir/hostile/utf8.yaml"
printf 'kind: Pod\nspec:\n\tcontainers: []\n' >"$dir/hostile/tab.yaml"
{ printf 'kind: Pod\nmetadata:\n  name: '; head -c 9000000 /dev/zero | tr '\0' a; echo; } \
	>"$dir/hostile/big.yaml"
printf 'kind: Pod\nmetadata: {name: a}\n---\n[unclosed\n' >"$dir/hostile/second.yaml"
vg "migrate -i of hostile files (alias bomb, nesting, bad UTF-8, tab, 9 MB scalar)" \
	"$GPUMEND" migrate -i "$dir/hostile"
vg "lint of the same" "$GPUMEND" lint --format json "$dir/hostile"
for f in "$TESTS_DIR"/webhook/admission-review.json; do
	vg "review $(basename "$f")" "$GPUMEND" review "$f"
done
echo '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"x","operation":"CREATE","object":{"spec":{"containers":"x"}}}}' \
	>"$dir/odd.json"
vg "review of an odd object" "$GPUMEND" review "$dir/odd.json"
vg "config and rules" sh -c "'$GPUMEND' config >/dev/null && '$GPUMEND' rules >/dev/null"
vg "certs" "$GPUMEND" certs --service s --namespace n --out "$dir/vgcerts" --ip 127.0.0.1

# ------------------------------------------------------------------
# The webhook under a short load

if ! webhook_pair "$dir/certs" || ! webhook_pair "$dir/certs2"; then
	fail "cannot make certificates"
	cat "$dir/certs/certs.err" "$dir/certs2/certs.err" 2>/dev/null | sed 's/^/    /'
	finish valgrind
	exit 1
fi
mkdir -p "$dir/live"
cp -p "$dir/certs/tls.crt" "$dir/certs/tls.key" "$dir/live/"
printf 'rules:\n  gpu-visibility:\n    mode: mutate\n' >"$dir/config.yaml"
runs=$((runs + 1))
wlog="$dir/vg.$runs.log"
WEBHOOK_DIR=$dir
WEBHOOK_WRAP="$VG --log-file=$wlog"
WEBHOOK_WAIT=60
if ! webhook_start webhook --tls-cert "$dir/live/tls.crt" --tls-key "$dir/live/tls.key" \
	-c "$dir/config.yaml" --connection-timeout 2 --max-body 1Mi --threads 2; then
	fail "the webhook does not start under valgrind"
	tail -n 20 "$wlog" "$dir/webhook.log" | sed 's/^/    /'
	finish valgrind
	exit 1
fi
wpid=$webhook_pid
port=$webhook_port
url=$webhook_url
post() {
	curl -sS -k -H 'Content-Type: application/json' --data-binary "@$1" -o /dev/null \
		-w '%{http_code}\n' --max-time 60 "$url/mutate" 2>/dev/null
}
: >"$dir/codes"
: >"$dir/bad.codes"
# reviews of the example pod, both API versions, as a short load
for v in v1 v1beta1; do
	jq -c --arg v "admission.k8s.io/$v" '.apiVersion = $v' \
		"$TESTS_DIR/webhook/admission-review.json" >"$dir/review-$v.json"
done
i=0
while [ $i -lt 40 ]; do
	post "$dir/review-v1.json" >>"$dir/codes"
	post "$dir/review-v1beta1.json" >>"$dir/codes"
	i=$((i + 1))
done
printf '{"apiVersion": "admission.k8s.io/v1", "kind": ' >"$dir/bad1.json"
echo '["x"]' >"$dir/bad2.json"
jq -c '.request.object.spec.containers = {}' "$TESTS_DIR/webhook/admission-review.json" >"$dir/bad3.json"
jq -c '.request.operation = 7' "$TESTS_DIR/webhook/admission-review.json" >"$dir/bad4.json"
{ head -c 1000 /dev/zero | tr '\0' '['; head -c 1000 /dev/zero | tr '\0' ']'; } >"$dir/bad5.json"
head -c 1100000 /dev/zero | tr '\0' ' ' >"$dir/big.json"
for f in bad1 bad2 bad3 bad4 bad5 big; do
	post "$dir/$f.json" >>"$dir/bad.codes"
done
for p in metrics healthz readyz nope; do
	curl -sS -k -o /dev/null "$url/$p" 2>/dev/null
done
# idle connections the timeout closes
i=0
while [ $i -lt 5 ]; do
	(echo | openssl s_client -connect "127.0.0.1:$port" >/dev/null 2>&1; sleep 3) &
	i=$((i + 1))
done
# a certificate reload, a refused one, a config reload
cp -p "$dir/certs2/tls.crt" "$dir/certs2/tls.key" "$dir/live/"
sleep 2
head -c 500 /dev/urandom >"$dir/live/tls.crt"
sleep 2
printf 'rules:\n  gpu-visibility:\n    mode: warn\n' >"$dir/config.yaml"
sleep 2
kill -HUP "$wpid"
sleep 1
i=0
while [ $i -lt 10 ]; do
	post "$dir/review-v1.json" >>"$dir/codes"
	i=$((i + 1))
done
sleep 3
webhook_stop "$wpid"
rc=$webhook_status
good=$(grep -c '^200$' "$dir/codes")
total=$(grep -c . "$dir/codes")
check "webhook under valgrind: $good of $total reviews answered 200" [ "$good" = "$total" ]
check "webhook under valgrind: bad requests answered ($(tr '\n' ' ' <"$dir/bad.codes"))" \
	sh -c "! grep -q '^000$' '$dir/bad.codes'"
grep -q '"msg":"certificate reloaded"' "$dir/webhook.log" &&
	grep -q '"msg":"config reloaded"' "$dir/webhook.log" &&
	pass "webhook under valgrind: certificate and config reloaded" ||
	fail "webhook under valgrind: no reload seen"
judge "gpumend-webhook: short load, reloads, SIGTERM (exit $rc)" "$wlog" "$rc"
[ "$rc" = 0 ] || [ "$rc" = 99 ] || fail "gpumend-webhook under valgrind: exit $rc"

finish valgrind
