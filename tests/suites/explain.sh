#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/explain.sh - `gpumend rules RULE` for every rule: the text
# and the JSON say what the rule finds and changes, its modes and the
# settings that shape it, and give an example that holds: lint reports
# the rule on the example (and nothing else), migrate turns it into the
# example's "after" when the rule mutates by default, and the "after" is
# clean; docs/rules.md shows the same example in the rule's section.
. "$(dirname "$0")/../lib.sh"

dir=$(scratch)
G="$GPUMEND"
rules_md="$REPO_DIR/docs/rules.md"

ids=$("$G" rules | tail -n +2 | awk '{ print $1 }')
n=$(printf '%s\n' "$ids" | wc -l)
"$G" rules --format json >"$dir/all.json"
[ "$n" -gt 0 ] && [ "$(jq -r '.[].id' "$dir/all.json")" = "$ids" ] &&
	pass "rules --format json: the $n rules of the list, in its order" ||
	fail "rules --format json does not hold the $n rules of the list"

# the yaml blocks of the section of RULE in docs/rules.md, the Nth (1, 2)
doc_block() {
	awk -v rule="$1" -v want="$2" '
	/^### / { in_rule = ($0 == "### " rule) }
	in_rule && /^```yaml$/ { n++; fence = 1; next }
	fence && /^```$/ { fence = 0; next }
	fence && n == want { print }' "$rules_md"
}

for id in $ids; do
	"$G" rules "$id" >"$dir/$id.txt" 2>"$dir/err"; rc=$?
	summary=$(jq -r --arg id "$id" '.[] | select(.id == $id) | .summary' "$dir/all.json")
	if [ $rc = 0 ] && [ "$(head -n 1 "$dir/$id.txt")" = "$id: $summary" ] &&
	   grep -q '^Finds:    [A-Za-z]' "$dir/$id.txt" &&
	   grep -q '^Changes:  [A-Za-z]' "$dir/$id.txt" &&
	   grep -q "^Modes:    [a-z]* (the default); it may be off, warn, deny" "$dir/$id.txt" &&
	   grep -q "^Config:   rules\.$id\.mode" "$dir/$id.txt" &&
	   grep -q "^Docs:     https://.*/docs/rules.md#$id$" "$dir/$id.txt" &&
	   grep -q '^Before (what gpumend lint.* reports):$' "$dir/$id.txt" &&
	   grep -q '^After (' "$dir/$id.txt" &&
	   [ ! -s "$dir/err" ]; then
		pass "rules $id: what it finds and changes, its modes, settings, example"
	else
		fail "rules $id (exit $rc)"
		sed 's/^/    /' "$dir/$id.txt" "$dir/err" | head -n 20
	fi

	"$G" rules --format json "$id" >"$dir/$id.json"
	jq -e --arg id "$id" 'length == 1 and (.[0] | . as $r |
		.id == $id and (.finds | length > 40) and (.changes | length > 20) and
		(.modes | index($r.defaultMode) != null) and (.modes | index($r.mode) != null) and
		(.modes[0:3] == ["off", "warn", "deny"]) and
		(.modes | index("mutate") != null) == .canMutate and
		.config[0] == "rules.\($id).mode" and
		(.config | all(test("^[a-zA-Z]+(\\.[a-zA-Z.-]+)?$"))) and
		(.helpUri | endswith("docs/rules.md#\($id)")) and
		(.example.before | length > 0) and (.example.after | length > 0) and
		.example.before != .example.after)' "$dir/$id.json" >/dev/null &&
		pass "rules --format json $id: every field" ||
		{ fail "rules --format json $id"; cat "$dir/$id.json"; }

	# every setting it names is one the config file has
	missing=""
	for key in $(jq -r '.[0].config[1:][]' "$dir/$id.json"); do
		"$G" config | awk -v key="$key" '
		BEGIN { n = split(key, part, ".") }
		/^[a-zA-Z]/ { top = $1; sub(/:.*/, "", top) }
		/^  [a-zA-Z]/ { sub_ = $1; sub(/:.*/, "", sub_)
			if (n == 2 && top == part[1] && sub_ == part[2]) found = 1 }
		n == 1 && top == part[1] { found = 1 }
		END { exit !found }' || missing="$missing $key"
	done
	[ -z "$missing" ] && pass "rules $id: the settings it names are keys of the config" ||
		fail "rules $id: not keys of 'gpumend config':$missing"

	jq -j '.[0].example.before' "$dir/$id.json" >"$dir/$id.before.yaml"
	jq -j '.[0].example.after' "$dir/$id.json" >"$dir/$id.after.yaml"
	options=$(jq -r '.[0].example.options | join(" ")' "$dir/$id.json")
	mode=$(jq -r '.[0].defaultMode' "$dir/$id.json")

	# the example finds this rule, and only it
	# shellcheck disable=SC2086
	"$G" lint -q $options --format json "$dir/$id.before.yaml" >"$dir/$id.lint" 2>"$dir/err"
	jq -e --arg id "$id" 'length > 0 and all(.[]; .rule == $id)' "$dir/$id.lint" >/dev/null &&
		pass "rules $id: lint ${options:+$options }reports $id on the example, nothing else" ||
		{ fail "rules $id: lint of the example"; cat "$dir/$id.lint" "$dir/err"; }
	if [ "$mode" = mutate ]; then
		# shellcheck disable=SC2086
		"$G" migrate -q $options "$dir/$id.before.yaml" >"$dir/$id.migrated" 2>"$dir/err" &&
			cmp -s "$dir/$id.migrated" "$dir/$id.after.yaml" &&
			pass "rules $id: migrate writes the example's after, byte for byte" ||
			{ fail "rules $id: migrate of the example"; diff -u "$dir/$id.after.yaml" "$dir/$id.migrated"; }
	fi
	# shellcheck disable=SC2086
	"$G" lint -q $options --format json "$dir/$id.after.yaml" >"$dir/$id.lint" 2>"$dir/err"; rc=$?
	[ $rc = 0 ] && [ "$(jq length "$dir/$id.lint")" = 0 ] &&
		pass "rules $id: the example's after is clean" ||
		{ fail "rules $id: the example's after (exit $rc)"; cat "$dir/$id.lint" "$dir/err"; }

	# docs/rules.md shows the same example
	doc_block "$id" 1 >"$dir/$id.doc.before"
	doc_block "$id" 2 >"$dir/$id.doc.after"
	cmp -s "$dir/$id.doc.before" "$dir/$id.before.yaml" &&
		cmp -s "$dir/$id.doc.after" "$dir/$id.after.yaml" &&
		pass "docs/rules.md: the example of $id is the one gpumend rules gives" ||
		{ fail "docs/rules.md: the example of $id differs"
		  diff -u "$dir/$id.before.yaml" "$dir/$id.doc.before"
		  diff -u "$dir/$id.after.yaml" "$dir/$id.doc.after"; }
