# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/image/lib.sh - shared by the image scripts (sourced, POSIX sh):
# the names, messages, and the tools installed when missing.

# IMAGE_DIR: this folder (from the sourcing script's path unless set).
: "${IMAGE_DIR:=$(cd "$(dirname "$0")" && pwd)}"
IMAGE_REPO=$(cd "$IMAGE_DIR/../.." && pwd)
# The version the sources declare; the image's default tag.
IMAGE_VERSION=$(cat "$IMAGE_REPO/VERSION")
# IMAGE is the manifest list; its image for ARCH is IMAGE-ARCH
# (image_of). Where buildah runs IMAGE, it takes this machine's one.
: "${IMAGE:=gpumend:$IMAGE_VERSION}"
: "${IMAGE_ARCHES:=amd64 arm64}"

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

# image_of ARCH: the name of the image for ARCH.
image_of() {
	echo "$IMAGE-$1"
}

# image_stored NAME: NAME as local storage knows it. buildah keeps a name
# without a registry as localhost/NAME, and the containers-storage
# transport would read a short name as docker.io/library/NAME.
image_stored() {
	case $1 in
	*/*) case ${1%%/*} in *.* | *:* | localhost) echo "$1"; return ;; esac ;;
	esac
	echo "localhost/$1"
}

# image_platforms: the platforms of IMAGE_ARCHES, "linux/amd64, ...".
image_platforms() {
	for _a in $IMAGE_ARCHES; do printf 'linux/%s\n' "$_a"; done | paste -sd, - | sed 's/,/, /g'
}

# image_qemu ARCH: the qemu user-mode emulator that runs ARCH's programs
# on this machine (qemu-user-static, installed when missing): prints its
# path; nothing for this machine's own architecture. Called explicitly:
# binfmt_misc may not be mounted.
image_qemu() {
	[ "$1" != "$(dpkg --print-architecture)" ] || return 0
	case $1 in
	arm64) _q=qemu-aarch64-static ;;
	amd64) _q=qemu-x86_64-static ;;
	*) image_die "no qemu for architecture '$1'" ;;
	esac
	image_need "$_q" qemu-user-static
	command -v "$_q"
}

# image_exists NAME: whether buildah's local storage holds the image.
image_exists() {
	buildah inspect --type image "$1" >/dev/null 2>&1
}

# image_container: a new working container of $IMAGE, mounted, with the
# mount points made that image_run needs (in the container's own layer,
# never in the image); sets $image_ctr, $image_root, $image_arch (the
# image's architecture) and $image_emu (the host's qemu for it, which
# image_run mounts at /$image_emu's name; empty for this machine's own).
image_container() {
	image_arch=$(buildah inspect --type image --format '{{.OCIv1.Architecture}}' "$IMAGE") &&
		image_emu=$(image_qemu "$image_arch") || {
		image_say "cannot tell the architecture of $IMAGE, or run it"
		return 1
	}
	image_ctr=$(buildah from --pull=never --quiet --arch "$image_arch" "$IMAGE") || {
		image_say "buildah from $IMAGE failed"
		return 1
	}
	image_root=$(buildah mount "$image_ctr") &&
		mkdir -p "$image_root/tls" "$image_root/config" "$image_root/etc" &&
		touch "$image_root/etc/hosts" "$image_root/etc/hostname" \
			"$image_root/etc/resolv.conf" &&
		{ [ -z "$image_emu" ] || touch "$image_root/${image_emu##*/}"; } || {
		image_say "cannot prepare container $image_ctr"
		buildah rm "$image_ctr" >/dev/null 2>&1
		return 1
	}
}

# image_run [FLAG...] -- COMMAND [ARG...]: runs COMMAND in $image_ctr as
# the Deployment runs the image: user and group 65532, each of the
# image's own directories read-only (a read-only root filesystem), with
# chroot isolation (no OCI runtime needed; the host's network). FLAGs are
# further `buildah run` flags (-v HOST:DIR:ro...). For a foreign
# architecture ($image_emu set), COMMAND runs under that qemu, mounted
# read-only at its mount point, COMMAND's path taken from the image's
# PATH (/usr/local/bin) when it has no slash. Exits as COMMAND does.
image_run() {
	# The container's name goes before "--": the arguments are rebuilt
	# in place.
	_n=$#
	_seen=""
	while [ "$_n" -gt 0 ]; do
		_a=$1
		shift
		_n=$((_n - 1))
		if [ "$_seen" = 1 ]; then
			_seen=2
			case $_a in */*) ;; *) _a=/usr/local/bin/$_a ;; esac
			set -- "$@" "/${image_emu##*/}"
		elif [ "$_a" = "--" ] && [ -z "$_seen" ]; then
			_seen=2
			[ -z "${image_emu:-}" ] || _seen=1
			set -- "$@" "$image_ctr"
		fi
		set -- "$@" "$_a"
	done
	for _d in "$image_root"/*; do
		[ -d "$_d" ] && [ ! -L "$_d" ] || continue
		case ${_d##*/} in dev | proc | sys | run | tls | config) continue ;; esac
		set -- -v "$_d:/${_d##*/}:ro" "$@"
	done
	[ -z "${image_emu:-}" ] || set -- -v "$image_emu:/${image_emu##*/}:ro" "$@"
	buildah run --isolation chroot --user 65532:65532 "$@"
}
