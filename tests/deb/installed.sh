#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
#
# tests/deb/installed.sh DEB - run by tests/deb/test.sh as root inside a
# fresh Debian 12 root: installs DEB with apt-get (its dependencies from
# the Debian archive), runs gpumend and gpumend-webhook from /usr/bin,
# checks the man pages, completions and example configuration it put in
# place, then removes and purges it and checks that nothing of it is left.
. "$(dirname "$0")/../lib.sh"
cd "$REPO_DIR" || exit 2
deb=$1
version=$(cat VERSION)
tmp=$(scratch)
export DEBIAN_FRONTEND=noninteractive

apt-get update -qq >"$tmp/apt.log" 2>&1
apt-get install -y -qq "./$deb" >>"$tmp/apt.log" 2>&1
rc=$?
check "apt-get install ./$deb exits 0$([ $rc = 0 ] || echo ": $(tail -n 5 "$tmp/apt.log")")" [ "$rc" = 0 ]
check "dpkg says gpumend $version is installed" \
	sh -c "dpkg-query -W -f='\${Status} \${Version}' gpumend | grep -q '^install ok installed $version-'"
check "gpumend is /usr/bin/gpumend" [ "$(command -v gpumend)" = /usr/bin/gpumend ]
check "gpumend-webhook is /usr/bin/gpumend-webhook" \
	[ "$(command -v gpumend-webhook)" = /usr/bin/gpumend-webhook ]

/usr/bin/gpumend >"$tmp/out" 2>&1
rc=$?
check "gpumend alone prints its usage and exits 2" \
	sh -c "[ $rc = 2 ] && grep -q '^usage: gpumend' '$tmp/out'"
check "gpumend --version names $version" \
	sh -c "/usr/bin/gpumend --version | grep -q '^gpumend $version ('"
/usr/bin/gpumend-webhook --help >"$tmp/out" 2>&1
rc=$?
check "gpumend-webhook --help exits 0 with its usage" \
	sh -c "[ $rc = 0 ] && grep -q '^usage: gpumend-webhook' '$tmp/out'"
/usr/bin/gpumend lint examples/ >"$tmp/out" 2>&1
rc=$?
check "gpumend lint examples/ reports findings (exit 1)" \
	sh -c "[ $rc = 1 ] && grep -q 'legacy' '$tmp/out'"
check "the example configuration is what gpumend config prints" \
	sh -c "/usr/bin/gpumend config | cmp -s - /usr/share/doc/gpumend/examples/gpumend.yaml"
for f in /usr/share/man/man1/gpumend.1.gz /usr/share/man/man5/gpumend.yaml.5.gz \
	/usr/share/man/man8/gpumend-webhook.8.gz /usr/share/bash-completion/completions/gpumend \
	/usr/share/zsh/vendor-completions/_gpumend /usr/share/fish/vendor_completions.d/gpumend.fish \
	/usr/share/doc/gpumend/copyright; do
	check "installed: $f" [ -s "$f" ]
done

dpkg-query -L gpumend >"$tmp/files"
apt-get remove -y -qq gpumend >"$tmp/apt.log" 2>&1
rc=$?
check "apt-get remove gpumend exits 0" [ "$rc" = 0 ]
check "no /usr/bin/gpumend after the removal" \
	sh -c "[ ! -e /usr/bin/gpumend ] && [ ! -e /usr/bin/gpumend-webhook ]"
dpkg --purge gpumend >>"$tmp/apt.log" 2>&1
check "dpkg --purge gpumend exits 0" [ $? = 0 ]
check "dpkg knows no gpumend after the purge" \
	sh -c "! dpkg-query -W -f='\${Status}' gpumend 2>/dev/null | grep -q installed"
left=""
while IFS= read -r f; do
	[ -d "$f" ] && continue
	[ -e "$f" ] && left="$left $f"
done <"$tmp/files"
check "every file the package installed is gone${left:+ (left:$left)}" [ -z "$left" ]

finish deb-install
