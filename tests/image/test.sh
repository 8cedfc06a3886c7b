#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/image/test.sh - `make image-test`: what `make image` built, as
# users run it: $IMAGE (default gpumend:VERSION), the manifest list, names
# one image per architecture of IMAGE_ARCHES (default amd64 arm64), each
# the image $IMAGE-ARCH built for that platform. Then, for each image,
# each command inside it runs with buildah (tests/image/lib.sh's
# image_run: user and group 65532, the image's directories read-only; the
# arm64 one's programs under qemu-aarch64-static, mounted into its
# container, since binfmt_misc may not be mounted), each check named
# after the architecture:
#   - its platform (linux/ARCH in its configuration);
#   - its configuration: user 65532, the webhook as entry point, port 8443;
#   - its bill of materials: the Debian packages recorded, each with its
#     copyright file; no compiler, no headers, no -dev package, no shell,
#     no package manager; nothing in it writable by user or group 65532;
#     every program and library built for ARCH's machine;
#   - `gpumend --version`, `gpumend-webhook --version` and `--help` print
#     what the host's build prints, and `gpumend review` answers as it does;
#   - the webhook (tests/image/webhook.sh) with certificates made by
#     `gpumend certs`, mounted read-only, the key mode 0440 and group 65532
#     as the Deployment's secret volume: it runs as 65532 without
#     capabilities, its image directories and certificates are read-only
#     mounts and nothing in its view of the file system is writable to it
#     (but /dev, as in a pod); over TLS on 127.0.0.1, verified against the
#     CA, its answer to each AdmissionReview is byte for byte what the
#     host's `gpumend review` prints; with `-c` it reads a config; a key
#     it cannot read stops it with an error; SIGTERM while a slow request
#     is in flight: the request completes, exit 0;
#   - the README's publishing steps: `make image-push` of the list to a
#     registry on 127.0.0.1 (Debian's docker-registry, installed when
#     missing), served there as a list of both platforms, each read
#     back as the same image, and `kustomize edit set image` in a copy of
#     manifests/base sets the Deployment's image.
# Ends with "image: N passed, N failed".
. "$(dirname "$0")/../lib.sh"
. "$TESTS_DIR/image/lib.sh"
export IMAGE_DIR

# not dir=$(scratch): see tests/lib.sh
scratch >/dev/null
dir=$_scratch
data="$TESTS_DIR/webhook"
webhook_sh="$TESTS_DIR/image/webhook.sh"

registry_pid=""
cleanup() {
	[ ! -f "$dir/wh/runner" ] || sh "$webhook_sh" stop "$dir/wh" 5 >/dev/null 2>&1
	[ -z "$registry_pid" ] || kill "$registry_pid" 2>/dev/null
	[ -z "${image_ctr:-}" ] || buildah rm "$image_ctr" >/dev/null 2>&1
	rm -rf "$_scratch_root"
}
trap cleanup EXIT

# give_up MESSAGE: a failure that leaves nothing else to test.
give_up() {
	fail "$1"
	finish image
	exit 1
}

for tool in curl jq openssl setpriv; do
	command -v "$tool" >/dev/null 2>&1 || give_up "'$tool' not found"
done
for bin in "$GPUMEND" "$GPUMEND_WEBHOOK"; do
	[ -x "$bin" ] || give_up "no '$bin': run make"
done
(image_need buildah buildah) || give_up "buildah cannot be had"
for arch in $IMAGE_ARCHES; do
	image_exists "$(image_of "$arch")" ||
		give_up "no image '$(image_of "$arch")' in buildah's storage: run make image"
done
pass "images $(for a in $IMAGE_ARCHES; do printf '%s ' "$(image_of "$a")"; done)are in buildah's storage"

# jq_true FILTER FILE: the filter yields true on FILE.
jq_true() {
	[ "$(jq -r "$1" "$2" 2>/dev/null)" = true ]
}

# none FILE: FILE is empty; prints it otherwise.
none() {
	[ ! -s "$1" ] && return 0
	head -n 10 "$1" | sed 's/^/  found: /'
	return 1
}

# ------------------------------------------------------------------
# The manifest list: one image per architecture, each named by its
# platform, each the image built for it.

buildah manifest inspect "$IMAGE" >"$dir/list.json" 2>"$dir/err" ||
	give_up "$IMAGE is not a manifest list: $(tail -n 1 "$dir/err")"
