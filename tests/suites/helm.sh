#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/helm.sh - Helm charts, migrated and linted in place. One
# folder per case under tests/helm/, holding
#   input/             the chart (Chart.yaml, values*.yaml, templates/)
#   expected/          the chart as `gpumend migrate -i` must leave it
#   expected.lint      what `gpumend lint input` prints (text format)
#   expected.stderr    what `gpumend migrate -i input` prints on stderr
#   expected.exit      (optional) migrate's exit status, default 0
#   render-*.yaml      (optional) values to render the chart with, besides
#                      its own and the value sets that flip its booleans
#   partial            (optional) some changes are left to the user (and
#                      reported): rendering the migrated chart then needs
#                      migrating still
#   release-labels     (optional) label keys, one a line, that vary per
#                      release (`chart: {{ .Chart.Name }}-{{ .Chart.Version }}`)
#                      and that the selector added for apps/v1 leaves out,
#                      since a selector cannot change once created: the
#                      one known difference between the migrated chart
#                      and the migration of its rendering. Each rendering
#                      must show it (the keys in the selectors migrating
#                      the rendered input adds, in none of the migrated
#                      chart's), and the two then compare without them
#   config.yaml        (optional) the config every gpumend run of the case
#                      takes (-c); its `rules:` mapping comes last
# For each case: the migrated tree, stderr and exit status; every template
# action of the input is still in the output, byte for byte and in order
# (copies of actions aside); migrating again changes nothing; lint's text
# findings, and the same places in the JSON, SARIF and GitHub formats. Then,
# rendered with tests/helm-template (Go's text/template with sprig and
# Helm's functions: a stand-in for `helm template`) under each set of
# values: migrating the rendered
# input gives what migrating the rendered output gives, and, unless the
# case is partial, what rendering the output gives already; and `gpumend
# review`'s patch (the webhook's answer), applied by
# tests/webhook/jsonpatch.jq, gives each rendered object as the CLI
# migrates it (the offline-only rule left out, the record annotation
# aside). GOLDEN_UPDATE=1 writes the expected files instead.
. "$(dirname "$0")/../lib.sh"

scratch >/dev/null
tmp=$_scratch
cases="$TESTS_DIR/helm"

# -------------------------------------------------------- the renderer
# tests/helm-template: Go's text/template with sprig and Helm's functions
# (Debian's golang-go, golang-github-masterminds-sprig-dev and
# golang-gopkg-yaml.v2-dev, which `make test` installs), built once per
# change of its source (helm_template_build, tests/lib.sh); without Go or
# those packages the suite fails.
if helm_template_build "$tmp"; then
	pass "the Go renderer (helm-template) builds"
else
	fail "the Go renderer (helm-template) builds"
	sed 's/^/    /' "$tmp/render.log" | head -n 30
	finish helm
	exit 1
fi

# the renderer against what Helm documents: each chart of
# tests/helm-template/testdata/ with the arguments of its NAME.args renders
# as NAME.expected says
for args in "$REPO_DIR"/tests/helm-template/testdata/*.args; do
	name=$(basename "$args" .args)
	# shellcheck disable=SC2046
	if (cd "$(dirname "$args")" && "$RENDER" render "$name" $(cat "$args")) \
		>"$tmp/$name.rendered" 2>&1 &&
		diff -u "${args%.args}.expected" "$tmp/$name.rendered" >"$tmp/d"; then
		pass "helm-template renders $name as Helm does"
	else
		fail "helm-template renders $name as Helm does"
		sed 's/^/    /' "$tmp/d" "$tmp/$name.rendered" | head -n 40
	fi
done

# subsequence A B: every line of A is in B, in order.
subsequence() {
	awk 'BEGIN { n = 0; i = 0 }
	     NR == FNR { want[n++] = $0; next }
	     i < n && $0 == want[i] { i++ }
	     END { if (i < n) { print "missing: " want[i]; exit 1 } }' "$1" "$2"
}

# places FILE FORMAT: "LINE:COL" of each finding of a lint report.
places() {
	case $2 in
	text) sed -n 's/^[^:]*:\([0-9]*\):\([0-9]*\): .*/\1:\2/p' "$1" ;;
	json) jq -r '.[] | "\(.line):\(.column)"' "$1" ;;
	sarif) jq -r '.runs[0].results[] | .locations[0].physicalLocation.region |
		"\(.startLine):\(.startColumn)"' "$1" ;;
	github) sed -n 's/^::[a-z]* file=[^,]*,line=\([0-9]*\),col=\([0-9]*\).*/\1:\2/p' "$1" ;;
	esac
}

# render render|json|actions ARGS...: tests/helm-template
render() {
	"$RENDER" "$@"
}

