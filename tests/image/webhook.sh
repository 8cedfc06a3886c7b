#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/image/webhook.sh - gpumend-webhook run from the image as the
# Deployment runs it, for the tests (`make image-test`, and `make e2e` when
# the image exists):
#
#   tests/image/webhook.sh start DIR CERTDIR [ARG...]
#       Starts the webhook from $IMAGE (default gpumend:VERSION, the
#       manifest list: this machine's architecture; gpumend:VERSION-arm64
#       runs under qemu-aarch64-static, see tests/image/lib.sh) in the
#       background with `buildah run --isolation chroot` (no OCI runtime
#       needed; the host's network, so it listens on the host's 127.0.0.1),
#       as user and group 65532, the image's own directories mounted
#       read-only, CERTDIR (tls.crt and tls.key, which user 65532 must be
#       able to read) mounted read-only at /tls, as the Deployment mounts
#       its secret. ARGs go to the webhook after --listen 127.0.0.1:0 (a
#       later --listen wins), --tls-cert /tls/tls.crt and --tls-key
#       /tls/tls.key; `-c FILE` (or --config) mounts FILE's directory
#       read-only at /config and passes /config/NAME (FILE may change: it
#       is reloaded). No other argument is mapped to the container.
#       Waits until it listens (20 s at most), then prints its port.
#       DIR (made when missing) then holds: webhook.log (its stderr, the
#       JSON log), webhook.out (its stdout), port, pid (the webhook's own
#       PID on the host: SIGHUP reloads, SIGTERM drains), runner (the PID of
#       what waits for it) and, once it has exited, status (its exit
#       status). Exits 0 when it listens; 1 otherwise, the end of its log
#       on stderr. It is stopped after $GPUMEND_WEBHOOK_LIFETIME seconds
#       (default 3600) in any case.
#
#   tests/image/webhook.sh stop DIR [SECONDS]
#       SIGTERM to the webhook, which drains and exits; SIGKILL when it has
#       not exited after SECONDS (default 30). Removes its container and
#       exits with the webhook's exit status (0: a clean drain).
set -u
. "$(dirname "$0")/lib.sh"

: "${GPUMEND_WEBHOOK_LIFETIME:=3600}"

usage() {
	echo "usage: tests/image/webhook.sh start DIR CERTDIR [ARG...]" >&2
	echo "       tests/image/webhook.sh stop DIR [SECONDS]" >&2
	exit 2
}

# descendant PID NAME: the PID of a process named NAME below PID.
descendant() {
	# shellcheck disable=SC2046
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$1" -v name="$2" '
		{
			l = index($0, "(")
			r = length($0)
			while (r > l && substr($0, r, 1) != ")") r--
			pid = substr($0, 1, l - 2)
			split(substr($0, r + 2), f, " ")
			ppid[pid] = f[2]
			comm[pid] = substr($0, l + 1, r - l - 1)
		}
		END {
			for (p in comm) {
				if (comm[p] != name) continue
				for (q = ppid[p]; q != "" && q != 0 && q != root; q = ppid[q]) ;
				if (q == root) print p
			}
		}' | head -n 1
}

