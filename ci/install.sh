#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# ci/install.sh - installs the static gpumend CLI for a CI job (the GitHub
# Action's install step runs it): downloads it, checks its SHA-256, puts
# it in $GPUMEND_DIR/bin and runs `gpumend --version`.
#
#   GPUMEND_VERSION  release to install (default 0.2.0)
#   GPUMEND_URL      where the CLI is (default: the release's static CLI
#                    for this machine's architecture); any URL curl reads,
#                    file:// included
#   GPUMEND_SHA256   its SHA-256 in hex; without it, the release's
#                    published checksums (SHA256SUMS, beside the CLI, as
#                    `make dist` writes them) are fetched, which only
#                    guards against a damaged download: pin the checksum
#                    to guard against a changed release
#   GPUMEND_DIR      where to install (default ./.gpumend); the CLI goes
#                    in GPUMEND_DIR/bin/gpumend
#
# Exits 0 once the CLI is in place and runs; else 1, saying why, with
# nothing installed (a failed check leaves no file behind).
set -eu

version=${GPUMEND_VERSION:-0.2.0}
version=${version#v}
dir=${GPUMEND_DIR:-./.gpumend}
url=${GPUMEND_URL:-}
sum=${GPUMEND_SHA256:-}

die() {
	echo "gpumend install: error: $*" >&2
	exit 1
}

if [ -z "$url" ]; then
	case $(uname -m) in
	x86_64 | amd64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) die "no static gpumend for architecture '$(uname -m)'; give GPUMEND_URL" ;;
	esac
	# the release artefacts' names: the one place they are written
	url="https://github.com/gpumend/gpumend/releases/download/v$version/gpumend-$version-linux-$arch"
fi
command -v curl >/dev/null 2>&1 || die "curl is needed to download '$url'"
command -v sha256sum >/dev/null 2>&1 || die "sha256sum is needed to check '$url'"

mkdir -p "$dir/bin" || die "cannot create '$dir/bin'"
tmp=$(mktemp "$dir/bin/.gpumend.XXXXXX") || die "cannot write in '$dir/bin'"
trap 'rm -f "$tmp" "$tmp.sha256"' EXIT

curl -fsSL --retry 3 -o "$tmp" "$url" || die "cannot download '$url'"
if [ -z "$sum" ]; then
	sums=${url%/*}/SHA256SUMS
	curl -fsSL --retry 3 -o "$tmp.sha256" "$sums" ||
		die "cannot download '$sums'; give GPUMEND_SHA256"
	sum=$(awk -v f="${url##*/}" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp.sha256")
	[ -n "$sum" ] || die "'$sums' names no '${url##*/}'; give GPUMEND_SHA256"
fi
case $sum in
*[!0-9a-fA-F]* | "") die "'$sum' is not a SHA-256 in hex" ;;
esac
[ ${#sum} = 64 ] || die "'$sum' is not a SHA-256 in hex (64 digits)"
got=$(sha256sum "$tmp" | awk '{ print $1 }')
[ "$got" = "$(echo "$sum" | tr 'A-F' 'a-f')" ] ||
	die "'$url' has SHA-256 $got, not $sum: not installed"

chmod 755 "$tmp"
"$tmp" --version >/dev/null 2>&1 || die "'$url' does not run here"
mv -f "$tmp" "$dir/bin/gpumend"
"$dir/bin/gpumend" --version