check "manifest list $IMAGE: $(image_platforms), nothing else" \
	[ "$(jq -r '[.manifests[].platform | "\(.os)/\(.architecture)"] | join(", ")' \
		"$dir/list.json" 2>/dev/null)" = "$(image_platforms)" ]
for arch in $IMAGE_ARCHES; do
	digest=$(buildah inspect --type image --format '{{.FromImageDigest}}' "$(image_of "$arch")")
	check "manifest list $IMAGE: linux/$arch is $(image_of "$arch") ($digest)" \
		jq_true "[.manifests[] | select(.platform.os == \"linux\" and
			.platform.architecture == \"$arch\")] | length == 1 and .[0].digest == \"$digest\"" \
		"$dir/list.json"
done
revision=$(make -s --no-print-directory -C "$REPO_DIR" revision)
list=$IMAGE

# Certificates, for every image, as the Deployment mounts its secret:
# root's files, group 65532 (fsGroup), mode 0440; the CA's key stays out.
if ! "$GPUMEND" certs --service gpumend-webhook --namespace gpumend-system \
	--ip 127.0.0.1 --out "$dir/ca" >/dev/null 2>"$dir/certs.err"; then
	give_up "gpumend certs: $(cat "$dir/certs.err")"
fi
mkdir -p "$dir/tls" "$dir/tls-private"
cp "$dir/ca/tls.crt" "$dir/ca/tls.key" "$dir/tls/"
chgrp 65532 "$dir/tls/tls.crt" "$dir/tls/tls.key"
chmod 0440 "$dir/tls/tls.crt" "$dir/tls/tls.key"
# The same pair, the key as `gpumend certs` writes it (root's, 0600).
cp -p "$dir/ca/tls.crt" "$dir/ca/tls.key" "$dir/tls-private/"
chmod 0444 "$dir/tls-private/tls.crt"
chmod 0755 "$dir" "$dir/tls" "$dir/tls-private" "$_scratch_root"

