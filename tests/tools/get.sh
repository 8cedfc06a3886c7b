#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/tools/get.sh TOOL... - the Kubernetes tools the tests and
# `make e2e` use, from the project's own set-up. Prints, one line per
# TOOL, the path of the binary to run; exits 1 (the reason on stderr,
# naming the step that failed) when one cannot be had.
#
#   kubectl     >= 1.27 (its built-in kustomize is v5: `labels`,
#               `replacements`, the manifests' `patches`)
#   kustomize   >= 5.0
#   celcheck    tests/cel/*.go built with cel-go, the API server's CEL
#               library (see below)
#   k8s-schemas the node_modules folder of tests/schema/package.json
#               (Kubernetes 1.36 validators, for tests/schema/validate.mjs)
#   sarif-multitool  Microsoft's SARIF validator, for tests/suites/ci.sh
#               (tests/sarif/package.json)
#
# A tool already on PATH is used when it is new enough. Otherwise the
# project's copy in $GPUMEND_CACHE/tools (default ~/.cache/gpumend/tools)
# is used, fetched once from Debian 13 (trixie), whose kubectl (1.32) and
# kustomize (5.6) are static Go binaries that need only libc6 >= 2.34,
# which Debian 12 has: `apt-get download` with a sources list of its own
# (trixie main, on the mirror the machine's apt sources already use), so
# the system's apt configuration and package state are never touched;
# then `dpkg-deb -x`. Debian 12's own kubernetes-client (kubectl 1.20) is
# never used: its `config set-credentials` panics and its kustomize v2
# cannot read the manifests.
#
# celcheck is always the project's: Debian 13's Go toolchain
# (golang-1.24-go, golang-1.24-src) and cel-go 0.18.2 with the Go source
# packages it imports (CEL_DEBS below), fetched once the same way into
# $GPUMEND_CACHE/go, then `go build` in GOPATH mode over their
# /usr/share/gocode (GO111MODULE=off, GOPROXY=off: no module proxy, nothing
# but Debian's archive). The binary is cached as
# $GPUMEND_CACHE/celcheck/celcheck-HASH, HASH being that of tests/cel/*.go
# and of the packages' versions, so it is built again only when they change;
# the binaries of other sources (other checkouts) go after a week unused.
#
# k8s-schemas and sarif-multitool are `npm ci` of tests/NAME/package.json
# and its lock file (NAME: schema, sarif), from the npm registry npm is
# set up for, into $GPUMEND_CACHE/NAME/HASH (HASH: that of the lock file),
# once; node and npm are the machine's (the Makefile's test-deps install
# Debian's).
#
# GPUMEND_TOOLS=project skips the tools on PATH (always the project's copy).
set -u

: "${GPUMEND_CACHE:=${HOME:-/root}/.cache/gpumend}"
TOOLS_DIR="$GPUMEND_CACHE/tools"
TOOLS_SUITE=trixie
HERE=$(cd "$(dirname "$0")" && pwd)
GO_DIR="$GPUMEND_CACHE/go"
GO_VERSION=1.24
CEL_DEBS="golang-$GO_VERSION-go golang-$GO_VERSION-src
	golang-github-google-cel-go-dev golang-github-antlr-antlr4-dev
	golang-github-stoewer-go-strcase-dev golang-golang-x-text-dev
	golang-golang-x-exp-dev golang-google-genproto-dev
	golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev
	golang-github-google-go-cmp-dev golang-gopkg-yaml.v3-dev"

say() { echo "tools: $*" >&2; }
die() { echo "tools: error: $*" >&2; exit 1; }

# version_of TOOL PATH: "MAJOR MINOR" of the binary, or nothing.
version_of() {
	case $1 in
	kubectl)
		"$2" version --client -o json 2>/dev/null |
			sed -n 's/.*"gitVersion": *"v\([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1 \2/p' | head -n 1
		;;
	kustomize)
		"$2" version 2>/dev/null |
			sed -n 's/.*v\([0-9][0-9]*\)\.\([0-9][0-9]*\)\..*/\1 \2/p' | head -n 1
		;;
	esac
}