# wait_until SECONDS COMMAND...: polls COMMAND every 0.1 s.
wait_until() {
	_n=$(($1 * 10))
	shift
	while [ "$_n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		_n=$((_n - 1))
	done
	return 1
}

listening() {
	[ ! -f "$dir/status" ] || return 1
	port=$(sed -n 's/.*"msg":"started".*"listen":"[^"]*:\([0-9]*\)".*/\1/p' \
		"$dir/webhook.log" | head -n 1)
	pid=$(descendant "$runner" "$comm")
	[ -n "$port" ] && [ -n "$pid" ]
}

# map_config FILE: sets $config_dir (FILE's directory, mounted at
# /config) and $config_in (FILE's path in the container).
map_config() {
	[ -f "$1" ] || image_die "no config file '$1'"
	config_dir=$(cd "$(dirname "$1")" && pwd)
	config_in="/config/${1##*/}"
}

start() {
	[ $# -ge 2 ] || usage
	dir=$1 certs=$2
	shift 2
	for f in tls.crt tls.key; do
		[ -f "$certs/$f" ] || image_die "no '$f' in '$certs'"
	done
	image_need buildah buildah
	image_exists "$IMAGE" || image_die "no image '$IMAGE' in buildah's storage: run make image"
	mkdir -p "$dir" || exit 1
	dir=$(cd "$dir" && pwd)
	certs=$(cd "$certs" && pwd)
	rm -f "$dir/status" "$dir/pid" "$dir/port" "$dir/runner"

	# -c FILE: its directory at /config. The arguments are rebuilt in
	# place ("$@"), the rest kept as given.
	config_dir=""
	_n=$#
	while [ "$_n" -gt 0 ]; do
		_a=$1
		shift
		_n=$((_n - 1))
		case $_a in
		-c | --config)
			[ "$_n" -gt 0 ] || usage
			map_config "$1"
			shift
			_n=$((_n - 1))
			set -- "$@" "$_a" "$config_in"
			;;
		--config=*)
			map_config "${_a#--config=}"
			set -- "$@" "--config=$config_in"
			;;
		*) set -- "$@" "$_a" ;;
		esac
	done

	image_container || exit 1
	echo "$image_ctr" >"$dir/container"
	# The webhook's process name: qemu's (15 characters, as the kernel
	# keeps it) when it runs a foreign architecture.
	comm=gpumend-webhook
	[ -z "$image_emu" ] || comm=$(printf '%.15s' "${image_emu##*/}")
	set -- -v "$certs:/tls:ro" -- /usr/local/bin/gpumend-webhook \
		--listen 127.0.0.1:0 --tls-cert /tls/tls.crt --tls-key /tls/tls.key "$@"
	[ -z "$config_dir" ] || set -- -v "$config_dir:/config:ro" "$@"

	: >"$dir/webhook.log"
	(
		# timeout runs a new shell, which gets the functions from lib.sh.
		export IMAGE_DIR
		timeout -k 5 "$GPUMEND_WEBHOOK_LIFETIME" sh -c \
			'. "$IMAGE_DIR/lib.sh"; image_ctr=$1 image_root=$2 image_emu=$3; shift 3; image_run "$@"' \
			image-run "$image_ctr" "$image_root" "$image_emu" "$@" \
			</dev/null >"$dir/webhook.out" 2>"$dir/webhook.log"
		echo $? >"$dir/status.tmp"
		buildah rm "$image_ctr" >/dev/null 2>&1
		mv "$dir/status.tmp" "$dir/status"
	) </dev/null >/dev/null 2>&1 &
	runner=$!
	echo "$runner" >"$dir/runner"
	# Up to 20 s, unless it exits first.
	_i=0
	while ! listening && [ ! -f "$dir/status" ] && [ $_i -lt 200 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	if ! listening; then
		tail -n 20 "$dir/webhook.log" >&2
		if [ ! -f "$dir/status" ]; then
			# buildah ends its command on SIGTERM; the runner then
			# records the status and removes the container.
			_p=$(descendant "$runner" buildah)
			[ -z "$_p" ] || kill -TERM "$_p" 2>/dev/null
			wait_until 10 test -f "$dir/status"
		fi
		image_die "gpumend-webhook from $IMAGE did not start (log: $dir/webhook.log)"
	fi
	echo "$pid" >"$dir/pid"
	echo "$port" >"$dir/port"
	echo "$port"
}

stop() {
	[ $# -ge 1 ] || usage
	dir=$1 secs=${2:-30}
	[ -f "$dir/runner" ] || image_die "no webhook started in '$dir'"
	if [ ! -f "$dir/status" ]; then
		[ ! -f "$dir/pid" ] || kill -TERM "$(cat "$dir/pid")" 2>/dev/null
		if ! wait_until "$secs" test -f "$dir/status"; then
			image_say "gpumend-webhook did not exit in ${secs}s: killed"
			[ ! -f "$dir/pid" ] || kill -KILL "$(cat "$dir/pid")" 2>/dev/null
			wait_until 10 test -f "$dir/status" ||
				image_die "the webhook's runner (PID $(cat "$dir/runner")) does not end"
		fi
	fi
	exit "$(cat "$dir/status")"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
start) start "$@" ;;
stop) stop "$@" ;;
*) usage ;;
esac
