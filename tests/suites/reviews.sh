#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/reviews.sh - the review cases: one folder per case under
# tests/webhook/reviews/, holding
#   review.json     an AdmissionReview request (CREATE, UPDATE...)
#   config.yaml     (optional) passed as -c
#   expected.json   what the answer gives: allowed, the status (code and
#                   message) when there is one, the warnings, and the
#                   object as stored: request.object with the answer's
#                   patch applied (no "object" when there is no patch)
# `gpumend review` answers as the webhook does (both are lib/admission.c;
# tests/suites/webhook.sh checks the server over TLS). REVIEWS_UPDATE=1
# writes the expected files from the current answers instead.
. "$(dirname "$0")/../lib.sh"

tmp=$(scratch)

for dir in "$TESTS_DIR"/webhook/reviews/*/; do
	name=$(basename "$dir")
	cfg=""
	[ -f "$dir/config.yaml" ] && cfg="-c $dir/config.yaml"
	# shellcheck disable=SC2086
	"$GPUMEND" review $cfg "$dir/review.json" >"$tmp/answer" 2>"$tmp/err"
	rc=$?
	# 1: the answer refuses the object
	if [ $rc -gt 1 ] || [ "$rc" != "$(jq -r 'if .response.allowed then 0 else 1 end' "$tmp/answer")" ]; then
		fail "$name: gpumend review exits 0, or 1 for a refusal (exit $rc)"
		sed 's/^/    /' "$tmp/err"
		continue
	fi
	patch=$(jq -r '.response.patch // empty' "$tmp/answer" | base64 -d)
	echo '[]' >"$tmp/object"
	if [ -n "$patch" ] &&
	   ! jq '.request.object' "$dir/review.json" |
		jq --argjson p "$patch" -f "$TESTS_DIR/webhook/jsonpatch.jq" \
			>"$tmp/object" 2>"$tmp/err"; then
		fail "$name: the patch applies"
		sed 's/^/    /' "$tmp/err"
		continue
	fi
	jq -S --slurpfile object "$tmp/object" '.response
		| { allowed }
		+ (if .status then { status: (.status | { code, message }) }
		   else {} end)
		+ { warnings: (.warnings // []) }
		+ (if .patch then { object: $object[0] } else {} end)' \
		"$tmp/answer" >"$tmp/got"
	if [ "${REVIEWS_UPDATE:-0}" = 1 ]; then
		cp "$tmp/got" "$dir/expected.json"
		pass "$name: updated"
	elif diff -u "$dir/expected.json" "$tmp/got" >"$tmp/d"; then
		pass "$name"
	else
		fail "$name"
		sed 's/^/    /' "$tmp/d"
	fi
done

finish reviews
