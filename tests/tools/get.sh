#!/bin/sh
# tests/tools/get.sh TOOL... - the Kubernetes client tools the tests and
# `make e2e` use, from the project's own set-up. Prints, one line per
# TOOL, the path of the binary to run; exits 1 (the reason on stderr,
# naming the step that failed) when one cannot be had.
#
#   kubectl     >= 1.27 (its built-in kustomize is v5: `labels`,
#               `replacements`, the manifests' `patches`)
#   kustomize   >= 5.0
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
# GPUMEND_TOOLS=project skips the tools on PATH (always the project's copy).
set -u

: "${GPUMEND_CACHE:=${HOME:-/root}/.cache/gpumend}"
TOOLS_DIR="$GPUMEND_CACHE/tools"
TOOLS_SUITE=trixie
HERE=$(cd "$(dirname "$0")" && pwd)

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

# fetch: downloads and unpacks kubectl and kustomize into $TOOLS_DIR.
fetch() {
	. "$HERE/apt.sh"
	command -v apt-get >/dev/null 2>&1 || die "fetching kubectl and kustomize: no apt-get on this machine"
	command -v dpkg-deb >/dev/null 2>&1 || die "fetching kubectl and kustomize: no dpkg-deb on this machine"
	mirror=$(apt_debian_mirror) ||
		die "fetching kubectl and kustomize: no Debian archive in the apt sources (/etc/apt/sources.list*)"
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -f "$keyring" ] || die "fetching kubectl and kustomize: $keyring is missing (package debian-archive-keyring)"
	mkdir -p "$GPUMEND_CACHE" || die "cannot create $GPUMEND_CACHE"
	exec 8>"$GPUMEND_CACHE/.tools.lock"
	flock 8 2>/dev/null || true
	# the winner of a race has filled the cache
	[ -f "$TOOLS_DIR/complete" ] && return 0
	_w=$(mktemp -d "${TMPDIR:-/tmp}/gpumend-tools.XXXXXX") || die "mktemp failed"
	# _apt must be able to write the downloads
	chmod 755 "$_w"
	mkdir -p "$_w/lists/partial" "$_w/cache/archives/partial" "$_w/deb" "$_w/root"
	echo "deb [signed-by=$keyring] $mirror $TOOLS_SUITE main" >"$_w/sources.list"
	_o="-o Dir::Etc::sourcelist=$_w/sources.list -o Dir::Etc::sourceparts=-
	    -o Dir::State::Lists=$_w/lists -o Dir::Cache=$_w/cache
	    -o Dir::State::status=/dev/null -o APT::Get::List-Cleanup=0
	    -o Debug::NoLocking=1"
	say "fetching kubectl and kustomize from Debian $TOOLS_SUITE ($mirror), once"
	# shellcheck disable=SC2086
	apt-get $_o -qq update >"$_w/apt.log" 2>&1 || {
		tail -n 5 "$_w/apt.log" >&2
		rm -rf "$_w"
		die "fetching kubectl and kustomize: apt-get update of $mirror $TOOLS_SUITE failed"
	}
	# shellcheck disable=SC2086
	(cd "$_w/deb" && apt-get $_o -qq download kubectl kustomize) >>"$_w/apt.log" 2>&1 || {
		tail -n 5 "$_w/apt.log" >&2
		rm -rf "$_w"
		die "fetching kubectl and kustomize: apt-get download kubectl kustomize failed"
	}
	for _d in "$_w"/deb/*.deb; do
		dpkg-deb -x "$_d" "$_w/root" || { rm -rf "$_w"; die "fetching kubectl and kustomize: dpkg-deb -x $(basename "$_d") failed"; }
	done
	rm -rf "$TOOLS_DIR.tmp"
	mkdir -p "$TOOLS_DIR.tmp/bin" &&
		cp "$_w/root/usr/bin/kubectl" "$_w/root/usr/bin/kustomize" "$TOOLS_DIR.tmp/bin/" &&
		(cd "$_w/deb" && ls *.deb) >"$TOOLS_DIR.tmp/complete" || {
		rm -rf "$_w" "$TOOLS_DIR.tmp"
		die "cannot write $TOOLS_DIR.tmp"
	}
	rm -rf "$_w" "$TOOLS_DIR"
	mv "$TOOLS_DIR.tmp" "$TOOLS_DIR" || die "cannot move the tools to $TOOLS_DIR"
	say "kubectl and kustomize in $TOOLS_DIR/bin ($(tr '\n' ' ' <"$TOOLS_DIR/complete"))"
}

[ $# -gt 0 ] || die "usage: get.sh kubectl|kustomize..."
for tool in "$@"; do
	case $tool in
	kubectl | kustomize) ;;
	*) die "unknown tool '$tool' (kubectl, kustomize)" ;;
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
