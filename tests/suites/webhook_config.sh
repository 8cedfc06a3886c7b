#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/webhook_config.sh - `gpumend webhook-config`: one folder per
# case under tests/webhook-config/, holding
#   args               (optional) the options, one line (word-split)
#   config.yaml        (optional) passed as -c config.yaml
#   expected.out       what it must print on stdout (the registration)
#   expected.err       (optional) what it must print on stderr
#   expected.exit      (optional) its exit status, default 0
# run in the case's folder; then the registration's hash, and what
# `gpumend review --entry` says each entry is responsible for
# (tests/webhook/conditions/ holds reviews for the CEL suite).
# WEBHOOK_CONFIG_UPDATE=1 writes the expected files from the current
# output instead (after a rule's fragment changed: review the diff, the
# registration's hash changes with it).
. "$(dirname "$0")/../lib.sh"

tmp=$(scratch)

for dir in "$TESTS_DIR"/webhook-config/*/; do
	name=$(basename "$dir")
	args=""
	[ -f "$dir/args" ] && args=$(cat "$dir/args")
	[ -f "$dir/config.yaml" ] && args="-c config.yaml $args"
	want_exit=0
	[ -f "$dir/expected.exit" ] && want_exit=$(cat "$dir/expected.exit")
	# shellcheck disable=SC2086 # the args are words
	(cd "$dir" && "$GPUMEND" webhook-config $args >"$tmp/out" 2>"$tmp/err")
	got_exit=$?

	if [ "${WEBHOOK_CONFIG_UPDATE:-0}" = 1 ]; then
		cp "$tmp/out" "$dir/expected.out"
		if [ -s "$tmp/err" ]; then cp "$tmp/err" "$dir/expected.err"
		else rm -f "$dir/expected.err"; fi
		if [ "$got_exit" != 0 ]; then echo "$got_exit" >"$dir/expected.exit"
		else rm -f "$dir/expected.exit"; fi
		pass "$name: updated"
		continue
	fi

	check "$name: exits $want_exit" [ "$got_exit" = "$want_exit" ]
	if diff -u "$dir/expected.out" "$tmp/out" >"$tmp/diff"; then
		pass "$name: stdout as expected"
	else
		fail "$name: stdout differs"
		head -n 40 "$tmp/diff" | sed 's/^/    /'
	fi
	if [ -f "$dir/expected.err" ]; then
		cp "$dir/expected.err" "$tmp/want.err"
	else
		: >"$tmp/want.err"
	fi
	if diff -u "$tmp/want.err" "$tmp/err" >"$tmp/diff"; then
		pass "$name: stderr as expected"
	else
		fail "$name: stderr differs"
		sed 's/^/    /' "$tmp/diff"
	fi
done

# The registration's hash is the webhook's: the server computes it from the
# same config (registration_hash()), and the hash changes with what the
# conditions cover, not with the rest of the file.
reg_hash() {
	"$GPUMEND" webhook-config "$@" -o json |
		jq -r '.webhooks[0].clientConfig.service.path' | sed 's|.*/||'
}
printf 'limits:\n  maxDepth: 64\nwebhook:\n  timeoutSeconds: 3\n' >"$tmp/unrelated.yaml"
printf 'resources:\n  legacyGPU: example.com/old-gpu\n' >"$tmp/related.yaml"
check "hash: a config change the conditions do not read keeps it" \
	[ "$(reg_hash)" = "$(reg_hash -c "$tmp/unrelated.yaml")" ]
check "hash: a change of a name the conditions test changes it" \
	[ "$(reg_hash)" != "$(reg_hash -c "$tmp/related.yaml")" ]
check "hash: both entries' paths name the same hash" sh -c \
	"'$GPUMEND' webhook-config -o json | jq -e '[.webhooks[].clientConfig.service.path |
		sub(\"^/mutate/(legacy|advisory)/\"; \"\")] | unique | length == 1' >/dev/null"
check "json and yaml: one registration" sh -c \
	"'$GPUMEND' webhook-config -o json | jq -e '.kind == \"MutatingWebhookConfiguration\" and
		(.webhooks | length) == 2' >/dev/null"

# `gpumend review --entry`: what each entry is responsible for, the
# contract the conditions are checked against (the CEL suite).
responsible() {
	"$GPUMEND" review --entry "$1" "$2" | jq -r '.response |
		(.patch != null) or ((.warnings // []) | length > 0) or (.allowed == false)'
}
create="$TESTS_DIR/webhook/admission-review.json"
cp "$create" "$tmp/create.json"
jq '.request.operation = "UPDATE" | .request.oldObject = .request.object' \
	"$create" >"$tmp/update.json"
jq '.request.kind = {group: "apps", version: "v1", kind: "Deployment"} |
	.request.resource = {group: "apps", version: "v1", resource: "deployments"} |
	.request.object = {apiVersion: "apps/v1", kind: "Deployment",
		metadata: {name: "d"}, spec: {template: .request.object}} |
	.request.operation = "UPDATE" | .request.oldObject = .request.object' \
	"$create" >"$tmp/deploy-update.json"
while read -r entry file want; do
	check "review --entry $entry $file: responsible $want" \
		[ "$(responsible "$entry" "$tmp/$file" 2>&1)" = "$want" ]
done <<'CASES'
legacy create.json true
advisory create.json false
legacy update.json false
advisory update.json true
legacy deploy-update.json true
advisory deploy-update.json false
CASES
# tests/webhook/conditions/: hostile shapes for the conditions (null
# or odd custom resource members, hostPaths spelt as the kubelet would
# normalise them), for the CEL suite to evaluate; here, each gets a
# well-formed answer from every entry.
for review in "$TESTS_DIR"/webhook/conditions/*.json; do
	for entry in legacy advisory; do
		check "review --entry $entry $(basename "$review"): answered" sh -c \
			"'$GPUMEND' review --entry $entry '$review' | jq -e '.response.uid' >/dev/null"
	done
done
check "review --entry: an unknown entry is an error" sh -c \
	"'$GPUMEND' review --entry mutate '$create' >/dev/null 2>'$tmp/err'; [ \$? = 2 ] &&
	 grep -qF \"gpumend: error: --entry must be legacy or advisory, not 'mutate'\" '$tmp/err'"

finish webhook_config