# new_enough TOOL "MAJOR MINOR"
new_enough() {
	set -- "$1" $2
	[ $# -eq 3 ] || return 1
	case $1 in
	kubectl) [ "$2" -gt 1 ] || { [ "$2" -eq 1 ] && [ "$3" -ge 27 ]; } ;;
	kustomize) [ "$2" -ge 5 ] ;;
	*) return 1 ;;
	esac
}

# cached TOOL: prints the project's copy when it is there and runs.
cached() {
	_p="$TOOLS_DIR/bin/$1"
	[ -x "$_p" ] && [ -f "$TOOLS_DIR/complete" ] || return 1
	"$_p" --help >/dev/null 2>&1 || return 1
	echo "$_p"
}

# fetch_debs WHAT DEST PACKAGE...: downloads the PACKAGEs from Debian
# $TOOLS_SUITE and unpacks them into DEST/root (DEST made anew, under a
# lock of its own; the file DEST/debs lists the packages' files). WHAT
# names them in messages. The system's apt state is never touched.
fetch_debs() {
	_what=$1 _dest=$2
	shift 2
	. "$HERE/apt.sh"
	command -v apt-get >/dev/null 2>&1 || die "fetching $_what: no apt-get on this machine"
	command -v dpkg-deb >/dev/null 2>&1 || die "fetching $_what: no dpkg-deb on this machine"
	mirror=$(apt_debian_mirror) ||
		die "fetching $_what: no Debian archive in the apt sources (/etc/apt/sources.list*)"
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -f "$keyring" ] || die "fetching $_what: $keyring is missing (package debian-archive-keyring)"
	_w=$(mktemp -d "${TMPDIR:-/tmp}/gpumend-tools.XXXXXX") || die "mktemp failed"
	# _apt must be able to write the downloads
	chmod 755 "$_w"
	mkdir -p "$_w/lists/partial" "$_w/cache/archives/partial" "$_w/deb" "$_w/root"
	echo "deb [signed-by=$keyring] $mirror $TOOLS_SUITE main" >"$_w/sources.list"
	_o="-o Dir::Etc::sourcelist=$_w/sources.list -o Dir::Etc::sourceparts=-
	    -o Dir::State::Lists=$_w/lists -o Dir::Cache=$_w/cache
	    -o Dir::State::status=/dev/null -o APT::Get::List-Cleanup=0
	    -o Debug::NoLocking=1"
	say "fetching $_what from Debian $TOOLS_SUITE ($mirror), once"
	# shellcheck disable=SC2086
	apt-get $_o -qq update >"$_w/apt.log" 2>&1 || {
		tail -n 5 "$_w/apt.log" >&2
		rm -rf "$_w"
		die "fetching $_what: apt-get update of $mirror $TOOLS_SUITE failed"
	}
	# shellcheck disable=SC2086
	(cd "$_w/deb" && apt-get $_o -qq download "$@") >>"$_w/apt.log" 2>&1 || {
		tail -n 5 "$_w/apt.log" >&2
		rm -rf "$_w"
		die "fetching $_what: apt-get download $* failed"
	}
	for _d in "$_w"/deb/*.deb; do
		dpkg-deb -x "$_d" "$_w/root" || { rm -rf "$_w"; die "fetching $_what: dpkg-deb -x $(basename "$_d") failed"; }
	done
	rm -rf "$_dest"
	mkdir -p "$_dest" && mv "$_w/root" "$_dest/root" &&
		(cd "$_w/deb" && ls *.deb) >"$_dest/debs" || {
		rm -rf "$_w" "$_dest"
		die "cannot write $_dest"
	}
	rm -rf "$_w"
}

# lock NAME: holds $GPUMEND_CACHE/.NAME.lock (fd 8) until the script ends.
lock() {
	mkdir -p "$GPUMEND_CACHE" || die "cannot create $GPUMEND_CACHE"
	exec 8>"$GPUMEND_CACHE/.$1.lock"
	flock 8 2>/dev/null || true
}

# fetch: downloads and unpacks kubectl and kustomize into $TOOLS_DIR.
fetch() {
	lock tools
	# the winner of a race has filled the cache
	[ -f "$TOOLS_DIR/complete" ] && return 0
	fetch_debs "kubectl and kustomize" "$TOOLS_DIR.tmp" kubectl kustomize
	mkdir -p "$TOOLS_DIR.tmp/bin" &&
		mv "$TOOLS_DIR.tmp/root/usr/bin/kubectl" "$TOOLS_DIR.tmp/root/usr/bin/kustomize" "$TOOLS_DIR.tmp/bin/" &&
		rm -rf "$TOOLS_DIR.tmp/root" &&
		mv "$TOOLS_DIR.tmp/debs" "$TOOLS_DIR.tmp/complete" || {
		rm -rf "$TOOLS_DIR.tmp"
		die "cannot write $TOOLS_DIR.tmp"
	}
	rm -rf "$TOOLS_DIR"
	mv "$TOOLS_DIR.tmp" "$TOOLS_DIR" || die "cannot move the tools to $TOOLS_DIR"
	say "kubectl and kustomize in $TOOLS_DIR/bin ($(tr '\n' ' ' <"$TOOLS_DIR/complete"))"
}

# celcheck: prints the path of celcheck built from tests/cel/*.go,
# fetching Go and cel-go and building it when the cache lacks it.
celcheck() {
	_src="$HERE/../cel"
	ls "$_src"/*.go >/dev/null 2>&1 || die "celcheck: no sources in $_src"
	if [ ! -f "$GO_DIR/complete" ]; then
		lock go
		if [ ! -f "$GO_DIR/complete" ]; then
			# shellcheck disable=SC2086
			fetch_debs "Go $GO_VERSION and cel-go" "$GO_DIR.tmp" $CEL_DEBS
			mv "$GO_DIR.tmp/debs" "$GO_DIR.tmp/complete" &&
				rm -rf "$GO_DIR" && mv "$GO_DIR.tmp" "$GO_DIR" ||
				die "cannot move Go to $GO_DIR"
		fi
	fi
	_hash=$(cat "$_src"/*.go "$GO_DIR/complete" | sha256sum | cut -c1-16)
	_bin="$GPUMEND_CACHE/celcheck/celcheck-$_hash"
	if [ ! -x "$_bin" ]; then
		lock celcheck
		[ -x "$_bin" ] || build_celcheck "$_src" "$_bin"
	fi
	"$_bin" budget >/dev/null 2>&1 || die "celcheck: $_bin does not run on this machine"
	# used: kept another week
	touch "$_bin" 2>/dev/null
	echo "$_bin"
}

# build_celcheck SRC BIN: go build of SRC into BIN, in GOPATH mode over
# the unpacked Debian source packages (no module proxy, no network).
build_celcheck() {
	_root="$GO_DIR/root"
	_goroot="$_root/usr/lib/go-$GO_VERSION"
	[ -x "$_goroot/bin/go" ] || die "celcheck: no Go in $_goroot (remove $GO_DIR to fetch it again)"
	_gp=$(mktemp -d "${TMPDIR:-/tmp}/gpumend-celcheck.XXXXXX") || die "mktemp failed"
	mkdir -p "$_gp/src/celcheck" "$(dirname "$2")" &&
		cp "$1"/*.go "$_gp/src/celcheck/" || { rm -rf "$_gp"; die "celcheck: cannot copy the sources"; }
	say "building celcheck with Go $GO_VERSION and cel-go (once per change of tests/cel)"
	if ! (cd "$_gp/src/celcheck" &&
		env GOROOT="$_goroot" GOPATH="$_gp:$_root/usr/share/gocode" \
			GO111MODULE=off GOPROXY=off GOFLAGS= GOTOOLCHAIN=local \
			GOCACHE="$GPUMEND_CACHE/go-build" CGO_ENABLED=0 \
			"$_goroot/bin/go" build -trimpath -o "$2.tmp" .) >&2; then
		rm -rf "$_gp" "$2.tmp"
		die "celcheck: go build failed"
	fi
	rm -rf "$_gp"
	# the binaries of other sources go after a week unused: another
	# checkout (a worktree, a branch) may be running its own meanwhile
	find "$(dirname "$2")" -name 'celcheck-*' ! -name "$(basename "$2").tmp" -mtime +7 \
		-exec rm -f {} + 2>/dev/null
	mv "$2.tmp" "$2" || die "celcheck: cannot write $2"
}

# npm_folder NAME WHAT: prints the node_modules folder of tests/NAME,
# installed with `npm ci` of its package.json and committed lock file into
# $GPUMEND_CACHE/NAME/HASH when the cache lacks it. WHAT names it in
# messages. The system's certificate authorities are given to npm, those
# the machine added included (node's own list lacks them).
npm_folder() {
	_pkg="$HERE/../$1"
	command -v npm >/dev/null 2>&1 || die "$2: no npm (make test-deps installs it)"
	_hash=$(cat "$_pkg/package.json" "$_pkg/package-lock.json" | sha256sum | cut -c1-16)
	_dir="$GPUMEND_CACHE/$1/$_hash"
	if [ ! -f "$_dir/complete" ]; then
		lock "$1"
		if [ ! -f "$_dir/complete" ]; then
			say "installing $2 with npm ci, once"
			rm -rf "$_dir" && mkdir -p "$_dir" &&
				cp "$_pkg/package.json" "$_pkg/package-lock.json" "$_dir/" ||
				die "$2: cannot write $_dir"
			_cafile=""
			[ -f /etc/ssl/certs/ca-certificates.crt ] &&
				_cafile="--cafile=/etc/ssl/certs/ca-certificates.crt"
			# shellcheck disable=SC2086
			if ! (cd "$_dir" && npm ci --no-audit --no-fund --ignore-scripts \
				--loglevel=error $_cafile >npm.log 2>&1); then
				tail -n 5 "$_dir/npm.log" >&2
				rm -rf "$_dir"
				die "$2: npm ci failed"
			fi
			touch "$_dir/complete"
			# the folders of older lock files go
			for _old in "$GPUMEND_CACHE/$1"/*; do
				[ "$_old" = "$_dir" ] || rm -rf "$_old"
			done
		fi
	fi
	echo "$_dir/node_modules"
}

# sarif_multitool: prints the path of Microsoft's SARIF multitool
# (tests/sarif), made executable: its install script, which npm ci does
# not run, only does that.
sarif_multitool() {
	_m=$(npm_folder sarif "the SARIF multitool") || exit 1
	_m="$_m/@microsoft/sarif-multitool-linux/Sarif.Multitool"
	[ -f "$_m" ] || die "sarif-multitool: $_m is missing"
	chmod u+x "$_m" || die "sarif-multitool: cannot make $_m executable"
	echo "$_m"
}

[ $# -gt 0 ] || die "usage: get.sh kubectl|kustomize|celcheck|k8s-schemas|sarif-multitool..."
for tool in "$@"; do
	case $tool in
	kubectl | kustomize) ;;
	celcheck)
		celcheck || exit 1
		continue
		;;
	k8s-schemas)
		# the packages declare node >= 22 and run on Debian 12's 18
		# (tests/suites/schema.sh proves it)
		npm_folder schema "the Kubernetes schema validators" || exit 1
		continue
		;;
	sarif-multitool)
		sarif_multitool || exit 1
		continue
		;;
	*) die "unknown tool '$tool' (kubectl, kustomize, celcheck, k8s-schemas, sarif-multitool)" ;;
	esac
	if [ "${GPUMEND_TOOLS:-}" != project ] && _sys=$(command -v "$tool" 2>/dev/null) &&
		new_enough "$tool" "$(version_of "$tool" "$_sys")"; then
		echo "$_sys"
		continue
	fi
	cached "$tool" && continue
	fetch
	cached "$tool" || die "$tool from Debian $TOOLS_SUITE does not run on this machine ($TOOLS_DIR/bin/$tool)"
done
