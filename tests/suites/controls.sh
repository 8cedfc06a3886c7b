#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/controls.sh - current vendor manifests, the control set:
# every file under tests/controls/ (today's NVIDIA device plugin, GPU
# Operator components, GKE's and EKS's current GPU manifests, written from
# their documentation) must lint clean and migrate to itself with the
# default config. A tool that is noisy on current files gets switched off.
. "$(dirname "$0")/../lib.sh"

tmp=$(scratch)
n=0
for file in "$TESTS_DIR"/controls/*.yaml; do
	name=controls/$(basename "$file")
	n=$((n + 1))
	"$GPUMEND" lint "$file" >"$tmp/lint" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 0 ] && [ ! -s "$tmp/lint" ]; then
		pass "$name: lint exits 0 without findings"
	else
		fail "$name: lint exits $rc"
		sed 's/^/    /' "$tmp/lint" "$tmp/err"
	fi
	if "$GPUMEND" migrate --check "$file" >/dev/null 2>"$tmp/err"; then
		pass "$name: migrate --check changes nothing"
	else
		fail "$name: migrate --check would change it"
		sed 's/^/    /' "$tmp/err"
	fi
done
if [ "$n" -ge 5 ]; then
	pass "controls: $n files"
else
	fail "controls: only $n files under tests/controls"
fi
finish controls
