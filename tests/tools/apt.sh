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
