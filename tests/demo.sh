#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/demo.sh - `make demo`: what gpumend does to the legacy manifests in
# examples/, with the built-in default configuration.
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 2
for f in examples/*.yaml; do
	echo "==> gpumend migrate --diff $f"
	"$BUILD/gpumend" migrate --diff "$f"
	[ $? -le 1 ] || exit 2
	echo
done
echo "==> gpumend lint examples/"
"$BUILD/gpumend" lint examples/
[ $? -le 1 ] || exit 2
exit 0
