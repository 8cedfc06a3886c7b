# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/cluster.sh - a throwaway Kubernetes control plane on 127.0.0.1
# for the end-to-end suite (sourced by tests/e2e/run.sh, POSIX sh).
#
# etcd, kube-apiserver, kube-scheduler and kube-controller-manager run as
# children of the suite, each under `timeout` (so none can outlive a
# killed suite by more than $E2E_LIFETIME seconds), on free loopback
# ports, with certificates made here by openssl, in the state directory
# $E2E_DIR:
#   pids             "NAME PID" per started process, stopped in reverse
#   *.log            each process's output
#   pki/             the cluster CA, the apiserver's serving pair, the
#                    admin client pair (group system:masters), the
#                    service-account signing key
#   kubeconfig       the admin kubeconfig, exported as KUBECONFIG
# kubectl is $KUBECTL (tests/tools/get.sh). No kubelet runs: nodes are API
# objects whose status the suite writes itself; the controllers make real
# pods, which the scheduler binds and which then stay Pending on their
# node. The reaper stands in for the kubelets in one respect only: it
# confirms the deletion of pods being deleted (a bound pod is otherwise
# Terminating for ever, its GPUs still counted as used).
#
# Every wait polls with a bound; nothing sleeps blindly.

: "${E2E_LIFETIME:=3600}"

# say MESSAGE: progress on stderr, so that stdout keeps the test lines.
say() { echo "e2e: $*" >&2; }

# ------------------------------------------------------------------
# Processes

# spawn NAME COMMAND...: starts COMMAND in the background, its output in
# $E2E_DIR/NAME.log, and records its PID; sets $spawned.
spawn() {
	_name=$1
	shift
	timeout -k 5 "$E2E_LIFETIME" "$@" >"$E2E_DIR/$_name.log" 2>&1 &
	spawned=$!
	echo "$_name $spawned" >>"$E2E_DIR/pids"
}

