# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/image/lib.sh - shared by the image scripts (sourced, POSIX sh):
# the names, messages, and the tools installed when missing.

: "${GPUMEND_CACHE:=${HOME:-/root}/.cache/gpumend}"
# IMAGE_DIR: this folder (from the sourcing script's path unless set).
: "${IMAGE_DIR:=$(cd "$(dirname "$0")" && pwd)}"
IMAGE_REPO=$(cd "$IMAGE_DIR/../.." && pwd)
# The version the sources declare; the image's default tag.
IMAGE_VERSION=$(cat "$IMAGE_REPO/VERSION")
: "${IMAGE:=gpumend:$IMAGE_VERSION}"
# What the Dockerfile's FROM debian:12-slim resolves to.
BASE_IMAGE=docker.io/library/debian:12-slim

image_say() { echo "image: $*" >&2; }
image_die() { echo "image: error: $*" >&2; exit 1; }

# image_need COMMAND PACKAGE: installs the Debian package when the command
# is missing (as root, like the Makefile's deps); fails otherwise.
image_need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	[ "$(id -u)" = 0 ] ||
		image_die "'$1' not found: run as root or install the Debian package $2"
	image_say "installing $2"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "$2" >/dev/null 2>&1 || {
		apt-get update -qq >/dev/null 2>&1 &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
				--no-install-recommends "$2" >/dev/null
	} || image_die "cannot install $2"
	command -v "$1" >/dev/null 2>&1 || image_die "'$1' not found after installing $2"
}

# image_exists NAME: whether buildah's local storage holds the image.
image_exists() {
	buildah inspect --type image "$1" >/dev/null 2>&1
}

# image_container: a new working container of $IMAGE, mounted, with the
# mount points made that image_run needs (in the container's own layer,
# never in the image); sets $image_ctr and $image_root.
image_container() {
	image_ctr=$(buildah from --pull=never --quiet "$IMAGE") || {
		image_say "buildah from $IMAGE failed"
		return 1
	}
	image_root=$(buildah mount "$image_ctr") &&
		mkdir -p "$image_root/tls" "$image_root/config" "$image_root/etc" &&
		touch "$image_root/etc/hosts" "$image_root/etc/hostname" \
			"$image_root/etc/resolv.conf" || {
		image_say "cannot prepare container $image_ctr"
		buildah rm "$image_ctr" >/dev/null 2>&1
		return 1
	}
}

# image_run [FLAG...] -- COMMAND [ARG...]: runs COMMAND in $image_ctr as
# the Deployment runs the image: user and group 65532, each of the
# image's own directories read-only (a read-only root filesystem), with
# chroot isolation (no OCI runtime needed; the host's network). FLAGs are
# further `buildah run` flags (-v HOST:DIR:ro...). Exits as COMMAND does.
image_run() {
	# The container's name goes before "--": the arguments are rebuilt
	# in place.
	_n=$#
	_seen=""
	while [ "$_n" -gt 0 ]; do
		_a=$1
		shift
		_n=$((_n - 1))
		if [ "$_a" = "--" ] && [ -z "$_seen" ]; then
			_seen=1
			set -- "$@" "$image_ctr"
		fi
		set -- "$@" "$_a"
	done
	for _d in "$image_root"/*; do
		[ -d "$_d" ] && [ ! -L "$_d" ] || continue
		case ${_d##*/} in dev | proc | sys | run | tls | config) continue ;; esac
		set -- -v "$_d:/${_d##*/}:ro" "$@"
	done
	buildah run --isolation chroot --user 65532:65532 "$@"
}
