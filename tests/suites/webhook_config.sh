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
# `gpumend review --entry` says each entry is responsible for, and
# `gpumend review --batch` (tests/webhook/conditions/ holds reviews for
# the CEL suite).
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
# `gpumend review --batch`: a review per line in, a response per line
# out, in order, each the one a review of the line alone gives; a line
# with no response gets {"error": ...} in its place, and the exit status
# is the worst line's.
for f in create update deploy-update; do jq -c . "$tmp/$f.json"; done >"$tmp/batch.jsonl"
for entry in legacy advisory; do
	for f in create update deploy-update; do
		"$GPUMEND" review --entry "$entry" "$tmp/$f.json"
	done >"$tmp/single.$entry"
	"$GPUMEND" review --entry "$entry" --batch "$tmp/batch.jsonl" >"$tmp/batch.$entry"
	check "review --batch --entry $entry: the answers of the reviews one by one, in order" \
		cmp -s "$tmp/single.$entry" "$tmp/batch.$entry"
done
{
	jq -c . "$tmp/create.json"
	echo
	echo '{"apiVersion": "v1", "kind": "Pod"}'
	echo '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",'
	jq -c . "$tmp/update.json" | tr -d '\n'
} >"$tmp/mixed.jsonl"
"$GPUMEND" review --batch "$tmp/mixed.jsonl" >"$tmp/mixed.out" 2>"$tmp/mixed.err"
rc=$?
check "review --batch: a line each, an error in place of the lines with no response, exit 2 ($rc)" sh -c "
	[ $rc = 2 ] && [ \$(wc -l <'$tmp/mixed.out') = 5 ] &&
	jq -e -s 'map(.response.uid // .error) | .[0] == .[4] and (.[0] | length) > 10 and
		.[1] == \"line 2: an empty line\" and (.[2] | startswith(\"line 3: not an AdmissionReview\")) and
		(.[3] | startswith(\"line 4: \"))' '$tmp/mixed.out' >/dev/null"
check "review --batch: stderr names the file and line of each line with no response" sh -c "
	grep -qF '$tmp/mixed.jsonl:2: error: cannot review it: an empty line' '$tmp/mixed.err' &&
	grep -qF '$tmp/mixed.jsonl:3: error: cannot review it: not an AdmissionReview' '$tmp/mixed.err' &&
	[ \$(wc -l <'$tmp/mixed.err') = 3 ]"
printf 'rules:\n  legacy-gpu-resource:\n    mode: deny\n' >"$tmp/deny.yaml"
"$GPUMEND" review -c "$tmp/deny.yaml" --batch "$tmp/batch.jsonl" >"$tmp/deny.out"
rc=$?
check "review --batch: exit 1 when a review is denied ($rc)" sh -c "
	[ $rc = 1 ] && jq -e -s 'map(.response.allowed) == [false, true, true]' '$tmp/deny.out' >/dev/null"
# a line past the body limit (7 MiB) is read to its end and refused; the
# next is answered
{
	head -c 7340033 /dev/zero | tr '\0' ' '
	echo
	jq -c . "$tmp/create.json"
} >"$tmp/long.jsonl"
"$GPUMEND" review --batch "$tmp/long.jsonl" >"$tmp/long.out" 2>/dev/null
rc=$?
check "review --batch: a line over 7 MiB is refused, the next answered ($rc)" sh -c "
	[ $rc = 2 ] && jq -e -s 'map(.error // .response.uid) |
		(.[0] | test(\"^line 1: larger than 7340032 bytes\")) and (.[1] | length) > 10' '$tmp/long.out' >/dev/null"
# each answer is written as soon as it is made: a program can write a
# review and read its answer with the input still open
mkfifo "$tmp/in.fifo"
"$GPUMEND" review --batch <"$tmp/in.fifo" >"$tmp/coproc.out" &
coproc=$!
exec 3>"$tmp/in.fifo"
jq -c . "$tmp/create.json" >&3
i=0
while [ "$(wc -l <"$tmp/coproc.out")" -lt 1 ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "review --batch: the answer comes while the input is still open" \
	[ "$(wc -l <"$tmp/coproc.out")" = 1 ]
exec 3>&-
wait "$coproc"
check "review --batch: exits 0 at the end of the input" [ $? = 0 ]
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
