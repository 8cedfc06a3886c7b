# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/tools/apt.sh - reading this machine's own apt configuration
# (sourced, POSIX sh). No mirror host is named in the tree: the Debian
# archive is whatever the machine's sources already use.

# apt_debian_mirror: prints the URI of the Debian archive that the apt
# sources use for the main suites (not the security archive), from
# deb822 files (*.sources) or one-line files (sources.list, *.list).
# Fails, printing nothing, when there is none.
apt_debian_mirror() {
	_files=""
	for _f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources; do
		[ -f "$_f" ] && _files="$_files $_f"
	done
	[ -n "$_files" ] || return 1
	# shellcheck disable=SC2086
	_uri=$(awk '
		function take(u) { if (u != "" && u !~ /security/ && found == "") found = u }
		function stanza() {
			if (types ~ /(^| )deb( |$)/ && suites !~ /security/) take(uris)
			types = uris = suites = ""
		}
		FNR == 1 { stanza() }
		FILENAME ~ /\.sources$/ {
			if ($0 ~ /^[[:space:]]*$/) { stanza(); next }
			if ($1 == "Types:") { $1 = ""; types = $0 }
			if ($1 == "URIs:") uris = $2
			if ($1 == "Suites:") { $1 = ""; suites = $0 }
			next
		}
		$1 == "deb" {
			i = 2
			if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
			if ($(i + 1) !~ /security/) take($i)
		}
		END {
			stanza()
			if (found != "") print found
		}' $_files)
	[ -n "$_uri" ] || return 1
	echo "${_uri%/}"
}

# apt_missing PACKAGE...: prints those of PACKAGE (NAME or NAME:ARCH)
# that are not installed.
apt_missing() {
	for _p in "$@"; do
		[ "$(dpkg-query -W -f='${Status}' "$_p" 2>/dev/null)" = "install ok installed" ] ||
			printf '%s ' "$_p"
	done
}

# apt_need WHO PACKAGE...: installs those of PACKAGE (NAME or NAME:ARCH)
# that are missing, with apt-get (as root), messages prefixed with WHO.
# An ARCH that is not yet one of dpkg's architectures is added first
# (Debian's multiarch), and the package lists are fetched when apt does
# not know a package yet. Nothing is touched when all are installed.
# Fails, saying why, when they cannot be had.
apt_need() {
	_who=$1
	shift
	_need=$(apt_missing "$@")
	[ -n "$_need" ] || return 0
	if [ "$(id -u)" != 0 ]; then
		echo "$_who: error: run as root, or install: $_need" >&2
		return 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	_update=""
	for _p in $_need; do
		case $_p in *:*) ;; *) continue ;; esac
		_a=${_p#*:}
		[ "$_a" = "$(dpkg --print-architecture)" ] && continue
		if ! dpkg --print-foreign-architectures | grep -qx "$_a"; then
			echo "$_who: adding $_a to dpkg's architectures (multiarch)" >&2
			dpkg --add-architecture "$_a" || return 1
			_update=yes
		fi
	done
	for _p in $_need; do
		apt-cache show "$_p" >/dev/null 2>&1 || _update=yes
	done
	echo "$_who: installing $_need" >&2
	if [ -n "$_update" ]; then
		apt-get -o DPkg::Lock::Timeout=600 update -qq || {
			echo "$_who: error: apt-get update failed" >&2
			return 1
		}
	fi
	# shellcheck disable=SC2086
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq $_need >/dev/null || {
		echo "$_who: error: apt-get install $_need failed" >&2
		return 1
	}
}
