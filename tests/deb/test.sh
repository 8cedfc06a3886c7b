#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
#
# tests/deb/test.sh - `make deb-test`: the package `make deb` put in dist/
# installs, works and removes cleanly on a fresh Debian 12: tests/fresh.sh
# makes the root (debootstrap minbase, from the tarball it caches) and runs
# tests/deb/installed.sh there on a copy of the package. As root.
set -u
REPO_DIR=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO_DIR" || exit 2
deb=dist/gpumend_$(sed -n '1s/^gpumend (\([^)]*\)).*/\1/p' debian/changelog)_$(dpkg --print-architecture).deb
[ -f "$deb" ] || {
	echo "deb-test: error: no $deb (make deb makes it)" >&2
	exit 1
}
GPUMEND_FRESH_FILES=$deb GPUMEND_FRESH_COMMANDS="sh tests/deb/installed.sh $deb" \
	exec sh tests/fresh.sh
