# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/bench/tools.sh - sourced by webhook.sh and instructions.sh: builds
# what the webhook benchmarks run besides gpumend. Needs HERE (this
# directory), ROOT, BUILD and work (a scratch directory) set, and die().

CFLAGS_BENCH="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2"

# The floor: libmicrohttpd + GnuTLS as gpumend-webhook sets them up.
bench_build_floor() {
	# shellcheck disable=SC2046,SC2086
	cc $CFLAGS_BENCH -I"$ROOT/webhook" -I"$ROOT/lib" -o "$work/floor_server" \
		"$HERE/floor_server.c" "$ROOT/webhook/tls.c" "$ROOT/lib/buf.c" \
		$(pkg-config --cflags --libs libmicrohttpd gnutls) -lpthread ||
		die "cannot build the floor server"
}

# The Go peer (tests/bench/peer-go), with Debian's golang-go, offline:
# the standard library only, no module download, its build cache under
# BUILD.
bench_build_peer_go() {
	if ! command -v go >/dev/null 2>&1; then
		export DEBIAN_FRONTEND=noninteractive
		apt-get install -y -qq golang-go >/dev/null 2>&1 ||
			{ apt-get update -qq >/dev/null && apt-get install -y -qq golang-go >/dev/null; } ||
			die "cannot install golang-go (apt-get install golang-go)"
	fi
	mkdir -p "$BUILD/bench"
	(cd "$HERE/peer-go" &&
		GOPROXY=off GOFLAGS= GO111MODULE=on GOTOOLCHAIN=local \
		GOCACHE="$BUILD/bench/go-cache" GOPATH="$BUILD/bench/go-path" \
		go build -o "$BUILD/bench/peer-go" .) ||
		die "cannot build the Go peer"
}

# The certificate both servers use: ECDSA P-256, from `gpumend certs`.
bench_certs() {
	"$BUILD/gpumend" certs --service gpumend --namespace gpumend \
		--out "$work/certs" --ip 127.0.0.1 --force >/dev/null 2>"$work/certs.err" ||
		die "cannot make certificates: $(cat "$work/certs.err")"
}

# large_review KB: an AdmissionReview v1 of a Deployment of about KB kB:
# eight containers with long environments and config mounts, one of which
# asks for a GPU the legacy way (one rule to apply).
large_review() {
	awk -v kb="$1" 'BEGIN {
		n_containers = 8
		n_env = int((kb * 1000 - 6000) / n_containers / 104)
		if (n_env < 1)
			n_env = 1
		printf "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
		printf "\"uid\":\"6b0f3d2e-91a4-4c57-8e6d-2f1a0b9c8d7e\","
		printf "\"kind\":{\"group\":\"apps\",\"version\":\"v1\",\"kind\":\"Deployment\"},"
		printf "\"resource\":{\"group\":\"apps\",\"version\":\"v1\",\"resource\":\"deployments\"},"
		printf "\"name\":\"feature-pipeline\",\"namespace\":\"data-platform\",\"operation\":\"CREATE\","
		printf "\"userInfo\":{\"username\":\"system:serviceaccount:argocd:argocd-application-controller\",\"groups\":[\"system:serviceaccounts\",\"system:authenticated\"]},"
		printf "\"object\":{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
		printf "\"metadata\":{\"name\":\"feature-pipeline\",\"namespace\":\"data-platform\","
		printf "\"labels\":{\"app.kubernetes.io/name\":\"feature-pipeline\",\"app.kubernetes.io/instance\":\"prod\",\"team\":\"data\"},"
		printf "\"annotations\":{\"deployment.kubernetes.io/revision\":\"42\",\"argocd.argoproj.io/tracking-id\":\"data-platform:apps/Deployment:data-platform/feature-pipeline\"}},"
		printf "\"spec\":{\"replicas\":6,\"revisionHistoryLimit\":5,"
		printf "\"selector\":{\"matchLabels\":{\"app.kubernetes.io/name\":\"feature-pipeline\"}},"
		printf "\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxSurge\":\"25%%\",\"maxUnavailable\":0}},"
		printf "\"template\":{\"metadata\":{\"labels\":{\"app.kubernetes.io/name\":\"feature-pipeline\",\"app.kubernetes.io/instance\":\"prod\"},"
		printf "\"annotations\":{\"prometheus.io/scrape\":\"true\",\"prometheus.io/port\":\"9090\"}},"
		printf "\"spec\":{\"serviceAccountName\":\"feature-pipeline\",\"terminationGracePeriodSeconds\":60,"
		printf "\"containers\":["
		for (c = 0; c < n_containers; c++) {
			if (c)
				printf ","
			if (c == 0)
				printf "{\"name\":\"embedder\",\"image\":\"nvidia/cuda:9.2-cudnn7-runtime-ubuntu16.04\","
			else
				printf "{\"name\":\"stage-%d\",\"image\":\"registry.example.com/data/feature-stage:3.%d.1\",", c, c
			printf "\"args\":[\"--stage=%d\",\"--config=/etc/pipeline/stage-%d.yaml\",\"--metrics-port=%d\"],", c, c, 9090 + c
			printf "\"env\":["
			for (e = 0; e < n_env; e++) {
				if (e)
					printf ","
				printf "{\"name\":\"PIPELINE_STAGE_%d_SETTING_%04d\",\"value\":\"s3://feature-store-prod/stage-%d/partition-%04d/shard\"}", c, e, c, e
			}
			printf "],"
			if (c == 0)
				printf "\"resources\":{\"limits\":{\"alpha.kubernetes.io/nvidia-gpu\":1,\"cpu\":\"4\",\"memory\":\"16Gi\"},\"requests\":{\"cpu\":\"2\",\"memory\":\"8Gi\"}},"
			else
				printf "\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"2Gi\"},\"requests\":{\"cpu\":\"250m\",\"memory\":\"512Mi\"}},"
			printf "\"ports\":[{\"name\":\"metrics\",\"containerPort\":%d,\"protocol\":\"TCP\"}],", 9090 + c
			printf "\"volumeMounts\":[{\"name\":\"config-%d\",\"mountPath\":\"/etc/pipeline\",\"readOnly\":true},{\"name\":\"scratch\",\"mountPath\":\"/scratch\"}],", c
			printf "\"readinessProbe\":{\"httpGet\":{\"path\":\"/healthz\",\"port\":%d},\"periodSeconds\":10},", 9090 + c
			printf "\"imagePullPolicy\":\"IfNotPresent\"}"
		}
		printf "],\"volumes\":["
		for (c = 0; c < n_containers; c++)
			printf "{\"name\":\"config-%d\",\"configMap\":{\"name\":\"feature-pipeline-stage-%d\"}},", c, c
		printf "{\"name\":\"scratch\",\"emptyDir\":{\"sizeLimit\":\"10Gi\"}}]}}}},"
		printf "\"oldObject\":null,\"dryRun\":false,\"options\":{\"apiVersion\":\"meta.k8s.io/v1\",\"kind\":\"CreateOptions\"}}}\n"
	}'
}
