#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/image/base.sh - makes debian:12-slim in buildah's local storage
# when it is not there, since no registry can be reached: a
# `debootstrap --variant=minbase bookworm` root from the Debian mirror that
# this machine's apt sources use, trimmed the way the slim image is (no
# documentation but the copyright files, no man or info pages, no locales;
# dpkg told to keep it so for what is installed later), without package
# lists or caches, and imported as docker.io/library/debian:12-slim, the
# name the Dockerfile's FROM resolves to.
#
# The packages debootstrap fetches are cached as its tarball in
# $GPUMEND_CACHE/image/ (default ~/.cache/gpumend/image/): delete it to
# fetch them again. Its own apt sources are the same mirror's bookworm and
# bookworm-updates, and the security archive when the machine's sources
# name one, so that the build's apt-get reaches what the machine reaches.
set -eu
. "$(dirname "$0")/lib.sh"
. "$IMAGE_REPO/tests/tools/apt.sh"

SUITE=bookworm

image_need buildah buildah
if image_exists "$BASE_IMAGE"; then
	exit 0
fi
image_need debootstrap debootstrap

mirror=$(apt_debian_mirror) ||
	image_die "no Debian archive in this machine's apt sources (/etc/apt/sources.list*)"

# security_uri: the URI the machine's apt sources use for the security
# archive (deb822 or one-line form), or nothing.
security_uri() {
	for _f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources; do
		[ -f "$_f" ] || continue
		case $_f in
		*.sources)
			awk 'BEGIN { RS = "" }
				/(^|\n)Types:[^\n]*deb( |\n|$)/ && /(^|\n)Suites:[^\n]*security/ {
					if (match($0, /(^|\n)URIs:[ \t]*[^ \t\n]+/)) {
						u = substr($0, RSTART, RLENGTH)
						sub(/^\n?URIs:[ \t]*/, "", u)
						print u
					}
				}' "$_f"
			;;
		*)
			awk '$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
				if ($(i + 1) ~ /security/) print $i
			}' "$_f"
			;;
		esac
	done | head -n 1 | sed 's:/*$::'
}

arch=$(dpkg --print-architecture)
cache="$GPUMEND_CACHE/image"
tarball="$cache/debootstrap-$SUITE-minbase-$arch.tgz"
work=$(mktemp -d "${TMPDIR:-/tmp}/gpumend-base.XXXXXX")
ctr=""
cleanup() {
	[ -z "$ctr" ] || buildah rm "$ctr" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# debootstrap_or_die LOG ARGS...: runs debootstrap, its output in LOG,
# printing the end of it on failure.
debootstrap_or_die() {
	_log=$1
	shift
	if ! debootstrap "$@" >"$_log" 2>&1; then
		tail -n 15 "$_log" >&2
		image_die "debootstrap $* failed"
	fi
}

if [ ! -s "$tarball" ]; then
	image_say "fetching the $SUITE minbase packages into $tarball"
	mkdir -p "$cache"
	debootstrap_or_die "$work/make-tarball.log" --variant=minbase \
		--arch="$arch" --make-tarball="$work/packages.tgz" \
		"$SUITE" "$work/fetch" "$mirror"
	mv "$work/packages.tgz" "$tarball.tmp"
	mv "$tarball.tmp" "$tarball"
fi

image_say "making $BASE_IMAGE ($SUITE minbase, $arch) with debootstrap"
root="$work/root"
debootstrap_or_die "$work/unpack.log" --variant=minbase --arch="$arch" \
	--unpack-tarball="$tarball" "$SUITE" "$root" "$mirror"

# What the slim image leaves out, for what is installed now and later.
cat >"$root/etc/dpkg/dpkg.cfg.d/gpumend-slim" <<'CFG'
# No documentation but the copyright files, no manual or info pages, no
# translations (the image is made by gpumend's tests/image/base.sh).
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
CFG
cat >"$root/etc/apt/apt.conf.d/gpumend-slim" <<'CFG'
// No translated package descriptions, no binary package caches, no
// downloaded packages kept.
Acquire::Languages "none";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT::Keep-Downloaded-Packages "false";
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb || true"; };
CFG
find "$root/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -exec rm -f {} +
find "$root/usr/share/doc" -mindepth 1 -depth -type d -empty -exec rmdir {} +
find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias \
	-exec rm -rf {} +
rm -rf "$root/usr/share/man/"* "$root/usr/share/info/"* \
	"$root/usr/share/groff/"* "$root/usr/share/lintian/"*

# No package lists, caches, logs, devices or the build machine's names.
rm -rf "$root/var/lib/apt/lists/"* "$root/var/cache/apt/"*.bin \
	"$root/var/cache/apt/archives/"*.deb "$root/var/cache/debconf/"*-old \
	"$root/var/log/"*.log "$root/var/log/apt/"* \
	"$root/tmp/"* "$root/var/tmp/"* "$root/dev/"* "$root/proc/"* "$root/sys/"* \
	"$root/etc/hostname" "$root/etc/resolv.conf" "$root/etc/apt/sources.list"
mkdir -p "$root/var/lib/apt/lists/partial"

security=$(security_uri)
{
	printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\n' \
		"$mirror" "$SUITE" "$SUITE"
	printf 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
	if [ -n "$security" ]; then
		printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\n' \
			"$security" "$SUITE"
		printf 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
	fi
} >"$root/etc/apt/sources.list.d/debian.sources"

tar --numeric-owner -C "$root" -cf "$work/root.tar" .
ctr=$(buildah from scratch)
buildah add --quiet "$ctr" "$work/root.tar" / >/dev/null
buildah config \
	--env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	--cmd bash \
	--label io.gpumend.base="debootstrap --variant=minbase $SUITE (tests/image/base.sh)" \
	"$ctr"
buildah commit --quiet --rm "$ctr" "$BASE_IMAGE" >/dev/null
ctr=""
image_say "made $BASE_IMAGE: $(buildah images --format '{{.Size}}' "$BASE_IMAGE")"
