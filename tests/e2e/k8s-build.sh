#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/k8s-build.sh - kube-apiserver, kube-scheduler and
# kube-controller-manager for the end-to-end suite, built once from Debian's
# kubernetes source package and cached outside the repository.
#
#   sh tests/e2e/k8s-build.sh        prints the directory holding the three
#
# The cache is $GPUMEND_CACHE (default ~/.cache/gpumend), one directory per
# Kubernetes version: kubernetes-<version>/ with both binaries and a
# `complete` stamp written last. A cached version is used at once, without
# touching the network. Otherwise, as root and from Debian's mirrors only:
#   - a deb-src entry for bookworm main, on the mirror the machine's own apt
#     sources use, is added (its own file under /etc/apt/sources.list.d/),
#     then `apt-get source kubernetes`, whose
#     tarball ships the full vendor/ tree, so the build runs offline;
#   - the vendored github.com/modern-go/reflect2 (1.0.1) is replaced by
#     Debian's 1.0.2: with Go >= 1.18, 1.0.1 crashes the apiserver (SIGSEGV
#     in map iteration) on the first JSON patch a webhook returns;
#   - one `make WHAT="cmd/kube-apiserver cmd/kube-scheduler
#     cmd/kube-controller-manager"` in GOPATH mode, in a temporary directory
#     that is removed afterwards (about 15 minutes and 1.5 GB of memory on
#     2 cores).
# The build log is kept as $GPUMEND_CACHE/kubernetes-build.log on failure.
#
# E2E_K8S_VERSION (default 1.20.2) is the version looked up in the cache;
# when Debian's source is another version, that one is built and cached
# under its own name. Exit status 0 on success, 1 on failure (the reason on
# stderr).
set -u

: "${GPUMEND_CACHE:=${HOME:-/root}/.cache/gpumend}"
: "${E2E_K8S_VERSION:=1.20.2}"
export DEBIAN_FRONTEND=noninteractive

say() { echo "e2e: $*" >&2; }
die() { echo "e2e: error: $*" >&2; exit 1; }

# cached VERSION: succeeds, printing the directory, when VERSION is built.
cached() {
	_d="$GPUMEND_CACHE/kubernetes-$1"
	for _b in kube-apiserver kube-scheduler kube-controller-manager; do
		[ -x "$_d/$_b" ] || return 1
	done
	[ -f "$_d/complete" ] || return 1
	echo "$_d"
}

cached "$E2E_K8S_VERSION" && exit 0

[ "$(id -u)" = 0 ] || die "kube-apiserver $E2E_K8S_VERSION is not cached in $GPUMEND_CACHE; building it needs root (apt-get)"
mkdir -p "$GPUMEND_CACHE" || die "cannot create $GPUMEND_CACHE"

# one build at a time; the loser of the race finds the winner's cache
exec 9>"$GPUMEND_CACHE/.build.lock"
flock 9 || die "cannot lock $GPUMEND_CACHE/.build.lock"
cached "$E2E_K8S_VERSION" && exit 0

say "building kube-apiserver, kube-scheduler and kube-controller-manager from Debian's kubernetes source (once, about 15 minutes)"
src_list=/etc/apt/sources.list.d/gpumend-e2e-deb-src.sources
if ! apt-cache showsrc kubernetes 2>/dev/null | grep -q '^Version:'; then
	. "$(dirname "$0")/../tools/apt.sh"
	mirror=$(apt_debian_mirror) ||
		die "no Debian archive in the apt sources (/etc/apt/sources.list*) to fetch the kubernetes source from"
	cat >"$src_list" <<SRC || die "cannot write $src_list"