# test_arch ARCH: the configuration, the bill of materials, the binaries
# and the webhook of ARCH's image; a foreign one's programs run under qemu
# (tests/image/lib.sh's image_run), as the Deployment runs them
# otherwise. Each check is named after ARCH.
test_arch() {
	arch=$1
	IMAGE=$(IMAGE=$list image_of "$arch")
	export IMAGE
	machine=$(case $arch in amd64) echo X86-64 ;; arm64) echo AArch64 ;; esac)

	# ------------------------------------------------------------------
	# Configuration and bill of materials

	buildah inspect --type image "$IMAGE" >"$dir/inspect.json"
	check "$arch: config: os linux, architecture $arch" \
		jq_true ".OCIv1.os == \"linux\" and .OCIv1.architecture == \"$arch\"" "$dir/inspect.json"
	check "$arch: config: user 65532:65532" \
		jq_true '.OCIv1.config.User == "65532:65532"' "$dir/inspect.json"
	check "$arch: config: entry point /usr/local/bin/gpumend-webhook" \
		jq_true '.OCIv1.config.Entrypoint == ["/usr/local/bin/gpumend-webhook"]' "$dir/inspect.json"
	check "$arch: config: port 8443 exposed" \
		jq_true '.OCIv1.config.ExposedPorts | has("8443/tcp")' "$dir/inspect.json"
	check "$arch: labels: org.opencontainers.image version $IMAGE_VERSION, revision $revision, licenses Apache-2.0, source" \
		jq_true ".OCIv1.config.Labels as \$l |
			\$l[\"org.opencontainers.image.version\"] == \"$IMAGE_VERSION\" and
			\$l[\"org.opencontainers.image.revision\"] == \"$revision\" and
			\$l[\"org.opencontainers.image.licenses\"] == \"Apache-2.0\" and
			(\$l[\"org.opencontainers.image.source\"] | startswith(\"https://\"))" "$dir/inspect.json"

	image_container || give_up "$arch: cannot make a container of $IMAGE"
	root=$image_root
	echo "note: image $IMAGE: $(buildah images --format '{{.Size}}' "$IMAGE"), $(du -sk "$root" | cut -f1) KiB of files"

	# The image's own top-level directories, before anything runs in it.
	image_dirs=""
	for d in "$root"/*; do
		[ -d "$d" ] && [ ! -L "$d" ] || continue
		case ${d##*/} in dev | proc | sys | run | tls | config) continue ;; esac
		image_dirs="$image_dirs ${d##*/}"
	done
	check "$arch: image directories found ($image_dirs )" [ -n "$image_dirs" ]

	status_d="$root/var/lib/dpkg/status.d"
	ls "$status_d" 2>/dev/null >"$dir/packages"
	check "$arch: packages recorded in /var/lib/dpkg/status.d" [ -s "$dir/packages" ]
	: >"$dir/bad-packages"
	while read -r pkg; do
		grep -q '^Status: install ok installed$' "$status_d/$pkg" &&
			grep -q "^Package: $pkg\$" "$status_d/$pkg" &&
			grep -q '^Version: ' "$status_d/$pkg" &&
			grep -Eq "^Architecture: ($arch|all)\$" "$status_d/$pkg" &&
			[ -s "$root/usr/share/doc/$pkg/copyright" ] ||
			echo "$pkg" >>"$dir/bad-packages"
	done <"$dir/packages"
	check "$arch: each package: installed, versioned, for $arch, with its copyright file" none "$dir/bad-packages"
	echo "note: packages: $(for p in $(cat "$dir/packages"); do
		printf '%s %s, ' "$p" "$(sed -n 's/^Version: //p' "$status_d/$p")"; done | sed 's/, $//')"
	grep -E -- '-dev$|^(gcc|g\+\+|cpp|clang|binutils|libc6-dev|make|dpkg|apt|bash|dash|coreutils)' \
		"$dir/packages" >"$dir/found" || true
	check "$arch: no -dev, compiler, shell or package manager package" none "$dir/found"
	find "$root" -xdev \( -name '*.h' -o -name '*.hpp' -o -type d -name include \) \
		>"$dir/found" 2>/dev/null
	check "$arch: no headers, no include directory" none "$dir/found"
	find "$root" -xdev \( -name cc -o -name 'c++' -o -name 'gcc*' -o -name 'g++*' \
		-o -name 'cpp*' -o -name 'clang*' -o -name 'tcc' -o -name 'ld' -o -name 'ld.*' \
		-o -name 'as' -o -name 'cc1*' -o -name 'make' -o -name 'crt*.o' -o -name '*.a' \) \
		! -name 'ld-linux*' >"$dir/found" 2>/dev/null
	check "$arch: no compiler, assembler, linker, make or static library" none "$dir/found"
	find "$root" -xdev \( -name sh -o -name bash -o -name dash -o -name busybox \
		-o -name apt -o -name 'apt-*' -o -name dpkg -o -name 'dpkg-*' \) ! -type d \
		>"$dir/found" 2>/dev/null
	check "$arch: no shell, no package manager" none "$dir/found"
	find "$root" -xdev ! -type l \( -perm -0002 -o -user 65532 -o -group 65532 \) \
		>"$dir/found" 2>/dev/null
	check "$arch: nothing in the image owned by or writable for 65532" none "$dir/found"
	find "$root" -xdev -type f -perm -0100 ! -name 'ld-linux*' ! -name '*.so*' \
		| sed "s|^$root||" | sort >"$dir/programs"
	check "$arch: the only programs: /usr/local/bin/gpumend and gpumend-webhook" \
		[ "$(tr '\n' ' ' <"$dir/programs")" = "/usr/local/bin/gpumend /usr/local/bin/gpumend-webhook " ]
	# every ELF file: built for ARCH's machine
	find "$root" -xdev -type f \( -perm -0100 -o -name '*.so*' \) | while read -r f; do
		readelf -h "$f" 2>/dev/null | grep -q "Machine:.*$machine" || echo "${f#"$root"}"
	done >"$dir/found"
	check "$arch: every program and library is an ELF file for $machine" none "$dir/found"

	# ------------------------------------------------------------------
	# The binaries inside

	# same_output NAME COMMAND...: COMMAND run in the image prints, exiting 0,
	# what the host's build prints.
	same_output() {
		_name=$1 _prog=$2
		shift 2
		"$GPUMEND_BUILD/$_prog" "$@" >"$dir/host.out" 2>&1
		if ! image_run -- "$_prog" "$@" >"$dir/image.out" 2>"$dir/image.err"; then
			fail "$arch: $_name: exit status in the image"
			sed 's/^/  /' "$dir/image.err" | head -n 5
		elif cmp -s "$dir/host.out" "$dir/image.out"; then
			pass "$arch: $_name: as the host's build ($(head -n 1 "$dir/image.out"))"
		else
			fail "$arch: $_name: differs from the host's build"
			diff "$dir/host.out" "$dir/image.out" | head -n 5
		fi
	}
	same_output "gpumend --version" gpumend --version
	same_output "gpumend-webhook --version" gpumend-webhook --version
	same_output "gpumend-webhook --help" gpumend-webhook --help

	# The reviews: a legacy pod as admission.k8s.io/v1 (a file of the
	# webhook suite) and v1beta1 (made from its pod), a pod needing nothing.
	cp "$data/admission-review.json" "$dir/review-legacy-v1.json"
	# review VERSION UID OBJECT-FILE: a CREATE AdmissionReview of the object.
	review() {
		jq -n --arg v "admission.k8s.io/$1" --arg uid "$2" --slurpfile obj "$3" '{
			apiVersion: $v, kind: "AdmissionReview",
			request: {
				uid: $uid,
				kind: {group: "", version: "v1", kind: "Pod"},
				resource: {group: "", version: "v1", resource: "pods"},
				namespace: $obj[0].metadata.namespace, name: $obj[0].metadata.name,
				operation: "CREATE", userInfo: {username: "image-test"},
				object: $obj[0], oldObject: null, dryRun: false
			}
		}'
	}
	review v1beta1 uid-legacy-beta "$data/legacy-pod.json" >"$dir/review-legacy-v1beta1.json"
	review v1 uid-modern "$data/modern-pod.json" >"$dir/review-modern-v1.json"
	reviews="legacy-v1 legacy-v1beta1 modern-v1"

	for r in $reviews; do
		"$GPUMEND" review "$dir/review-$r.json" >"$dir/host-$r.json" 2>&1
		image_run -- gpumend review - <"$dir/review-$r.json" >"$dir/image-$r.json" 2>"$dir/err"
		check "$arch: gpumend review in the image: $r answered as by the host's build" \
			cmp -s "$dir/host-$r.json" "$dir/image-$r.json"
	done
	check "$arch: the legacy pod's answer has a patch (the comparison is not vacuous)" \
		jq_true '.response.allowed and (.response.patch | length > 0)' "$dir/host-legacy-v1.json"
	buildah rm "$image_ctr" >/dev/null 2>&1
	image_ctr=""

	# ------------------------------------------------------------------
	# The webhook inside, over TLS


	if sh "$webhook_sh" start "$dir/wh-private" "$dir/tls-private" \
		>/dev/null 2>"$dir/private.err"; then
		fail "$arch: a key that user 65532 cannot read: refused"
		sh "$webhook_sh" stop "$dir/wh-private" >/dev/null 2>&1
	else
		check "$arch: a key that user 65532 cannot read: refused, naming it" \
			grep -q '/tls/tls.key' "$dir/wh-private/webhook.log"
	fi

	port=$(sh "$webhook_sh" start "$dir/wh" "$dir/tls" 2>"$dir/start.err") ||
		give_up "$arch: the webhook from the image starts: $(tail -n 3 "$dir/start.err")"
	pass "$arch: the webhook from the image listens on 127.0.0.1:$port"
	url="https://127.0.0.1:$port"
	pid=$(cat "$dir/wh/pid")

	check "$arch: it runs as user and group 65532" \
		awk '$1 ~ /^[UG]id:$/ { n++; if ($2 != 65532 || $3 != 65532 || $4 != 65532 || $5 != 65532) bad = 1 }
			END { exit !(n == 2 && !bad) }' "/proc/$pid/status"
	check "$arch: it has no capabilities" grep -q '^CapEff:[[:space:]]*0*$' "/proc/$pid/status"
	for d in $image_dirs tls; do
		check "$arch: its /$d is a read-only mount" \
			awk -v d="/$d" '$2 == d { split($4, o, ","); ro = (o[1] == "ro") } END { exit !ro }' \
			"/proc/$pid/mounts"
	done
	# Its view of the file system, walked as user 65532 (/proc, /sys and /dev
	# aside: /dev/null and /dev/shm are writable in a pod too).
	setpriv --reuid=65532 --regid=65532 --clear-groups \
		find "/proc/$pid/root/" \( -path "/proc/$pid/root/proc" -o -path "/proc/$pid/root/sys" \
		-o -path "/proc/$pid/root/dev" \) -prune -o -writable -print >"$dir/found" 2>&1
	check "$arch: nothing in its file system is writable to it (and all of it was read)" none "$dir/found"
	check "$arch: (that walk sees what is writable: its /dev/null is)" \
		setpriv --reuid=65532 --regid=65532 --clear-groups test -w "/proc/$pid/root/dev/null"
	check "$arch: that walk read its whole root" \
		setpriv --reuid=65532 --regid=65532 --clear-groups test -x "/proc/$pid/root/usr/local/bin/gpumend-webhook"

	check "$arch: /healthz over TLS, verified against the CA" \
		sh -c "curl -sS --cacert '$dir/ca/ca.crt' '$url/healthz' | grep -qx ok"

	# post FILE OUT: POSTs FILE to /mutate, the body in OUT; prints the status.
	post() {
		curl -sS --cacert "$dir/ca/ca.crt" -H 'Content-Type: application/json' \
			--data-binary "@$1" -o "$2" -w '%{http_code}' "$url/mutate" 2>/dev/null
	}
	for r in $reviews; do
		code=$(post "$dir/review-$r.json" "$dir/served-$r.json")
		if [ "$code" != 200 ]; then
			fail "$arch: review $r: HTTP $code"
		else
			check "$arch: review $r: the webhook in the image answers byte for byte as the host's gpumend review" \
				cmp -s "$dir/host-$r.json" "$dir/served-$r.json"
		fi
	done

	# SIGTERM while a slow request is in flight.
	review v1 uid-slow "$data/legacy-pod.json" >"$dir/slow.json"
	head -c 150000 /dev/zero | tr '\0' ' ' >>"$dir/slow.json"
	curl -sS --cacert "$dir/ca/ca.crt" -H 'Content-Type: application/json' \
		--limit-rate 100k --data-binary @"$dir/slow.json" -o "$dir/slow.resp" \
		-w '%{http_code}' "$url/mutate" >"$dir/slow.code" 2>"$dir/slow.err" &
	slow_pid=$!
	sleep 0.6
	sh "$webhook_sh" stop "$dir/wh" 30
	status=$?
	wait "$slow_pid"
	check "$arch: SIGTERM: the request in flight completes with 200" [ "$(cat "$dir/slow.code")" = 200 ]
	check "$arch: SIGTERM: and its answer is whole" \
		jq_true '.response.uid == "uid-slow" and .response.allowed' "$dir/slow.resp"
	check "$arch: SIGTERM: drained, logged" grep -q '"msg":"draining"' "$dir/wh/webhook.log"
	check "$arch: SIGTERM: exit 0" [ "$status" = 0 ]
	check "$arch: SIGTERM: its container is removed" \
		sh -c "! buildah containers -q --notruncate | grep -q '$(cat "$dir/wh/container")'"
	rm -f "$dir/wh/runner"

	# A config file (-c), mounted from its directory.
	mkdir -p "$dir/config"
	cp "$data/deny.yaml" "$dir/config/deny.yaml"
	chmod 0755 "$dir/config"
	chmod 0644 "$dir/config/deny.yaml"
	"$GPUMEND" review -c "$dir/config/deny.yaml" "$dir/review-legacy-v1.json" >"$dir/host-deny.json" 2>&1
	if port=$(sh "$webhook_sh" start "$dir/wh" "$dir/tls" -c "$dir/config/deny.yaml" 2>"$dir/start.err"); then
		url="https://127.0.0.1:$port"
		code=$(post "$dir/review-legacy-v1.json" "$dir/served-deny.json")
		check "$arch: -c deny.yaml: answered as gpumend review -c (HTTP $code)" \
			cmp -s "$dir/host-deny.json" "$dir/served-deny.json"
		check "$arch: -c deny.yaml: the pod is refused" \
			jq_true '.response.allowed == false' "$dir/served-deny.json"
		sh "$webhook_sh" stop "$dir/wh"
		check "$arch: -c deny.yaml: stops with exit 0" [ $? = 0 ]
		rm -f "$dir/wh/runner"
	else
		fail "$arch: -c deny.yaml: the webhook starts: $(tail -n 3 "$dir/start.err")"
	fi

}