# stop_pid PID [SECONDS]: SIGTERM, then SIGKILL after SECONDS (default 10).
# "image:DIR" is a webhook run from the image: stopped, and its container
# removed, by tests/image/webhook.sh.
stop_pid() {
	case $1 in
	image:*)
		sh "$IMAGE_WEBHOOK" stop "${1#image:}" "${2:-10}" >/dev/null 2>&1
		return 0
		;;
	esac
	kill -TERM "$1" 2>/dev/null || return 0
	_i=0
	while kill -0 "$1" 2>/dev/null && [ $_i -lt $((${2:-10} * 20)) ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

# stop_name NAME: stops the process recorded under NAME.
stop_name() {
	_pid=$(awk -v n="$1" '$1 == n { p = $2 } END { print p }' "$E2E_DIR/pids" 2>/dev/null)
	[ -n "$_pid" ] && stop_pid "$_pid"
	return 0
}

# stop_all: stops every recorded process, the last started first.
stop_all() {
	[ -f "$E2E_DIR/pids" ] || return 0
	for _pid in $(awk '{ print $2 }' "$E2E_DIR/pids" | sed '1!G;h;$!d'); do
		stop_pid "$_pid"
	done
	: >"$E2E_DIR/pids"
}

# poll SECONDS COMMAND...: runs COMMAND every 0.1 s until it succeeds;
# fails when SECONDS have passed.
poll() {
	_end=$(($(date +%s) + $1))
	shift
	while :; do
		"$@" && return 0
		[ "$(date +%s)" -lt "$_end" ] || return 1
		sleep 0.1
	done
}

# ------------------------------------------------------------------
# Ports

# listening_ports: every TCP port something listens on, in decimal.
listening_ports() {
	for _h in $(awk 'NR > 1 && $4 == "0A" { sub(/.*:/, "", $2); print $2 }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null); do
		printf '%d\n' "0x$_h"
	done
}

# free_port: a TCP port between 20000 and 59999 that nothing listens on
# and that this suite has not handed out yet.
_ports_given=""
free_port() {
	_used=$(listening_ports)
	while :; do
		_p=$(( $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40000 + 20000 ))
		case " $_ports_given " in *" $_p "*) continue ;; esac
		echo "$_used" | grep -qx "$_p" && continue
		_ports_given="$_ports_given $_p"
		echo "$_p"
		return 0
	done
}

# ------------------------------------------------------------------
# Certificates

# make_pki: the cluster CA and the pairs the control plane needs.
make_pki() {
	_pki=$E2E_DIR/pki
	mkdir -p "$_pki" && chmod 700 "$_pki" || return 1
	(
		cd "$_pki" || exit 1
		set -e
		ec="-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
		# shellcheck disable=SC2086
		openssl req -x509 $ec -days 2 -subj "/CN=gpumend-e2e-ca" \
			-keyout ca.key -out ca.crt
		# sign NAME SUBJECT EXTENSIONS
		sign() {
			# shellcheck disable=SC2086
			openssl req -new $ec -subj "$2" -keyout "$1.key" -out "$1.csr"
			printf '%s\n' "$3" >"$1.ext"
			openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key \
				-CAcreateserial -days 2 -extfile "$1.ext" -out "$1.crt"
		}
		sign apiserver "/CN=kube-apiserver" \
"subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc
extendedKeyUsage=serverAuth
keyUsage=critical,digitalSignature"
		sign admin "/O=system:masters/CN=gpumend-e2e-admin" \
"extendedKeyUsage=clientAuth
keyUsage=critical,digitalSignature"
		openssl genrsa -out sa.key 2048
		openssl rsa -in sa.key -pubout -out sa.pub
	) >"$E2E_DIR/pki.log" 2>&1
}

# ------------------------------------------------------------------
# The control plane

# start_etcd: etcd on two free loopback ports; sets $etcd_url.
start_etcd() {
	_client=$(free_port)
	_peer=$(free_port)
	etcd_url="http://127.0.0.1:$_client"
	spawn etcd etcd --name e2e --data-dir "$E2E_DIR/etcd" \
		--listen-client-urls "$etcd_url" --advertise-client-urls "$etcd_url" \
		--listen-peer-urls "http://127.0.0.1:$_peer" \
		--initial-advertise-peer-urls "http://127.0.0.1:$_peer" \
		--initial-cluster "e2e=http://127.0.0.1:$_peer" \
		--log-level warn
	etcd_pid=$spawned
	poll 30 etcd_healthy
}

etcd_healthy() {
	kill -0 "$etcd_pid" 2>/dev/null || return 2
	curl -sf --max-time 2 "$etcd_url/health" 2>/dev/null | grep -q '"health":"true"'
}

# start_apiserver: kube-apiserver on a free port, until /readyz answers
# ok; sets $api_url. Admission plugins: the defaults less ServiceAccount
# (the pods need no API token, and none waits for its namespace's service
# account), so the mutating and validating webhooks, NamespaceLifecycle,
# DefaultTolerationSeconds, TaintNodesByCondition... all run as in a real
# cluster.
start_apiserver() {
	_pki=$E2E_DIR/pki
	api_port=$(free_port)
	api_url="https://127.0.0.1:$api_port"
	spawn apiserver "$K8S_BIN/kube-apiserver" \
		--bind-address 127.0.0.1 --advertise-address 127.0.0.1 \
		--secure-port "$api_port" --insecure-port 0 \
		--etcd-servers "$etcd_url" \
		--tls-cert-file "$_pki/apiserver.crt" \
		--tls-private-key-file "$_pki/apiserver.key" \
		--client-ca-file "$_pki/ca.crt" \
		--service-account-key-file "$_pki/sa.pub" \
		--service-account-signing-key-file "$_pki/sa.key" \
		--service-account-issuer https://kubernetes.default.svc \
		--api-audiences https://kubernetes.default.svc \
		--service-cluster-ip-range 10.0.0.0/24 \
		--authorization-mode RBAC \
		--disable-admission-plugins ServiceAccount \
		--endpoint-reconciler-type none \
		--allow-privileged=true --profiling=false \
		--cert-dir "$E2E_DIR/apiserver-certs"
	api_pid=$spawned
	poll 120 apiserver_ready
}

# write_kubeconfig: the admin kubeconfig ($KUBECONFIG), by kubectl.
write_kubeconfig() {
	_pki=$E2E_DIR/pki
	"$KUBECTL" config set-cluster e2e --server "$api_url" \
		--certificate-authority "$_pki/ca.crt" --embed-certs >/dev/null &&
	"$KUBECTL" config set-credentials admin --client-certificate "$_pki/admin.crt" \
		--client-key "$_pki/admin.key" --embed-certs >/dev/null &&
	"$KUBECTL" config set-context e2e --cluster e2e --user admin >/dev/null &&
	"$KUBECTL" config use-context e2e >/dev/null
}

apiserver_ready() {
	kill -0 "$api_pid" 2>/dev/null || return 2
	[ "$(curl -s --max-time 2 --cacert "$E2E_DIR/pki/ca.crt" \
		--cert "$E2E_DIR/pki/admin.crt" --key "$E2E_DIR/pki/admin.key" \
		"$api_url/readyz" 2>/dev/null)" = ok ]
}

# start_scheduler: kube-scheduler on the admin kubeconfig, serving nothing.
start_scheduler() {
	_sport=$(free_port)
	spawn scheduler "$K8S_BIN/kube-scheduler" --kubeconfig "$KUBECONFIG" \
		--authentication-kubeconfig "$KUBECONFIG" \
		--authorization-kubeconfig "$KUBECONFIG" \
		--bind-address 127.0.0.1 --secure-port "$_sport" --port 0 \
		--leader-elect=false
	scheduler_pid=$spawned
	poll 10 kill -0 "$scheduler_pid"
}

# start_controller_manager: kube-controller-manager on the admin
# kubeconfig (every controller with the admin's credentials), serving
# nothing outside 127.0.0.1, without the node-lifecycle controller (the
# nodes have no kubelet to post heartbeats: it would mark them NotReady
# and evict their pods). Tokens are signed with the cluster's
# service-account key. Ready once the service-account controller has
# made the default namespace's account.
start_controller_manager() {
	_cport=$(free_port)
	spawn controller-manager "$K8S_BIN/kube-controller-manager" \
		--kubeconfig "$KUBECONFIG" \
		--authentication-kubeconfig "$KUBECONFIG" \
		--authorization-kubeconfig "$KUBECONFIG" \
		--bind-address 127.0.0.1 --secure-port "$_cport" --port 0 \
		--leader-elect=false --controllers='*,-nodelifecycle' \
		--use-service-account-credentials=false \
		--service-account-private-key-file "$E2E_DIR/pki/sa.key" \
		--root-ca-file "$E2E_DIR/pki/ca.crt"
	cm_pid=$spawned
	poll 60 controller_manager_ready
}

controller_manager_ready() {
	kill -0 "$cm_pid" 2>/dev/null || return 2
	k get serviceaccount default -n default -o name >/dev/null 2>&1
}

# start_reaper: in the background, every second, removes the pods being
# deleted (as their kubelet would once their containers stopped).
start_reaper() {
	(
		_end=$(($(date +%s) + E2E_LIFETIME))
		while [ "$(date +%s)" -lt "$_end" ]; do
			api GET /api/v1/pods application/json "" 2>/dev/null | jq -r '
				.items[] | select(.metadata.deletionTimestamp) |
				"\(.metadata.namespace) \(.metadata.name) \(.metadata.uid)"' |
			while read -r _ns _pod _uid; do
				api DELETE "/api/v1/namespaces/$_ns/pods/$_pod" application/json \
					"{\"gracePeriodSeconds\":0,\"preconditions\":{\"uid\":\"$_uid\"}}" \
					>/dev/null && echo "reaped $_ns/$_pod"
			done
			sleep 1
		done
	) >"$E2E_DIR/reaper.log" 2>&1 &
	echo "reaper $!" >>"$E2E_DIR/pids"
}

# k ARGS...: kubectl against the suite's apiserver, bounded in time, with
# its own discovery cache.
k() {
	"$KUBECTL" --request-timeout=30s --cache-dir "$E2E_DIR/kube-cache" "$@"
}

# ------------------------------------------------------------------
# Fake GPU nodes

# add_node NAME CAPACITY-JSON LABEL=VALUE...: a Node object, Ready, with
# CAPACITY (merged over cpu/memory/pods) as capacity and allocatable, and
# without the not-ready taint that admission puts on new nodes.
add_node() {
	_name=$1 _cap=$2
	shift 2
	jq -n --arg name "$_name" '{apiVersion: "v1", kind: "Node",
		metadata: {name: $name, labels: {"kubernetes.io/hostname": $name,
			"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}}}' \
		>"$E2E_DIR/node-$_name.json" &&
	k create -f "$E2E_DIR/node-$_name.json" -o name >/dev/null || return 1
	if [ $# -gt 0 ]; then
		k label node "$_name" --overwrite "$@" >/dev/null || return 1
	fi
	_status=$(jq -nc --argjson cap "$_cap" '
		({cpu: "16", memory: "64Gi", pods: "110"} + $cap) as $c |
		{status: {capacity: $c, allocatable: $c,
		 conditions: [{type: "Ready", status: "True", reason: "KubeletReady",
			message: "fake node of the gpumend e2e suite",
			lastHeartbeatTime: (now | todate),
			lastTransitionTime: (now | todate)}]}}')
	api PATCH "/api/v1/nodes/$_name/status" application/merge-patch+json "$_status" >/dev/null &&
	node_untaint "$_name"
}

# api METHOD PATH CONTENT-TYPE BODY: a request as the admin, by curl (the
# status subresource needs no recent kubectl); the answer on stdout.
api() {
	curl -sSf --max-time 30 --cacert "$E2E_DIR/pki/ca.crt" \
		--cert "$E2E_DIR/pki/admin.crt" --key "$E2E_DIR/pki/admin.key" \
		-X "$1" -H "Content-Type: $3" --data-binary "$4" "$api_url$2"
}

node_untaint() {
	# TaintNodesByCondition may add the taint just after the create
	if k get node "$1" -o jsonpath='{.spec.taints[*].key}' | grep -q not-ready; then
		k taint node "$1" node.kubernetes.io/not-ready- >/dev/null
	fi
	[ -z "$(k get node "$1" -o jsonpath='{.spec.taints[*].key}')" ]
}

# ------------------------------------------------------------------
# The webhook

# The webhook users deploy is the image: when `make image` has built it
# (E2E_IMAGE=auto, the default) or E2E_IMAGE=1 asks for it, the main
# webhook (NAME gpumend) runs from the image as the Deployment runs it
# (tests/image/webhook.sh: user 65532, read-only directories, certificates
# and config mounted read-only); E2E_IMAGE=0 runs the host's binary.
# Other webhooks of the suite (the reinvocation peer) always run on the
# host.
: "${E2E_IMAGE:=auto}"
IMAGE_WEBHOOK="$TESTS_DIR/image/webhook.sh"

# use_image NAME: whether NAME runs from the image.
use_image() {
	[ "$1" = gpumend ] || return 1
	case $E2E_IMAGE in
	0 | no) return 1 ;;
	1 | yes) return 0 ;;
	esac
	[ -z "${_image_present:-}" ] && {
		_image_present=no
		command -v buildah >/dev/null 2>&1 &&
			buildah inspect --type image "gpumend:$(cat "$REPO_DIR/VERSION")" >/dev/null 2>&1 && _image_present=yes
	}
	[ "$_image_present" = yes ]
}

# start_webhook NAME CERTDIR ARGS...: gpumend-webhook on a port of its
# choosing; sets $wh_pid, $wh_port, $wh_url (https://127.0.0.1:PORT). Its
# log is $E2E_DIR/NAME.log either way.
start_webhook() {
	_name=$1 _certs=$2
	shift 2
	if use_image "$_name"; then
		_run="$E2E_DIR/image-$_name"
		rm -rf "$_run"
		ln -sf "$_run/webhook.log" "$E2E_DIR/$_name.log"
		wh_port=$(sh "$IMAGE_WEBHOOK" start "$_run" "$_certs" "$@" 2>"$E2E_DIR/$_name.start") || {
			cat "$E2E_DIR/$_name.start" >>"$_run/webhook.log" 2>/dev/null
			return 1
		}
		wh_pid=$(cat "$_run/pid")
		echo "$_name image:$_run" >>"$E2E_DIR/pids"
		wh_url="https://127.0.0.1:$wh_port"
		return 0
	fi
	spawn "$_name" "$GPUMEND_WEBHOOK" --listen 127.0.0.1:0 \
		--tls-cert "$_certs/tls.crt" --tls-key "$_certs/tls.key" "$@"
	wh_pid=$spawned
	wh_port=""
	poll 20 webhook_port "$_name" "$wh_pid" || return 1
	wh_url="https://127.0.0.1:$wh_port"
}

webhook_port() {
	kill -0 "$2" 2>/dev/null || return 2
	wh_port=$(sed -n 's/.*"msg":"started".*"listen":"127\.0\.0\.1:\([0-9]*\)".*/\1/p' \
		"$E2E_DIR/$1.log" | head -n 1)
	[ -n "$wh_port" ]
}

# webhook_certs DIR [reuse]: a CA and a serving pair for IP 127.0.0.1,
# by `gpumend certs`; "reuse" signs a new pair with the CA already there.
# The key is made readable by group 65532 (mode 0440), as the Deployment's
# secret volume mounts it, so that the webhook in the image can read it.
webhook_certs() {
	if [ "${2:-}" = reuse ]; then
		"$GPUMEND" certs --service gpumend-webhook --namespace gpumend-system \
			--ip 127.0.0.1 --out "$1" --reuse-ca --force
	else
		mkdir -p "$1" &&
		"$GPUMEND" certs --service gpumend-webhook --namespace gpumend-system \
			--ip 127.0.0.1 --out "$1"
	fi || return 1
	chmod 755 "$1" && chgrp 65532 "$1/tls.key" && chmod 0440 "$1/tls.key"
}

# log_count NAME PATTERN: lines of NAME.log matching PATTERN.
log_count() {
	grep -c -- "$2" "$E2E_DIR/$1.log" 2>/dev/null
}

# log_at_least NAME PATTERN COUNT
log_at_least() {
	[ "$(log_count "$1" "$2")" -ge "$3" ]
}
