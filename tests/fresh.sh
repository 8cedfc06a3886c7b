#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/fresh.sh - `make fresh`: the README's Quick start on a fresh
# Debian 12, every time.
#
#   1. a Debian 12 (bookworm) root by `debootstrap --variant=minbase`, with
#      only git, make and build-essential added; the packages come from
#      a tarball cached in $GPUMEND_CACHE (default ~/.cache/gpumend), made
#      once (--make-tarball) and unpacked each run (--unpack-tarball); the
#      mirror is the one the machine's apt sources use (tests/tools/apt.sh);
#   2. the root bind-mounted onto itself (private: nothing mounted inside
#      shows outside), /proc, /sys and /dev/pts mounted in it, the
#      machine's resolv.conf and local certificate authorities
#      (/usr/local/share/ca-certificates) copied in;
#   3. `git clone` of the commit under test (HEAD; uncommitted changes are
#      not part of it) into /root/gpumend;
#   4. the commands of the README's Quick start block (make demo, make test)
#      run there in turn, as root, by chroot, with a bare environment;
#   5. everything unmounted and removed whatever happens (an error, a
#      failing command, Ctrl-C), processes left inside the root killed.
# Passes only when every command exits 0 and the test summary ("N passed,
# N failed, N skipped") says 0 failed and 0 skipped. Each command's output
# is shown and kept in build/fresh/; the time of each step is printed.
#
# As root, on a Debian machine (debootstrap is installed when missing).
# GPUMEND_FRESH_DIR: where the root is made (default /var/tmp).
# GPUMEND_FRESH_COMMANDS: commands to run instead of the Quick start's, a
# line each (GPUMEND_FRESH_COMMANDS="make e2e" make fresh), with CI=true:
# each must exit 0, and a summary line say 0 failed.
# GPUMEND_FRESH_FILES: files of this checkout that are not committed (a
# built package: dist/gpumend_0.2.0-1_amd64.deb), copied into the clone at
# the same paths, for those commands (make deb-test).
set -u
REPO_DIR=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO_DIR/tests/tools/apt.sh"
: "${GPUMEND_CACHE:=${HOME:-/root}/.cache/gpumend}"
SUITE=bookworm
PACKAGES=git,make,build-essential
TARBALL="$GPUMEND_CACHE/debootstrap-$SUITE-minbase-$(echo "$PACKAGES" | tr , -).tgz"
LOGS="$REPO_DIR/build/fresh"
t_start=$(date +%s)

say() { echo "fresh: $*" >&2; }
die() {
	echo "fresh: error: $*" >&2
	exit 1
}
# since T: seconds since T, as "M min S s"
since() {
	_s=$(($(date +%s) - $1))
	echo "$((_s / 60)) min $((_s % 60)) s"
}