for arch in $IMAGE_ARCHES; do
	test_arch "$arch"
done
IMAGE=$list

# ------------------------------------------------------------------
# Publishing: push to a registry on 127.0.0.1, pull it back, and point
# the manifests at it.

registry_start() {
	(image_need docker-registry docker-registry) || return 1
	_try=0
	while [ $_try -lt 5 ]; do
		_try=$((_try + 1))
		registry_port=$(awk 'BEGIN { srand(); print 20000 + int(rand() * 40000) }')
		mkdir -p "$dir/registry/data"
		cat >"$dir/registry/config.yml" <<EOF
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $dir/registry/data
http:
  addr: 127.0.0.1:$registry_port
EOF
		timeout 600 docker-registry serve "$dir/registry/config.yml" \
			>"$dir/registry/log" 2>&1 &
		registry_pid=$!
		_i=0
		while [ $_i -lt 100 ] && kill -0 "$registry_pid" 2>/dev/null; do
			curl -sf "http://127.0.0.1:$registry_port/v2/" >/dev/null 2>&1 && return 0
			sleep 0.1
			_i=$((_i + 1))
		done
		kill "$registry_pid" 2>/dev/null
		registry_pid=""
	done
	return 1
}

make -s --no-print-directory -C "$REPO_DIR" image-push REGISTRY= >/dev/null 2>"$dir/err"
rc=$?
check "make image-push without REGISTRY: exit 2, says how to name it" \
	sh -c "[ $rc = 2 ] && grep -q 'REGISTRY=' '$dir/err'"