# patched OBJECT RESPONSE OUT: the response's patch applied by
# tests/webhook/jsonpatch.jq (RFC 6902 in jq, apart from gpumend's code).
patched() {
	_patch=$(jq -r '.response.patch // empty' "$2" | base64 -d)
	jq --argjson p "${_patch:-[]}" -f "$TESTS_DIR/webhook/jsonpatch.jq" "$1" >"$3"
}

# the webhook does not run the offline-only rule; the API server converts
printf 'rules:\n  deprecated-workload-api:\n    mode: off\n' >"$tmp/online.yaml"

for dir in "$cases"/*/; do
	name=$(basename "$dir")
	[ -d "$dir/input" ] || continue
	work="$tmp/$name"
	mkdir -p "$work"
	cp -R "$dir/input" "$work/input"
	want_exit=0
	[ -f "$dir/expected.exit" ] && want_exit=$(cat "$dir/expected.exit")
	cfg=
	online="$tmp/online.yaml"
	if [ -f "$dir/config.yaml" ]; then
		cfg="-c $dir/config.yaml"
		online="$work/online.yaml"
		{ cat "$dir/config.yaml"
		  printf '  deprecated-workload-api:\n    mode: off\n'; } >"$online"
	fi

	(cd "$work" && "$GPUMEND" migrate $cfg -i input >"$work/out" 2>"$work/err")
	got_exit=$?
	cp -R "$dir/input" "$work/lint-input"
	(cd "$work" && mv input migrated && mv lint-input input &&
		"$GPUMEND" lint $cfg input >"$work/lint" 2>"$work/lint.err")
	lint_exit=$?
	for f in json sarif github; do
		(cd "$work" && "$GPUMEND" lint $cfg --format $f input >"$work/lint.$f" 2>/dev/null)
	done

	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
		rm -rf "$dir/expected"
		cp -R "$work/migrated" "$dir/expected"
		cp "$work/lint" "$dir/expected.lint"
		cp "$work/err" "$dir/expected.stderr"
		if [ "$got_exit" != 0 ]; then
			echo "$got_exit" >"$dir/expected.exit"
		else
			rm -f "$dir/expected.exit"
		fi
		pass "$name: updated"
		continue
	fi

	check "$name: migrate exits $want_exit (got $got_exit)" [ "$got_exit" = "$want_exit" ]
	if [ -s "$work/out" ]; then
		fail "$name: migrate -i prints nothing on stdout"
	fi
	if diff -u "$dir/expected.stderr" "$work/err" >"$work/d"; then
		pass "$name: migrate stderr"
	else
		fail "$name: migrate stderr"
		sed 's/^/    /' "$work/d"
	fi
	if diff -ru "$dir/expected" "$work/migrated" >"$work/d"; then
		pass "$name: migrated chart"
	else
		fail "$name: migrated chart"
		sed 's/^/    /' "$work/d" | head -n 80
	fi

	# every action kept, byte for byte
	ok=1
	for f in $(cd "$work/input" && find templates -type f | sort); do
		render actions "$work/input/$f" >"$work/a.in" 2>"$work/a.err" &&
		render actions "$work/migrated/$f" >"$work/a.out" 2>>"$work/a.err" &&
		subsequence "$work/a.in" "$work/a.out" >>"$work/a.err" || {
			ok=0
			echo "$f:" >>"$work/a.err"
		}
	done
	if [ $ok = 1 ]; then
		pass "$name: every template action kept"
	else
		fail "$name: every template action kept"
		sed 's/^/    /' "$work/a.err"
	fi

	# idempotence
	cp -R "$work/migrated" "$work/again"
	(cd "$work" && "$GPUMEND" migrate $cfg -i again >/dev/null 2>&1)
	if diff -ru "$work/migrated" "$work/again" >"$work/d"; then
		pass "$name: migrating again changes nothing"
	else
		fail "$name: migrating again changes something"
		sed 's/^/    /' "$work/d" | head -n 40
	fi

	# lint
	if diff -u "$dir/expected.lint" "$work/lint" >"$work/d"; then
		pass "$name: lint findings"
	else
		fail "$name: lint findings"
		sed 's/^/    /' "$work/d"
	fi
	want_lint_exit=0
	grep -qE ': (warning|error): ' "$work/lint" && want_lint_exit=1
	grep -qE '\[(syntax|input)\]$' "$work/lint" && want_lint_exit=2
	check "$name: lint exits $want_lint_exit" [ "$lint_exit" = "$want_lint_exit" ]
	places "$work/lint" text >"$work/p.text"
	ok=1
	for f in json sarif github; do
		places "$work/lint.$f" $f >"$work/p.$f" 2>/dev/null
		cmp -s "$work/p.text" "$work/p.$f" || ok=0
	done
	check "$name: the JSON, SARIF and GitHub reports hold the same places" [ $ok = 1 ]

	# rendered: the source migration agrees with migrating the output,
	# under the chart's own values, each render-*.yaml, and each value set
	# of `helm-template valuesets` (every boolean flipped alone, all true,
	# all false): "LABEL<tab>ARGS" a line
	tab=$(printf '\t')
	{
		printf 'values.yaml\t\n'
		for values in $(cd "$dir" && ls render-*.yaml 2>/dev/null); do
			printf '%s\t%s\n' "$values" "$dir/$values"
		done
		render valuesets "$work/input" | while read -r set; do
			printf '%s\t%s\n' "$set" "$set"
		done
	} >"$work/sets"
	while IFS=$tab read -r label vargs <&3; do
		# shellcheck disable=SC2086
		if ! render render "$work/input" $vargs >"$work/r.in" 2>"$work/r.err" ||
		   ! render render "$work/migrated" $vargs >"$work/r.out" 2>>"$work/r.err"; then
			fail "$name ($label): the chart renders"
			sed 's/^/    /' "$work/r.err"
			continue
		fi
		"$GPUMEND" migrate $cfg "$work/r.in" >"$work/rm.in" 2>/dev/null
		"$GPUMEND" migrate $cfg "$work/r.out" >"$work/rm.out" 2>/dev/null
		render json "$work/rm.in" >"$work/j.want" &&
		render json "$work/rm.out" >"$work/j.got" &&
		render json "$work/r.out" >"$work/j.rendered" || {
			fail "$name ($label): the rendered charts read"
			continue
		}
		if [ -f "$dir/release-labels" ]; then
			keys=$(jq -Rn '[inputs | select(length > 0)]' "$dir/release-labels")
			# shellcheck disable=SC2016
			sel='[.spec.selector.matchLabels // {} | keys[]]'
			if jq -s -e --argjson k "$keys" "[.[] | $sel[]] as \$s |
				all(\$k[]; . as \$x | \$s | index([\$x]))" \
				"$work/j.want" >/dev/null &&
			   jq -s -e --argjson k "$keys" "[.[] | $sel[]] as \$s |
				all(\$k[]; . as \$x | \$s | index([\$x]) | not)" \
				"$work/j.rendered" >/dev/null; then
				pass "$name ($label): the added selector leaves out the labels that vary per release"
			else
				fail "$name ($label): the added selector leaves out the labels that vary per release"
			fi
			jq -c --argjson k "$keys" 'if .spec.selector.matchLabels then
				.spec.selector.matchLabels |= with_entries(select(
					.key as $x | $k | index([$x]) | not))
			    else . end' "$work/j.want" >"$work/j.want2" &&
				mv "$work/j.want2" "$work/j.want"
			# the same JSON writer on both sides
			for f in j.got j.rendered; do
				jq -c . "$work/$f" >"$work/$f.2" && mv "$work/$f.2" "$work/$f"
			done
		fi
		if diff -u "$work/j.want" "$work/j.got" >"$work/d"; then
			pass "$name ($label): rendering then migrating agrees with migrating the chart"
		else
			fail "$name ($label): rendering then migrating agrees with migrating the chart"
			sed 's/^/    /' "$work/d"
		fi
		if [ ! -f "$dir/partial" ]; then
			if diff -u "$work/j.want" "$work/j.rendered" >"$work/d"; then
				pass "$name ($label): the migrated chart renders migrated"
			else
				fail "$name ($label): the migrated chart renders migrated"
				sed 's/^/    /' "$work/d"
			fi
		fi

		# the webhook's answer for each rendered object
		"$GPUMEND" migrate -c "$online" "$work/r.in" >"$work/ro.in" 2>/dev/null
		render json "$work/r.in" >"$work/objs"
		render json "$work/ro.in" >"$work/wants"
		i=0
		ok=1
		while read -r obj; do
			i=$((i + 1))
			echo "$obj" >"$work/obj.json"
			sed -n "${i}p" "$work/wants" >"$work/want.json"
			jq -n --argjson obj "$obj" '{
				apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview",
				request: {
					uid: "helm-case", operation: "CREATE",
					kind: {group: "", version: "v1", kind: $obj.kind},
					resource: {group: "", version: "v1", resource: "pods"},
					namespace: "default", name: ($obj.metadata.name // ""),
					userInfo: {username: "test"}, object: $obj, dryRun: false
				}
			}' >"$work/req.json"
			if "$GPUMEND" review $cfg "$work/req.json" >"$work/resp.json" 2>"$work/w.err" &&
			   patched "$work/obj.json" "$work/resp.json" "$work/got.json" 2>>"$work/w.err"; then
				jq -S 'if .metadata.annotations then
					.metadata.annotations |= del(.["gpumend.io/mutations"]) |
					if .metadata.annotations == {} then del(.metadata.annotations) else . end
				    else . end' "$work/got.json" >"$work/got2.json"
				jq -S . "$work/want.json" >"$work/want2.json"
				if ! diff -u "$work/want2.json" "$work/got2.json" >>"$work/w.err"; then
					ok=0
				fi
			else
				ok=0
			fi
		done <"$work/objs"
		if [ $ok = 1 ] && [ "$i" -gt 0 ]; then
			pass "$name ($label): gpumend review agrees on the $i rendered objects"
		else
			fail "$name ($label): gpumend review agrees on the $i rendered objects"
			sed 's/^/    /' "$work/w.err" | head -n 40
		fi
	done 3<"$work/sets"
done

# ------------------------------------------------ the CLI around charts
# verdict DESCRIPTION STATUS: passes when STATUS is 0.
verdict() {
	if [ "$2" = 0 ]; then pass "$1"; else fail "$1"; fi
}

chart="$TESTS_DIR/helm/conditional-gpu/input"
cli="$tmp/cli"
mkdir -p "$cli"
cp -R "$chart" "$cli/chart"
(cd "$cli" && "$GPUMEND" migrate --check chart >"$cli/out" 2>"$cli/err")
rc=$?
[ $rc = 1 ] && [ ! -s "$cli/out" ] &&
	grep -q "would migrate 'chart/templates/deployment.yaml'" "$cli/err"
verdict "--check on a chart exits 1 and says which file" $?
diff -r "$chart" "$cli/chart" >/dev/null
verdict "--check leaves the chart as it was" $?
(cd "$cli" && "$GPUMEND" migrate --diff chart >"$cli/out" 2>/dev/null)
rc=$?
[ $rc = 0 ] && grep -q '^+++ b/chart/templates/deployment.yaml' "$cli/out" &&
	grep -q '^+ *nvidia.com/gpu: {{ .Values.gpu.count }}' "$cli/out"
verdict "--diff on a chart prints the template's diff" $?
(cd "$cli" && "$GPUMEND" migrate --no-chart chart >/dev/null 2>"$cli/err")
rc=$?
[ $rc = 2 ] && grep -q 'a Helm template? --chart reads it as one' "$cli/err"
verdict "--no-chart reads templates as manifests (they do not parse)" $?
cp "$chart/templates/deployment.yaml" "$cli/lone.yaml"
"$GPUMEND" migrate "$cli/lone.yaml" >/dev/null 2>&1
rc1=$?
"$GPUMEND" migrate --chart "$cli/lone.yaml" >"$cli/lone.out" 2>/dev/null
rc2=$?
[ $rc1 = 2 ] && [ $rc2 = 0 ] && cmp -s "$cli/lone.out" \
	"$TESTS_DIR/helm/conditional-gpu/expected/templates/deployment.yaml"
verdict "a template outside a chart: refused as a manifest, migrated with --chart" $?
"$GPUMEND" migrate --chart - <"$cli/lone.yaml" >"$cli/stdin.out" 2>/dev/null
cmp -s "$cli/stdin.out" "$cli/lone.out"
verdict "--chart reads standard input as a template" $?
# a document that does not read back as the rules' result once edited
# (a label printing, unquoted, the action that is a GPU count elsewhere:
# read as a number) is left with a warning at each change, the file's
# other documents migrated
cp -R "$TESTS_DIR/helm/held-document/chart" "$cli/held"
(cd "$cli" && "$GPUMEND" migrate -i held >/dev/null 2>"$cli/err")
rc=$?
f=held/templates/deployments.yaml
orig="$TESTS_DIR/helm/held-document/chart/templates/deployments.yaml"
[ $rc = 0 ] &&
	grep -q "^$f:1:1: warning: .*setting 'apiVersion' to \"apps/v1\"; the edited template does not read back" "$cli/err" &&
	grep -q "^$f:5:1: warning: .*adding 'spec.selector.*does not read back" "$cli/err" &&
	sed '/^---$/q' "$orig" >"$cli/db.want" && sed '/^---$/q' "$cli/$f" >"$cli/db.got" &&
	cmp -s "$cli/db.want" "$cli/db.got" &&
	grep -q '^            nvidia.com/gpu: {{ .Values.gpuCount }}$' "$cli/$f"
verdict "a document that does not read back is held at its places, the others migrated" $?
helpers="$TESTS_DIR/helm/included-labels/input/templates/_helpers.tpl"
"$GPUMEND" migrate "$helpers" >"$cli/out" 2>"$cli/err"
rc=$?
[ $rc = 0 ] && [ ! -s "$cli/out" ] &&
	grep -q 'is not a YAML template; not migrated' "$cli/err"
verdict "a non-YAML template named on the command line gets a note" $?
"$GPUMEND" lint "$helpers" >"$cli/out" 2>"$cli/err"
rc=$?
[ $rc = 0 ] && [ ! -s "$cli/out" ] && grep -q 'not linted' "$cli/err"
verdict "lint notes a non-YAML template and finds nothing" $?

finish helm
