#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/image/rootfs.sh ARCH - the image's root for Debian architecture
# ARCH (amd64, arm64), made on this machine for the Dockerfile to copy
# (`make image`; no RUN step, so no emulation is needed for a foreign
# architecture):
#
#   build-image/ARCH/rootfs/
#     usr/local/bin/gpumend, gpumend-webhook   stripped, built for ARCH
#     the program interpreter and the shared libraries they load, each
#       under its soname in its own directory (the loader's default
#       search path, so no ld.so.cache is needed)
#     var/lib/dpkg/status.d/PACKAGE            the Debian package of each
#       library, as dpkg records it (as distroless images do, so that
#       image scanners see them), with usr/share/doc/PACKAGE/copyright
#     etc/passwd, etc/group                    root and nonroot (65532)
#
# The machine's own architecture is built in $GPUMEND_BUILD (default
# build/, what `make` builds); another is cross-compiled in
# build-image/ARCH with gcc-TRIPLET and Debian's multiarch -dev packages
# (ARCH added to dpkg's architectures), installed when missing (as root),
# as `make dist` does for the static CLIs. The libraries are found by
# reading the ELF files (readelf), never by running them.
set -eu
. "$(dirname "$0")/lib.sh"
. "$IMAGE_REPO/tests/tools/apt.sh"

[ $# = 1 ] || image_die "usage: tests/image/rootfs.sh ARCH"
arch=$1
native=$(dpkg --print-architecture)
triplet=$(dpkg-architecture -a "$arch" -qDEB_HOST_MULTIARCH 2>/dev/null) ||
	image_die "unknown Debian architecture '$arch'"
cd "$IMAGE_REPO"
: "${MAKE:=make}"

libs="libjansson-dev libyaml-dev libssl-dev libmicrohttpd-dev libgnutls28-dev"
if [ "$arch" = "$native" ]; then
	build=${GPUMEND_BUILD:-build}
	cc=cc
	strip=strip
	need=""
else
	build=build-image/$arch
	cc=$triplet-gcc
	strip=$triplet-strip
	need="gcc-$triplet libc6-dev-$arch-cross"
fi
for p in $libs; do
	need="$need $p:$arch"
done
# shellcheck disable=SC2086
apt_need image $need || image_die "cannot install the $arch build packages"

revision=$($MAKE -s --no-print-directory revision)
log=build-image/$arch.log
mkdir -p build-image
image_say "building gpumend and gpumend-webhook for linux/$arch in $build ($cc)"
if ! $MAKE --no-print-directory BUILD="$build" CC="$cc" REVISION="$revision" \
	PKG_CONFIG="env PKG_CONFIG_LIBDIR=/usr/lib/$triplet/pkgconfig:/usr/share/pkgconfig pkg-config" \
	"$build/gpumend" "$build/gpumend-webhook" >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	image_die "building for $arch failed (log: $log)"
fi

umask 022
root=build-image/$arch/rootfs
rm -rf "$root"
mkdir -p "$root/usr/local/bin"
for b in gpumend gpumend-webhook; do
	"$strip" -o "$root/usr/local/bin/$b" "$build/$b" || image_die "$strip $build/$b failed"
done

# The program interpreter, then the NEEDED libraries, transitively, each
# found in the multiarch directories of ARCH.
work=$(mktemp -d "${TMPDIR:-/tmp}/gpumend-rootfs.XXXXXX")
trap 'rm -rf "$work"' EXIT
bins="$root/usr/local/bin/gpumend $root/usr/local/bin/gpumend-webhook"
# shellcheck disable=SC2086
interp=$(readelf -l $bins | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p' | sort -u)
[ -n "$interp" ] && [ "$(echo "$interp" | wc -l)" = 1 ] ||
	image_die "expected one program interpreter, found '$interp'"
echo "$interp" >"$work/libs"
: >"$work/seen"
todo=$bins
while [ -n "$todo" ]; do
	# shellcheck disable=SC2086
	needed=$(readelf -d $todo | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | sort -u)
	todo=""
	for so in $needed; do
		# the interpreter, which libc names, is there already
		[ "$so" != "${interp##*/}" ] || continue
		grep -qx "$so" "$work/seen" && continue
		echo "$so" >>"$work/seen"
		found=""
		for d in /lib/$triplet /usr/lib/$triplet; do
			if [ -e "$d/$so" ]; then
				found=$d/$so
				break
			fi
		done
		[ -n "$found" ] || image_die "$so (for $arch) not found in /usr/lib/$triplet"
		echo "$found" >>"$work/libs"
		todo="$todo $found"
	done
done

: >"$work/pkgs"
while read -r lib; do
	real=$(readlink -f "$lib")
	dest=$(dirname "$real")/$(basename "$lib")
	[ "$lib" != "$interp" ] || dest=$lib
	mkdir -p "$root$(dirname "$dest")"
	cp "$real" "$root$dest"
	{ dpkg -S "$lib" 2>/dev/null || dpkg -S "$real"; } | sed -n '1s/[:,].*//p' >>"$work/pkgs"
done <"$work/libs"
mkdir -p "$root/var/lib/dpkg/status.d"
for pkg in $(sort -u "$work/pkgs"); do
	dpkg-query -s "$pkg:$arch" >"$root/var/lib/dpkg/status.d/$pkg" ||
		image_die "dpkg-query -s $pkg:$arch failed"
	mkdir -p "$root/usr/share/doc/$pkg"
	cp "/usr/share/doc/$pkg/copyright" "$root/usr/share/doc/$pkg/"
done
mkdir -p "$root/etc"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin\n' \
	>"$root/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$root/etc/group"
image_say "root for linux/$arch in $root: $(du -sk "$root" | cut -f1) KiB," \
	"$(sort -u "$work/pkgs" | wc -l) packages"