work=""
root=""
cleanup() {
	_rc=$?
	trap - EXIT INT TERM HUP
	if [ -n "$root" ] && [ -d "$root" ]; then
		# processes still running inside the root: ours, started there
		for _p in /proc/[0-9]*; do
			[ "$(readlink "$_p/root" 2>/dev/null)" = "$root" ] || continue
			say "killing ${_p#/proc/} ($(tr '\0' ' ' <"$_p/cmdline" 2>/dev/null | cut -c 1-80)), left running in the root"
			kill -KILL "${_p#/proc/}" 2>/dev/null
		done
		umount -R "$root" 2>/dev/null || umount -R -l "$root" 2>/dev/null
	fi
	if [ -n "$work" ] && [ -d "$work" ]; then
		if awk -v w="$work" '$2 == w || index($2, w "/") == 1 { found = 1 } END { exit !found }' \
			/proc/mounts; then
			say "error: still mounted under $work: not removed"
			_rc=1
		else
			rm -rf --one-file-system "$work"
		fi
	fi
	exit "$_rc"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT TERM HUP

# ------------------------------------------------------------------
# What is needed here

[ "$(id -u)" = 0 ] || die "run as root (debootstrap, mount and chroot need it)"
commit=$(git -C "$REPO_DIR" rev-parse --verify -q HEAD) || die "$REPO_DIR: no commit to test"
if [ -n "$(git -C "$REPO_DIR" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	say "note: uncommitted changes are not tested, only commit $commit"
fi
mirror=$(apt_debian_mirror) ||
	die "no Debian archive in this machine's apt sources (/etc/apt/sources.list*)"
if ! command -v debootstrap >/dev/null 2>&1; then
	say "installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null 2>&1 ||
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq debootstrap >/dev/null; } ||
		die "cannot install debootstrap"
fi
mkdir -p "$GPUMEND_CACHE" "$LOGS" || die "cannot create $GPUMEND_CACHE or $LOGS"
rm -f "$LOGS"/*.log

# ------------------------------------------------------------------
# The root

work=$(mktemp -d "${GPUMEND_FRESH_DIR:-/var/tmp}/gpumend-fresh.XXXXXX") ||
	die "cannot create a directory in ${GPUMEND_FRESH_DIR:-/var/tmp}"
if [ ! -f "$TARBALL" ]; then
	t0=$(date +%s)
	say "downloading Debian $SUITE minbase + $PACKAGES from $mirror into $TARBALL, once"
	debootstrap --variant=minbase --include="$PACKAGES" --make-tarball="$TARBALL.tmp" \
		"$SUITE" "$work/tarball" "$mirror" >"$LOGS/debootstrap-tarball.log" 2>&1 || {
		tail -n 20 "$LOGS/debootstrap-tarball.log" >&2
		rm -f "$TARBALL.tmp"
		die "debootstrap --make-tarball failed (log: $LOGS/debootstrap-tarball.log)"
	}
	mv "$TARBALL.tmp" "$TARBALL" || die "cannot write $TARBALL"
	rm -rf "$work/tarball"
	say "tarball made in $(since "$t0")"
fi
root="$work/root"
mkdir "$root" || die "cannot create $root"
t0=$(date +%s)
say "debootstrap --variant=minbase --include=$PACKAGES $SUITE (from $TARBALL) into $root"
debootstrap --variant=minbase --include="$PACKAGES" --unpack-tarball="$TARBALL" \
	"$SUITE" "$root" "$mirror" >"$LOGS/debootstrap.log" 2>&1 || {
	tail -n 20 "$LOGS/debootstrap.log" >&2
	die "debootstrap failed (log: $LOGS/debootstrap.log; delete $TARBALL if it is stale)"
}
t_debootstrap=$(since "$t0")
say "root made in $t_debootstrap"

mount --bind "$root" "$root" &&
	mount --make-private "$root" &&
	mount -t proc proc "$root/proc" &&
	mount -t sysfs sysfs "$root/sys" &&
	mount --bind /dev/pts "$root/dev/pts" ||
	die "cannot mount the root, /proc, /sys or /dev/pts"
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null ||
	say "note: no /etc/resolv.conf to copy"
# the certificate authorities the machine added to Debian's (an HTTPS
# proxy's): trusted in the root too once its ca-certificates is installed
# (npm reaches the registry through them)
for _ca in /usr/local/share/ca-certificates/*.crt; do
	[ -f "$_ca" ] || continue
	mkdir -p "$root/usr/local/share/ca-certificates" &&
		cp -L "$_ca" "$root/usr/local/share/ca-certificates/" ||
		die "cannot copy '$_ca' into the root"
done

git clone -q --no-checkout "$REPO_DIR" "$root/root/gpumend" >"$LOGS/clone.log" 2>&1 &&
	git -C "$root/root/gpumend" checkout -q --detach "$commit" >>"$LOGS/clone.log" 2>&1 || {
	cat "$LOGS/clone.log" >&2
	die "git clone of $commit failed"
}
say "cloned $(git -C "$root/root/gpumend" log --oneline -1)"
for f in ${GPUMEND_FRESH_FILES:-}; do
	mkdir -p "$root/root/gpumend/$(dirname "$f")" &&
		cp "$REPO_DIR/$f" "$root/root/gpumend/$f" || die "cannot copy $f into the root"
done

# ------------------------------------------------------------------
# The README's commands

# the sh block of the Quick start section, comments dropped; or the lines
# of GPUMEND_FRESH_COMMANDS (`make e2e` on a fresh root), whose suites then
# judge their own skips (CI=true)
if [ -n "${GPUMEND_FRESH_COMMANDS:-}" ]; then
	printf '%s\n' "$GPUMEND_FRESH_COMMANDS" | sed '/^[[:space:]]*$/d' >"$LOGS/commands"
	ci_env="CI=true"
else
	awk '/^## Quick start/ { q = 1; next } q && /^## / { exit }
		q && /^```sh/ { b = 1; next } b && /^```/ { exit } b' \
		"$root/root/gpumend/README.md" | sed 's/[[:space:]]*#.*//; /^[[:space:]]*$/d' \
		>"$LOGS/commands"
	ci_env=""
fi
[ -s "$LOGS/commands" ] || die "no commands in the README's Quick start block"

ok=1
n=0
report=""
summary_seen=0
while IFS= read -r cmd <&3; do
	n=$((n + 1))
	log="$LOGS/$n.log"
	say "running, as root in the fresh root: $cmd"
	t0=$(date +%s)
	# in the background: a signal to this script is handled at once (the
	# clean-up kills what runs in the root), not after the command
	{
		chroot "$root" /usr/bin/env -i HOME=/root USER=root LOGNAME=root \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			TERM="${TERM:-dumb}" $ci_env /bin/sh -c "cd /root/gpumend && $cmd" </dev/null
		echo $? >"$LOGS/$n.status"
	} 2>&1 | tee "$log" &
	wait $!
	status=$(cat "$LOGS/$n.status" 2>/dev/null)
	took=$(since "$t0")
	verdict="exit ${status:-?}"
	[ "$status" = 0 ] || ok=0
	# the test summary, if this command printed one
	line=$(grep -E '^([a-z0-9_-]+: )?[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1)
	if [ -n "$line" ]; then
		summary_seen=1
		verdict="$verdict, $line"
		# with CI=true a suite fails its own unlisted skips: skips left
		# are allowed ones, counted in the line
		case $line in
		*" 0 failed, 0 skipped") ;;
		*" 0 failed, "*) [ -n "$ci_env" ] || ok=0 ;;
		*) ok=0 ;;
		esac
	fi
	report="$report
  $cmd: $verdict, $took"
done 3<"$LOGS/commands"
[ "$summary_seen" = 1 ] || {
	ok=0
	report="$report
  no command printed the test summary (N passed, N failed, N skipped)"
}

say "commit $commit on a fresh Debian $SUITE (debootstrap $t_debootstrap):$report"
say "logs in $LOGS; $(since "$t_start") in all"
if [ "$ok" = 1 ]; then
	say "passed"
	exit 0
fi
say "FAILED"
exit 1
