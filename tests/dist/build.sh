#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
#
# tests/dist/build.sh - `make dist`: the release artefacts, in dist/:
#
#   gpumend-VERSION.tar.gz        the source: `git archive` of HEAD, plus a
#                                 REVISION file (a tarball has no .git; the
#                                 Makefile reads it)
#   gpumend-VERSION.tgz           the Helm chart charts/gpumend as `helm
#                                 package` lays it out (gpumend/...), from
#                                 HEAD; its Chart.yaml names VERSION
#   gpumend-VERSION-linux-amd64   the gpumend CLI, statically linked
#   gpumend-VERSION-linux-arm64   the same for arm64, cross-compiled
#   NOTICES                       THIRD_PARTY_NOTICES, the Debian package
#                                 and version of every library linked into
#                                 the static CLIs, and their copyright files
#   SHA256SUMS                    sha256sum of each of the above
#
# The static CLIs link only the CLI's libraries (jansson, libyaml,
# libcrypto) and glibc, from Debian's -dev packages: the amd64 ones of the
# build machine, the arm64 ones through Debian's multiarch (arm64 added to
# dpkg's architectures, libjansson-dev:arm64 etc.) and
# gcc-aarch64-linux-gnu. The set-up is idempotent: what is there already is
# not touched; what is missing is installed with apt-get (as root). Each
# build goes to its own folder (build-dist/ARCH), so a rebuild redoes only
# what changed. Committed files only: uncommitted changes are not in the
# tarball (a note says so), though they are in the binaries.
#
# `make dist-test` (tests/dist/test.sh) tests what this makes.
set -eu
REPO_DIR=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO_DIR"
. tests/tools/apt.sh
: "${MAKE:=make}"
DIST=dist
VERSION=$(cat VERSION)
# what the artefacts need: the native static libraries (the Makefile's
# deps), the cross compiler, the arm64 libraries, and qemu for the test
NATIVE_ARCH=$(dpkg --print-architecture 2>/dev/null)
NATIVE_PKGS="libjansson-dev:$NATIVE_ARCH libyaml-dev:$NATIVE_ARCH libssl-dev:$NATIVE_ARCH libc6-dev:$NATIVE_ARCH"
ARM64_PKGS="gcc-aarch64-linux-gnu libc6-dev-arm64-cross libjansson-dev:arm64 libyaml-dev:arm64 libssl-dev:arm64"
TEST_PKGS="qemu-user-static"

say() { echo "dist: $*" >&2; }
die() {
	echo "dist: error: $*" >&2
	exit 1
}
since() { echo "$(($(date +%s) - $1)) s"; }

# ------------------------------------------------------------- set-up
t0=$(date +%s)
command -v dpkg-query >/dev/null 2>&1 || die "not a Debian machine (no dpkg-query)"
# shellcheck disable=SC2086
apt_need dist $NATIVE_PKGS $ARM64_PKGS $TEST_PKGS || exit 1
say "set-up: $(since "$t0")"

revision=$($MAKE -s --no-print-directory revision)
mkdir -p "$DIST"
rm -f "$DIST"/gpumend-* "$DIST/NOTICES" "$DIST/SHA256SUMS"

# ------------------------------------------------------------- source
t0=$(date +%s)
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	say "note: uncommitted changes are not in the tarball, only commit $revision"
fi
printf '%s\n' "$revision" >"$DIST/REVISION"
git archive --format=tar --prefix="gpumend-$VERSION/" \
	--add-file="$DIST/REVISION" HEAD | gzip -n -9 >"$DIST/gpumend-$VERSION.tar.gz" ||
	die "git archive failed"
rm -f "$DIST/REVISION"
say "gpumend-$VERSION.tar.gz: $(since "$t0")"

# ------------------------------------------------------------- chart
chart_version=$(git show HEAD:charts/gpumend/Chart.yaml | sed -n 's/^version: *//p')
[ "$chart_version" = "$VERSION" ] ||
	die "charts/gpumend/Chart.yaml (HEAD) has version '$chart_version', VERSION $VERSION"
git archive --format=tar --prefix=gpumend/ HEAD:charts/gpumend |
	gzip -n -9 >"$DIST/gpumend-$VERSION.tgz" || die "git archive of the chart failed"
say "gpumend-$VERSION.tgz (the Helm chart)"

# ------------------------------------------------------ static CLIs
# static ARCH CC STRIP PKG_CONFIG_LIBDIR
static() {
	_t0=$(date +%s)
	_b=build-dist/$1
	$MAKE --no-print-directory BUILD="$_b" STATIC=1 CC="$2" OPT="-O2" \
		PKGS="jansson yaml-0.1 libcrypto" \
		REVISION="$revision" \
		PKG_CONFIG="env PKG_CONFIG_LIBDIR=$4 pkg-config" "$_b/gpumend" \
		>"build-dist/$1.log" 2>&1 || {
		tail -n 30 "build-dist/$1.log" >&2
		die "building the static $1 CLI failed (log: build-dist/$1.log)"
	}
	"$3" -o "$DIST/gpumend-$VERSION-linux-$1" "$_b/gpumend" ||
		die "$3 failed"
	say "gpumend-$VERSION-linux-$1: $(since "$_t0")"
}
mkdir -p build-dist
static amd64 cc strip /usr/lib/x86_64-linux-gnu/pkgconfig:/usr/share/pkgconfig
static arm64 aarch64-linux-gnu-gcc aarch64-linux-gnu-strip \
	/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig

# ------------------------------------------------------------ notices
# copyright PACKAGE: its copyright file (a -dev package's may be its
# library package's, through a symlinked doc folder)
{
	cat THIRD_PARTY_NOTICES
	echo
	echo "Linked into gpumend-$VERSION-linux-amd64 and -linux-arm64"
	echo "================================================================"
	echo
	printf '%-28s %-8s %-24s %s\n' PACKAGE ARCH VERSION "SOURCE PACKAGE"
	for p in $NATIVE_PKGS libjansson-dev:arm64 libyaml-dev:arm64 \
		libssl-dev:arm64 libc6-dev-arm64-cross; do
		dpkg-query -W -f='${Package} ${Architecture} ${Version} ${source:Package} ${source:Version}\n' "$p" |
			awk '{ printf "%-28s %-8s %-24s %s %s\n", $1, $2, $3, $4, $5 }'
	done
	echo
	echo "libc6-dev-arm64-cross is Debian's glibc $(dpkg-query -W -f='${Version}' libc6-dev-arm64-cross |
		sed 's/cross[0-9]*$//') built for arm64 by the cross-toolchain-base"
	echo "source package; its copyright file is glibc's, below."
	for p in $NATIVE_PKGS; do
		echo
		echo "----------------------------------------------------------------"
		echo "${p%%:*}: /usr/share/doc/${p%%:*}/copyright"
		echo "----------------------------------------------------------------"
		cat "/usr/share/doc/${p%%:*}/copyright"
	done
} >"$DIST/NOTICES" || die "cannot write $DIST/NOTICES"

# ---------------------------------------------------------- checksums
(cd "$DIST" && sha256sum "gpumend-$VERSION.tar.gz" "gpumend-$VERSION.tgz" \
	"gpumend-$VERSION-linux-amd64" "gpumend-$VERSION-linux-arm64" NOTICES >SHA256SUMS) ||
	die "sha256sum failed"

say "in $DIST/ (revision $revision):"
(cd "$DIST" && ls -l gpumend-* NOTICES SHA256SUMS | awk '{ printf "  %-32s %9d bytes\n", $9, $5 }') >&2
