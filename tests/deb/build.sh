#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
#
# tests/deb/build.sh - `make deb`: the Debian package, dist/gpumend_VERSION-N_ARCH.deb,
# built by `dpkg-buildpackage -b -us -uc` from debian/ in a copy of the
# committed tree (git archive of HEAD plus a REVISION file, as the source
# tarball; uncommitted changes are not in it), in build-deb/pkg/, then
# checked by lintian: an error fails the build; every warning left is
# printed (docs/install.md explains them). The tools (dpkg-dev,
# debhelper, lintian) and the Build-Depends are installed when missing,
# as root.
set -eu
REPO_DIR=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO_DIR"
: "${MAKE:=make}"
VERSION=$(cat VERSION)
DEB_VERSION=$(sed -n '1s/^gpumend (\([^)]*\)).*/\1/p' debian/changelog)
ARCH=$(dpkg --print-architecture)
DEB=gpumend_${DEB_VERSION}_$ARCH.deb
WORK=build-deb/pkg
TOOLS="dpkg-dev debhelper lintian fakeroot"
BUILD_DEPENDS="pkg-config libjansson-dev libyaml-dev libmicrohttpd-dev libssl-dev libgnutls28-dev"

say() { echo "deb: $*" >&2; }
die() {
	echo "deb: error: $*" >&2
	exit 1
}
since() { echo "$(($(date +%s) - $1)) s"; }

case $DEB_VERSION in
"$VERSION"-[0-9]*) ;;
*) die "debian/changelog's version $DEB_VERSION is not VERSION ($VERSION)-N" ;;
esac

t0=$(date +%s)
need=""
for p in $TOOLS $BUILD_DEPENDS; do
	[ "$(dpkg-query -W -f='${Status}' "$p:$ARCH" 2>/dev/null || dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = \
		"install ok installed" ] || need="$need $p"
done
if [ -n "$need" ]; then
	[ "$(id -u)" = 0 ] || die "run as root, or install:$need"
	say "installing$need"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq $need >/dev/null 2>&1 ||
		{ apt-get -o DPkg::Lock::Timeout=600 update -qq &&
			DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq $need >/dev/null; } ||
		die "apt-get install$need failed"
fi
say "set-up: $(since "$t0")"

t0=$(date +%s)
revision=$($MAKE -s --no-print-directory revision)
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	say "note: uncommitted changes are not in the package, only commit $revision"
fi
rm -rf "$WORK"
mkdir -p "$WORK"
printf '%s\n' "$revision" >"$WORK/REVISION"
git archive --format=tar --prefix="gpumend-$VERSION/" --add-file="$WORK/REVISION" HEAD |
	tar -x -C "$WORK" || die "git archive failed"
say "building $DEB (dpkg-buildpackage -b -us -uc; log: $WORK/build.log)"
(cd "$WORK/gpumend-$VERSION" && dpkg-buildpackage -b -us -uc) >"$WORK/build.log" 2>&1 || {
	tail -n 30 "$WORK/build.log" >&2
	die "dpkg-buildpackage failed (log: $WORK/build.log)"
}
[ -f "$WORK/$DEB" ] || die "dpkg-buildpackage made no $DEB"
say "built in $(since "$t0")"

t0=$(date +%s)
rc=0
lintian --fail-on error --display-info "$WORK/$DEB" >"$WORK/lintian.log" 2>&1 || rc=$?
sed 's/^/deb: lintian: /' "$WORK/lintian.log" >&2
[ "$rc" = 0 ] || die "lintian reports errors (above)"
say "lintian: no error, $(grep -c '^W: ' "$WORK/lintian.log") warnings, $(grep -c '^I: ' "$WORK/lintian.log") notes ($(since "$t0"))"

mkdir -p dist
cp "$WORK/$DEB" "dist/$DEB"
# the copy of the tree is not needed any more (the logs stay)
rm -rf "$WORK/gpumend-$VERSION"
say "dist/$DEB: $(stat -c %s "dist/$DEB") bytes"
