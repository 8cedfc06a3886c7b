# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/lib.sh - shared by the shell test suites (sourced, POSIX sh).
#
# A suite sources this file, calls pass/fail (or check) once per test, or
# skip for a check it cannot run here (and says why), and ends with
# `finish NAME`, which prints "NAME: N passed, N failed, N skipped" and
# sets the exit status. tests/run.sh adds the suites up and lists the
# skips; under CI=true a skip fails the run unless tests/skips.allow
# allows it. Binaries are in $GPUMEND_BUILD (default: build); `tool`
# gives the kubectl and kustomize to use.
#
# Also here: scratch directories, clean-up at exit (at_exit), the raw
# HTTPS client (tls_client_build), and the one way to run gpumend-webhook
# in a test (webhook_pair, webhook_start, webhook_stop).

: "${GPUMEND_BUILD:=build}"
case "$GPUMEND_BUILD" in /*) ;; *) GPUMEND_BUILD="$(pwd)/$GPUMEND_BUILD" ;; esac
GPUMEND="$GPUMEND_BUILD/gpumend"
GPUMEND_WEBHOOK="$GPUMEND_BUILD/gpumend-webhook"
# tests/: the script's own folder when it is tests/ (tests/soak.sh), else
# its parent (tests/suites/*.sh, tests/e2e/run.sh, tests/image/test.sh...)
TESTS_DIR="$(cd "$(dirname "$0")" && pwd)"
[ -f "$TESTS_DIR/lib.sh" ] && [ -d "$TESTS_DIR/suites" ] ||
	TESTS_DIR="$(cd "$TESTS_DIR/.." && pwd)"
REPO_DIR="$(cd "$TESTS_DIR/.." && pwd)"
export GPUMEND_BUILD GPUMEND GPUMEND_WEBHOOK TESTS_DIR REPO_DIR

_passed=0
_failed=0
n_skipped=0

pass() { _passed=$((_passed + 1)); echo "ok - $*"; }
fail() { _failed=$((_failed + 1)); echo "not ok - $*"; }

# skip NAME REASON: the check NAME did not run, for REASON. Never for a
# tool the tests can get themselves (tool, the Makefile's test-deps): a
# missing one is a failure.
skip() {
	n_skipped=$((n_skipped + 1))
	echo "skip - $1 # $2"
}

# check "description" command...: passes when the command exits 0.
check() {
	_desc=$1; shift
	if "$@"; then pass "$_desc"; else fail "$_desc"; fi
}

# Scratch space: every directory scratch() makes lives under one root that
# the suite's own shell removes at exit (scratch may run in a subshell, as
# in tmp=$(scratch), so the cleanup cannot be set up there).
_scratch_root=$(mktemp -d "${TMPDIR:-/tmp}/gpumend-test.XXXXXX")
scratch() {
	_scratch=$(mktemp -d "$_scratch_root/s.XXXXXX")
	echo "$_scratch"
}

# at_exit COMMAND: runs COMMAND (eval'd) when the suite exits, before the
# webhooks still running are killed and the scratch space removed. Ctrl-C
# and SIGTERM exit through it too.
_at_exit=""
at_exit() {
	_at_exit="$_at_exit
$*"
}
_lib_exit() {
	eval "$_at_exit"
	for _p in $_webhook_pids; do
		kill -KILL "$_p" 2>/dev/null || :
	done
	rm -rf "$_scratch_root"
}
trap _lib_exit EXIT
trap 'exit 130' INT TERM HUP

# cases FILE: the records of a data file of test cases (as
# tests/hostile/*.tsv), one per line, fields separated by tabs: lines
# starting with # and blank lines are dropped; a line ending in a
# backslash goes on on the next (the backslash, the newline and the next
# line's leading white space become one space, or nothing after a tab, so
# that a field can start on the next line).
cases() {
	awk '
		cont == "" && /^[ \t]*(#|$)/ { next }
		{
			line = $0
			if (cont != "") {
				sub(/^[ \t]+/, "", line)
				line = (cont ~ /\t$/ ? cont : cont " ") line
			}
			if (line ~ /\\$/) {
				cont = substr(line, 1, length(line) - 1)
				next
			}
			cont = ""
			print line
		}
		END { if (cont != "") print cont }' "$1"
}

finish() {
	echo "$1: $_passed passed, $_failed failed, $n_skipped skipped"
	[ "$_failed" -eq 0 ]
}

# registration_is DESC OBJECTS NAME OPTION...: the MutatingWebhookConfiguration
# among OBJECTS (a file of JSON values, one a line) is what `gpumend
# webhook-config OPTION... -o json` prints, named NAME; labels,
# annotations and caBundles aside (a chart or an overlay adds them).
# Passes or fails DESC, showing the difference.
registration_is() {
	_rdesc=$1 _robjects=$2 _rname=$3
	shift 3
	scratch >/dev/null
	jq -S 'select(.kind == "MutatingWebhookConfiguration") | del(.metadata.labels,
		.metadata.annotations, .webhooks[]?.clientConfig.caBundle)' "$_robjects" >"$_scratch/got"
	"$GPUMEND" webhook-config "$@" -o json 2>/dev/null | jq -S --arg name "$_rname" '
		.metadata.name = $name | del(.metadata.labels, .metadata.annotations,
		.webhooks[]?.clientConfig.caBundle)' >"$_scratch/want"
	if [ -s "$_scratch/got" ] && diff -u "$_scratch/want" "$_scratch/got" >"$_scratch/diff"; then
		pass "$_rdesc"
	else
		fail "$_rdesc"
		sed 's/^/    /' "$_scratch/diff" | head -n 40
	fi
}

# tool NAME: the path of NAME (kubectl, kustomize, celcheck, k8s-schemas,
# sarif-multitool) from the project's own set-up, tests/tools/get.sh,
# which fetches it once into ~/.cache/gpumend. Fails, saying why on
# stderr, when there is none.
tool() {
	sh "$TESTS_DIR/tools/get.sh" "$1"
}

# helm_template_build DIR: builds tests/helm-template (Go's text/template
# with sprig and Helm's functions: the tests' stand-in for `helm
# template`) into $GPUMEND_BUILD/helm-template when its source is newer,
# with Debian's golang-go, golang-github-masterminds-sprig-dev and
# golang-gopkg-yaml.v2-dev (the Makefile's test-deps); Go's messages in
# DIR/render.log. Sets RENDER to it; fails as go build does.
helm_template_build() {
	RENDER="$GPUMEND_BUILD/helm-template"
	_src="$REPO_DIR/tests/helm-template/main.go"
	[ -x "$RENDER" ] && [ ! "$_src" -nt "$RENDER" ] && return 0
	(cd "$REPO_DIR/tests/helm-template" &&
		GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$1/gocache" \
		GOFLAGS= CGO_ENABLED=0 go build -o "$RENDER" .) >"$1/render.log" 2>&1
}

# tls_client_build DIR: builds tests/hostile/tls_client.c, the raw HTTPS
# client of the webhook tests, into DIR/tls_client (cc and OpenSSL's
# headers); the compiler's messages in DIR/cc.err. Fails as cc does.
# flood_prefixes DIR: the files `tls_client hold --prefix NAME` sends
# before it stalls, for the floods of tests/hostile/webhook-floods.tsv
# (hostile_webhook.sh and tests/bench/floods.sh): half-head, a request line
# and half a header; big-head, a whole head announcing a body of 7 MiB
# (the default --max-body) and nothing of it; half-body, the same with
# 4 MiB of the body; body-start, a head announcing 2,000 bytes and 100 of
# them.
flood_prefixes() {
	_fh='POST /mutate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n'
	printf "${_fh}Content-Length: 2000\r\n\r\n" | head -c 60 >"$1/half-head"
	printf "${_fh}Content-Length: 7340032\r\n\r\n" >"$1/big-head"
	{ cat "$1/big-head"; head -c 4194304 /dev/zero | tr '\0' ' '; } >"$1/half-body"
	{ printf "${_fh}Content-Length: 2000\r\n\r\n"; head -c 100 /dev/zero | tr '\0' ' '; } \
		>"$1/body-start"
}

tls_client_build() {
	# shellcheck disable=SC2046
	cc -O2 -o "$1/tls_client" "$TESTS_DIR/hostile/tls_client.c" \
		$(pkg-config --cflags --libs openssl) 2>"$1/cc.err"
}

# ------------------------------------------------------------------
# gpumend-webhook
#
#   webhook_pair DIR [ARGS...]     certificates for it
#   webhook_start NAME [ARGS...]   start it, wait until it serves
#   webhook_stop [PID [SIGNAL]]    stop it, and judge its exit
#   webhook_wait PID               the same, once signalled
#   webhook_running PID            whether it still runs
#
# Settings (variables, all optional):
#   WEBHOOK_DIR    where NAME.log goes (default: the scratch root)
#   WEBHOOK_WRAP   a command the server runs under ("valgrind ...",
#                  "timeout -k 5 3600"), split on spaces
#   WEBHOOK_WAIT   seconds to wait for it to serve, and to exit once
#                  signalled (default 10 and 30, times $GPUMEND_SLOW)
#   WEBHOOK_LISTEN the --listen address (default 127.0.0.1:0, a port of
#                  its choosing); set but empty: no --listen at all (the
#                  address comes from GPUMEND_LISTEN)
# Every server started is killed at exit if still running. Servers start
# without a shutdown delay (GPUMEND_SHUTDOWN_DELAY=0, exported unless set):
# a SIGTERM drains at once, as the suites' drain tests expect;
# tests/suites/shutdown.sh tests the delay (--shutdown-delay, the default).

_webhook_pids=""
: "${GPUMEND_SHUTDOWN_DELAY=0}"
export GPUMEND_SHUTDOWN_DELAY

# _webhook_now: the seconds since boot, a clock that goes on when the
# wall clock is stepped (the waits below read it, not date).
_webhook_now() {
	_wu=$(cat /proc/uptime)
	echo "${_wu%%.*}"
}

# _webhook_slow: $GPUMEND_SLOW as a positive integer (default 1).
_webhook_slow() {
	_ws=${GPUMEND_SLOW:-1}
	case "$_ws" in *[!0-9]* | 0) _ws=1 ;; esac
	echo "$_ws"
}

# webhook_pair DIR [ARGS...]: a CA and a serving pair (tls.crt, tls.key,
# ca.crt, ca.key) for IP 127.0.0.1 in DIR, by `gpumend certs` with ARGS
# added (--key-type rsa, --reuse-ca --force...). Its stderr is kept in
# DIR/certs.err; fails as it does.
webhook_pair() {
	_pd=$1
	shift
	mkdir -p "$_pd" || return 1
	"$GPUMEND" certs --service gpumend --namespace gpumend --out "$_pd" \
		--ip 127.0.0.1 "$@" >/dev/null 2>"$_pd/certs.err"
}

# webhook_start NAME [ARGS...]: starts $GPUMEND_WEBHOOK with ARGS (after
# --listen 127.0.0.1:0), its stderr in $WEBHOOK_DIR/NAME.log, and waits
# until it listens (its port from the "started" log line, or, when the
# log level hides that line, from its listening socket) and GET /readyz
# answers 200. Sets webhook_pid, webhook_port, webhook_url
# (https://127.0.0.1:PORT) and webhook_log. Fails when the server exits
# first or does not get ready in time (it is then killed), with its exit
# status in webhook_status; the log says why.
webhook_start() {
	_wn=$1
	shift
	webhook_log="${WEBHOOK_DIR:-$_scratch_root}/$_wn.log"
	webhook_port=""
	webhook_url=""
	: >"$webhook_log"
	if [ -n "${WEBHOOK_LISTEN-127.0.0.1:0}" ]; then
		set -- --listen "${WEBHOOK_LISTEN-127.0.0.1:0}" "$@"
	fi
	# appended: a caller may empty the log while the server runs
	# shellcheck disable=SC2086
	${WEBHOOK_WRAP:-} "$GPUMEND_WEBHOOK" "$@" 2>>"$webhook_log" &
	webhook_pid=$!
	_webhook_pids="$_webhook_pids $webhook_pid"
	_wend=$(($(_webhook_now) + ${WEBHOOK_WAIT:-10} * $(_webhook_slow)))
	while :; do
		if [ -z "$webhook_port" ]; then
			webhook_port=$(sed -n 's/.*"msg":"started".*"listen":"127\.0\.0\.1:\([0-9]*\)".*/\1/p' \
				"$webhook_log" | head -n 1)
			[ -n "$webhook_port" ] || webhook_port=$(_webhook_listening "$webhook_pid")
		fi
		if [ -n "$webhook_port" ] && [ "$(curl -sk --max-time 5 -o /dev/null \
			-w '%{http_code}' "https://127.0.0.1:$webhook_port/readyz" 2>/dev/null)" = 200 ]; then
			webhook_url="https://127.0.0.1:$webhook_port"
			return 0
		fi
		if ! webhook_running "$webhook_pid"; then
			wait "$webhook_pid" 2>/dev/null
			webhook_status=$?
			_webhook_forget "$webhook_pid"
			echo "webhook_start: $_wn exited ($webhook_status) before serving" >>"$webhook_log"
			return 1
		fi
		if [ "$(_webhook_now)" -ge "$_wend" ]; then
			kill -KILL "$webhook_pid" 2>/dev/null
			wait "$webhook_pid" 2>/dev/null
			webhook_status=$?
			_webhook_forget "$webhook_pid"
			echo "webhook_start: $_wn not serving after $((${WEBHOOK_WAIT:-10} * $(_webhook_slow))) s (port '${webhook_port}'), killed" >>"$webhook_log"
			return 1
		fi
		sleep 0.05
	done
}