if ! registry_start; then
	fail "a registry on 127.0.0.1 (docker-registry) starts: $(tail -n 3 "$dir/registry/log" 2>/dev/null)"
else
	ref="127.0.0.1:$registry_port/gpumend:$IMAGE_VERSION"
	check "make image-push REGISTRY=127.0.0.1:$registry_port pushes $IMAGE as $ref" \
		make -s --no-print-directory -C "$REPO_DIR" image-push IMAGE="$IMAGE" \
		REGISTRY="127.0.0.1:$registry_port" TLS_VERIFY=false
	check "the registry lists the tag" sh -c \
		"curl -sf 'http://127.0.0.1:$registry_port/v2/gpumend/tags/list' | jq -e '.tags | index(\"$IMAGE_VERSION\")' >/dev/null"
	curl -sf -H 'Accept: application/vnd.oci.image.index.v1+json' \
		-H 'Accept: application/vnd.docker.distribution.manifest.list.v2+json' \
		"http://127.0.0.1:$registry_port/v2/gpumend/manifests/$IMAGE_VERSION" >"$dir/pushed.json"
	check "the registry serves the tag as a list of $(image_platforms)" \
		[ "$(jq -r '[.manifests[].platform | "\(.os)/\(.architecture)"] | join(", ")' \
			"$dir/pushed.json" 2>/dev/null)" = "$(image_platforms)" ]
	# Each platform's image, read back from the registry (not pulled:
	# a pull into this storage would rewrite what the list records):
	# its configuration is the local image's (the image ID is the
	# digest of the configuration).
	for arch in $IMAGE_ARCHES; do
		digest=$(jq -r --arg a "$arch" \
			'.manifests[] | select(.platform.architecture == $a) | .digest' "$dir/pushed.json")
		config=$(curl -sf -H 'Accept: application/vnd.oci.image.manifest.v1+json' \
			-H 'Accept: application/vnd.docker.distribution.manifest.v2+json' \
			"http://127.0.0.1:$registry_port/v2/gpumend/manifests/$digest" | jq -r .config.digest)
		check "read back for linux/$arch: $(image_of "$arch") (its configuration $config)" \
			[ "$config" = "sha256:$(buildah inspect --type image --format '{{.FromImageID}}' "$(image_of "$arch")")" ]
	done
	kill "$registry_pid" 2>/dev/null
	wait "$registry_pid" 2>/dev/null
	registry_pid=""
fi

if kustomize=$(sh "$TESTS_DIR/tools/get.sh" kustomize 2>"$dir/err"); then
	cp -r "$REPO_DIR/manifests" "$dir/manifests"
	new="registry.example.com/gpumend:$IMAGE_VERSION"
	if (cd "$dir/manifests/base" && "$kustomize" edit set image "gpumend=$new") 2>"$dir/err"; then
		"$kustomize" build "$dir/manifests/base" >"$dir/built.yaml" 2>"$dir/err"
		check "kustomize edit set image: the Deployment runs $new" \
			[ "$(sed -n 's/^ *image: *//p' "$dir/built.yaml")" = "$new" ]
	else
		fail "kustomize edit set image: $(tail -n 1 "$dir/err")"
	fi
else
	fail "kustomize cannot be had: $(tail -n 1 "$dir/err")"
fi

finish image