# Added by gpumend's end-to-end tests (tests/e2e/k8s-build.sh): the source
# of Debian's kubernetes package, to build the control plane for the tests.
Types: deb-src
URIs: $mirror
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	apt-get update -qq >&2 || die "apt-get update failed"
fi
# Debian's Go (1.19 on Debian 12), whatever else is on PATH
installed() {
	dpkg-query -W -f '${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}
pkgs=""
installed golang-go || pkgs="$pkgs golang-go"
command -v rsync >/dev/null 2>&1 || pkgs="$pkgs rsync"
command -v dpkg-source >/dev/null 2>&1 || pkgs="$pkgs dpkg-dev"
command -v make >/dev/null 2>&1 || pkgs="$pkgs make"
[ -d /usr/share/gocode/src/github.com/modern-go/reflect2 ] ||
	pkgs="$pkgs golang-github-modern-go-reflect2-dev"
if [ -n "$pkgs" ]; then
	say "installing$pkgs"
	apt-get install -y -qq $pkgs >"$GPUMEND_CACHE/apt.log" 2>&1 ||
		{ apt-get update -qq >&2 && apt-get install -y -qq $pkgs >"$GPUMEND_CACHE/apt.log" 2>&1; } ||
		die "apt-get install$pkgs failed (see $GPUMEND_CACHE/apt.log)"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gpumend-k8s-build.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP
log="$work/build.log"

# fail MESSAGE: keeps the log, says where, exits 1
fail_build() {
	cp "$log" "$GPUMEND_CACHE/kubernetes-build.log" 2>/dev/null
	tail -n 30 "$log" >&2 2>/dev/null
	die "$1 (log: $GPUMEND_CACHE/kubernetes-build.log)"
}

cd "$work" || die "cannot enter $work"
# _apt cannot write to a root-only temporary directory
chmod 755 "$work"
say "apt-get source kubernetes"
apt-get source -qq --download-only kubernetes >"$log" 2>&1 || fail_build "apt-get source kubernetes failed"
dsc=$(ls kubernetes_*.dsc 2>/dev/null | head -n 1)
[ -n "$dsc" ] || fail_build "no kubernetes .dsc downloaded"
dpkg-source -x "$dsc" src >>"$log" 2>&1 || fail_build "dpkg-source -x failed"

# Debian's version is like 1.20.5+really1.20.2-1.1+deb12u1: the upstream
# version is what follows "really", else what precedes the revision
deb_version=$(sed -n 's/^Version: //p' "$dsc")
version=$(echo "$deb_version" | sed -e 's/-[^-]*$//' -e 's/.*really//' -e 's/^[0-9]*://')
case "$version" in
[0-9]*.[0-9]*.[0-9]*) ;;
*) fail_build "cannot tell the upstream version of kubernetes $deb_version" ;;
esac
[ "$version" = "$E2E_K8S_VERSION" ] ||
	say "Debian's source is kubernetes $version ($deb_version), not $E2E_K8S_VERSION: using it"
if cached "$version"; then
	exit 0
fi

r2=src/vendor/github.com/modern-go/reflect2
[ -d "$r2" ] || fail_build "$r2 not in the source"
rm -f "$r2"/*.go
cp /usr/share/gocode/src/github.com/modern-go/reflect2/*.go "$r2/" ||
	fail_build "cannot copy Debian's reflect2 sources"

start=$(date +%s)
what="cmd/kube-apiserver cmd/kube-scheduler cmd/kube-controller-manager"
say "make WHAT=\"$what\""
(cd src && env -u GOFLAGS -u GO111MODULE -u GOPATH -u GOROOT CGO_ENABLED=0 \
	PATH="/usr/lib/go/bin:$PATH" \
	make WHAT="$what" >>"../build.log" 2>&1) ||
	fail_build "make WHAT=\"$what\" failed"
say "built in $(($(date +%s) - start)) s"

dest="$GPUMEND_CACHE/kubernetes-$version"
rm -rf "$dest.tmp"
mkdir -p "$dest.tmp" &&
	cp src/_output/bin/kube-apiserver src/_output/bin/kube-scheduler \
		src/_output/bin/kube-controller-manager "$dest.tmp/" &&
	echo "kubernetes $version from Debian source $deb_version, reflect2 $(dpkg-query -W -f '${Version}' golang-github-modern-go-reflect2-dev 2>/dev/null), $(/usr/lib/go/bin/go version)" \
		>"$dest.tmp/complete" ||
	fail_build "cannot write $dest.tmp"
rm -rf "$dest"
mv "$dest.tmp" "$dest" || fail_build "cannot move the binaries to $dest"
cached "$version"