done

# several at once, the config's mode, and mistakes
"$G" rules --format json legacy-gpu-resource gpu-visibility | jq -e '[.[].id] == ["legacy-gpu-resource", "gpu-visibility"]' >/dev/null &&
	pass "rules --format json RULE RULE: both, in the order given" ||
	fail "rules --format json RULE RULE"
printf 'rules:\n  gpu-visibility: mutate\n' >"$dir/vis.yaml"
"$G" rules -c "$dir/vis.yaml" gpu-visibility | grep -q '^Modes:    mutate (the default is warn); ' &&
	"$G" rules -c "$dir/vis.yaml" --format json gpu-visibility | jq -e '.[0].mode == "mutate" and .[0].defaultMode == "warn"' >/dev/null &&
	pass "rules -c FILE RULE: the mode in force beside the default" ||
	fail "rules -c FILE RULE: the mode in force"
"$G" rules no-such-rule >"$dir/out" 2>"$dir/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$dir/out" ] &&
	grep -q "^gpumend: error: unknown rule 'no-such-rule'; 'gpumend rules' lists them$" "$dir/err" &&
	pass "rules: an unknown rule exits 2" || { fail "rules: an unknown rule ($rc)"; cat "$dir/err"; }
"$G" rules --format yaml >/dev/null 2>"$dir/err"; rc=$?
[ $rc = 2 ] && grep -q "unknown format 'yaml' (text, json)" "$dir/err" &&
	pass "rules: an unknown format exits 2" || fail "rules: an unknown format ($rc)"
"$G" rules >"$dir/list" && [ "$(head -n 1 "$dir/list")" = "$(printf '%-28s %-7s %s' RULE MODE FINDS)" ] &&
	[ "$(wc -l <"$dir/list")" = $((n + 1)) ] &&
	pass "rules: the list, as before" || fail "rules: the list"

finish explain