# webhook_stop [PID [SIGNAL]]: sends SIGNAL (default TERM) to the server
# (default: the last one started) and waits for it (webhook_wait).
webhook_stop() {
	_sp=${1:-${webhook_pid:-}}
	kill -"${2:-TERM}" "$_sp" 2>/dev/null
	webhook_wait "$_sp"
}

# webhook_wait PID: waits for a server already signalled to exit (at most
# WEBHOOK_WAIT seconds, default 30, scaled; then it is killed). Sets
# webhook_status to its exit status; succeeds when that is 0.
webhook_wait() {
	_sp=$1
	_wend=$(($(_webhook_now) + ${WEBHOOK_WAIT:-30} * $(_webhook_slow)))
	while webhook_running "$_sp" && [ "$(_webhook_now)" -lt "$_wend" ]; do
		sleep 0.02
	done
	_killed=""
	if webhook_running "$_sp"; then
		# what each of its threads was doing, for the failure's report
		_threads=$(for _t in /proc/"$_sp"/task/*; do
			printf '%s:%s:%s ' "${_t##*/}" \
				"$(sed -n 's/^[0-9]* (\(.*\)) \([A-Z]\).*/\1 \2/p' "$_t/stat" 2>/dev/null)" \
				"$(cat "$_t/wchan" 2>/dev/null)"
		done)
		kill -KILL "$_sp" 2>/dev/null
		_killed=" (killed after $((${WEBHOOK_WAIT:-30} * $(_webhook_slow))) s; threads: $_threads)"
	fi
	wait "$_sp" 2>/dev/null
	webhook_status=$?
	_webhook_forget "$_sp"
	# a failure says why, with the end of the server's log
	if [ "$webhook_status" != 0 ]; then
		echo "# webhook_wait: process $_sp exited with $webhook_status$_killed; the end of ${webhook_log:-its log}:" >&2
		[ -n "${webhook_log:-}" ] && tail -n 15 "$webhook_log" | sed 's/^/#   /' >&2
	fi
	[ "$webhook_status" = 0 ]
}

# webhook_running PID: the process exists and has not exited (a child
# that has exited stays a zombie until waited for, and kill -0 still
# reaches a zombie).
webhook_running() {
	case "$(sed -n 's/^[0-9]* (.*) \([A-Z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null)" in
	'' | Z | X) return 1 ;;
	esac
	return 0
}

_webhook_forget() {
	_wl=""
	for _p in $_webhook_pids; do
		[ "$_p" = "$1" ] || _wl="$_wl $_p"
	done
	_webhook_pids=$_wl
}

# _webhook_listening PID: the port of the process's listening TCP socket
# on 127.0.0.1, from /proc (nothing when it has none yet).
_webhook_listening() {
	_inodes=$(ls -l "/proc/$1/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\].*/\1/p' | tr '\n' ' ')
	[ -n "$_inodes" ] || return 0
	awk -v inodes=" $_inodes" '
		$4 == "0A" && index(inodes, " " $10 " ") && $2 ~ /^0100007F:/ {
			split($2, a, ":"); print a[2]; exit
		}' /proc/net/tcp | {
		read -r _hex || exit 0
		echo $((0x$_hex))
	}
}
