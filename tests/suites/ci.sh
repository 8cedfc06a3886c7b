#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/ci.sh - gpumend where CI runs it: `lint .` in a sample
# monorepo; the pre-commit hooks (.pre-commit-hooks.yaml) with the real
# pre-commit; the commands of the GitHub Action (action.yml, its install
# step ci/install.sh from a file:// URL) and of the GitLab template
# (ci/gitlab-ci.yml), run here by tests/tools/ci_run.py; the SARIF they
# upload checked by Microsoft's SARIF multitool with GitHub's rules (npm
# @microsoft/sarif-multitool-linux, from tests/tools/get.sh);
# Code Quality fingerprints across moved lines; a `kubectl get -o yaml`
# List named item by item in every format.
. "$(dirname "$0")/../lib.sh"

scratch >/dev/null
tmp=$_scratch
G=$GPUMEND
GDIR=$(cd "$(dirname "$G")" && pwd)
ex="$REPO_DIR/examples"
run_ci="$TESTS_DIR/tools/ci_run.py"

# jqe ARGS...: jq -e, quiet
jqe() {
	jq -e "$@" >/dev/null
}

# ------------------------------------------------------------------
# The sample monorepo

# monorepo DIR [clean]: a repository as teams have them: manifests, a Helm
# chart, a web app (tsconfig.json with comments, package.json,
# node_modules/ holding a legacy manifest of its own), a GitHub workflow,
# a compose file. With "clean", its manifests and chart are migrated.
monorepo() {
	_r=$1
	mkdir -p "$_r/deploy" "$_r/charts" "$_r/web/src" \
		"$_r/web/node_modules/gpu-demo/k8s" "$_r/.github/workflows"
	cp "$ex/pod-driver-hostpath.yaml" "$_r/deploy/trainer.yaml"
	# a sidecar that sees every GPU: warned about, never migrated
	[ "${2:-}" = clean ] || cp "$ex/job-gpu-name-selector.yaml" "$_r/deploy/job.yaml"
	cat >"$_r/deploy/web.yaml" <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
EOF
	cp -R "$TESTS_DIR/helm/conditional-gpu/input" "$_r/charts/trainer"
	cat >"$_r/web/tsconfig.json" <<'EOF'
{
  // the compiler's options: JSON with comments, which is no JSON
  "compilerOptions": {
    "strict": true,
    "target": "es2022", /* trailing commas too */
  },
}
EOF
	printf '{"name": "web", "version": "1.0.0", "private": true}\n' >"$_r/web/package.json"
	printf 'export const x = 1;\n' >"$_r/web/src/index.ts"
	cp "$ex/pod-driver-hostpath.yaml" "$_r/web/node_modules/gpu-demo/k8s/pod.yaml"
	printf '{"name": "gpu-demo", "version": "0.0.1"}\n' >"$_r/web/node_modules/gpu-demo/package.json"
	cat >"$_r/.github/workflows/x.yml" <<'EOF'
name: build
on: [push]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
EOF
	cat >"$_r/compose.yaml" <<'EOF'
services:
  trainer:
    image: nvidia/cuda:12.4.1-base-ubuntu22.04
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 1
              capabilities: [gpu]
EOF
	if [ "${2:-}" = clean ]; then
		(cd "$_r" && "$G" migrate -i --quiet deploy charts) >/dev/null 2>&1
		# what the chart leaves to a person (a template action may
		# settle it) is left out of the clean repository
		printf 'charts/\n' >"$_r/.gpumendignore"
	fi
}

mono=$tmp/mono
monorepo "$mono"
(cd "$mono" && "$G" lint .) >"$tmp/mono.out" 2>"$tmp/mono.err"; rc=$?
last=$(tail -n 1 "$tmp/mono.err")
check "monorepo: lint . exits 1 (findings), not 2 (tsconfig.json)" [ "$rc" = 1 ]
check "monorepo: findings in the manifests and the chart, named by object" \
	grep -q "^\./deploy/trainer.yaml:14:9: warning: Pod gpu-pod: .*\[legacy-gpu-resource\]$" "$tmp/mono.out"
check "monorepo: the chart's template is linted at its own lines" \
	grep -q "^\./charts/trainer/templates/deployment.yaml:22:15: warning: " "$tmp/mono.out"
check "monorepo: nothing from node_modules/ nor .github/" \
	sh -c '! grep -q "node_modules\|\.github" "$1"' sh "$tmp/mono.out"
check "monorepo: tsconfig.json is skipped, with a note that says where it does not parse" \
	grep -q "^gpumend: '\./web/tsconfig.json' skipped: not a Kubernetes manifest, and cannot parse it (3:20: " "$tmp/mono.err"
# deploy: 3, the chart: 3, compose.yaml, package.json, tsconfig.json
check "monorepo: the summary line ($last)" \
	sh -c 'echo "$1" | grep -qE "^gpumend: 9 files read: 3 with findings, 5 clean, 1 skipped, 0 failed; 0 errors, [0-9]+ warnings, [0-9]+ info$"' sh "$last"
(cd "$mono" && "$G" lint --quiet --format json .) >"$tmp/mono.json" 2>"$tmp/mono.err"; rc=$?
check "monorepo: --quiet --format json: exit 1, nothing on stderr, a JSON array" \
	sh -c '[ "$1" = 1 ] && [ ! -s "$2" ] && jq -e "type == \"array\" and length > 3" "$3" >/dev/null' sh "$rc" "$tmp/mono.err" "$tmp/mono.json"
clean=$tmp/clean
monorepo "$clean" clean
(cd "$clean" && "$G" lint .) >"$tmp/clean.out" 2>"$tmp/clean.err"; rc=$?
check "clean monorepo: lint . exits 0, no finding, the summary says so" \
	sh -c '[ "$1" = 0 ] && [ ! -s "$2" ] && tail -n 1 "$3" | grep -qE "^gpumend: [0-9]+ files read: 0 with findings, [0-9]+ clean, 1 skipped, 0 failed; 0 errors, 0 warnings, 0 info$"' \
	sh "$rc" "$tmp/clean.out" "$tmp/clean.err"

# ------------------------------------------------------------------
# pre-commit, the real one (Debian's package: make test-deps)

if ! command -v pre-commit >/dev/null 2>&1; then
	fail "pre-commit: not installed (make test-deps installs Debian's pre-commit)"
else
	export PRE_COMMIT_HOME="$tmp/pre-commit-home"
	export GIT_AUTHOR_NAME=gpumend GIT_AUTHOR_EMAIL=dev@gpumend.invalid
	export GIT_COMMITTER_NAME=gpumend GIT_COMMITTER_EMAIL=dev@gpumend.invalid
	# the hooks as this repository defines them, in a repository of their own
	hooks=$tmp/hooks
	mkdir -p "$hooks"
	cp "$REPO_DIR/.pre-commit-hooks.yaml" "$hooks/"
	(cd "$hooks" && git init -q && git add -A && git commit -q -m hooks) ||
		fail "pre-commit: cannot make the hooks' repository"
	# a repository that tracks everything, node_modules/ too: the ignore
	# rules, not git, must keep it out
	for what in clean legacy; do
		work=$tmp/pc-$what
		monorepo "$work" clean
		rm -f "$work/.gpumendignore"
		rm -rf "$work/charts"
		[ "$what" = legacy ] && cp "$ex/pod-driver-hostpath.yaml" "$work/deploy/legacy.yaml"
		(cd "$work" && git init -q && git add -A -f && git commit -q -m repo) ||
			fail "pre-commit: cannot make the $what repository"
		for hook in gpumend-lint gpumend-migrate-check; do
			(cd "$work" && PATH="$GDIR:$PATH" pre-commit try-repo "$hooks" "$hook" \
				--all-files) >"$tmp/pc.out" 2>&1; rc=$?
			if [ "$what" = clean ]; then
				check "pre-commit $hook: passes on a clean repository with tsconfig.json and node_modules/" \
					[ "$rc" = 0 ]
			else
				check "pre-commit $hook: fails on a legacy manifest, naming it" \
					sh -c '[ "$1" = 1 ] && grep -q "deploy/legacy.yaml" "$2"' sh "$rc" "$tmp/pc.out"
			fi
			if { [ "$what" = clean ] && [ "$rc" != 0 ]; } ||
			   { [ "$what" = legacy ] && [ "$rc" != 1 ]; }; then
				sed 's/^/    /' "$tmp/pc.out" | tail -n 15
			fi
		done
	done
fi

# ------------------------------------------------------------------
# The GitHub Action's commands, its install step from a file:// URL

sha=$(sha256sum "$G" | cut -d ' ' -f 1)
runner=$tmp/runner
python3 "$run_ci" action "$REPO_DIR/action.yml" "$mono" "$runner" \
	url="file://$G" sha256="$sha" >"$tmp/action.out" 2>"$tmp/action.err"; rc=$?
report=$(sed -n 's/^lint\.report=//p' "$tmp/action.out")
check "action: installs the CLI, checks its SHA-256, lints, fails on findings (exit $rc)" \
	sh -c '[ "$1" = 1 ] && grep -q "^lint.exit-code=1$" "$2" && [ -x "$3/gpumend/bin/gpumend" ]' \
	sh "$rc" "$tmp/action.out" "$runner"
check "action: the report to upload is SARIF 2.1.0 with the findings" \
	jqe '.version == "2.1.0" and (.runs[0].results | length > 3)' "$report"
# a glob in args reaches gpumend as it is: "--exclude *.yaml" leaves no
# manifest of the monorepo, where "--exclude compose.yaml" would
python3 "$run_ci" action "$REPO_DIR/action.yml" "$mono" "$tmp/runner-glob" \
	url="file://$G" sha256="$sha" args="--exclude *.yaml ." >"$tmp/action.out" 2>"$tmp/action.err"; rc=$?
check "action: args are not expanded as file names (--exclude *.yaml)" \
	sh -c '[ "$1" = 0 ] && jq -e ".runs[0].results == []" "$2" >/dev/null' sh "$rc" "$tmp/runner-glob/gpumend-report"
python3 "$run_ci" action "$REPO_DIR/action.yml" "$clean" "$tmp/runner-clean" \
	url="file://$G" sha256="$sha" format=github >"$tmp/action.out" 2>"$tmp/action.err"; rc=$?
check "action: format github on a clean repository: exit 0" [ "$rc" = 0 ]
bad=$(echo "$sha" | tr '0-9a-f' '1-9a-f0')
python3 "$run_ci" action "$REPO_DIR/action.yml" "$mono" "$tmp/runner-bad" \
	url="file://$G" sha256="$bad" >"$tmp/action.out" 2>"$tmp/action.err"; rc=$?
check "action: a wrong SHA-256 stops it, nothing installed" \
	sh -c '[ "$1" != 0 ] && grep -q "has SHA-256 $2, not $3: not installed" "$4" && [ -z "$(ls -A "$5/gpumend/bin")" ]' \
	sh "$rc" "$sha" "$bad" "$tmp/action.err" "$tmp/runner-bad"
(GPUMEND_URL="file://$tmp/none" GPUMEND_SHA256=$sha GPUMEND_DIR=$tmp/inst \
	sh "$REPO_DIR/ci/install.sh") >/dev/null 2>"$tmp/inst.err"; rc=$?
check "install.sh: a URL that cannot be read is an error naming it" \
	sh -c '[ "$1" = 1 ] && grep -q "cannot download .file://$2/none." "$3"' sh "$rc" "$tmp" "$tmp/inst.err"

# ------------------------------------------------------------------
# The GitLab template's commands, pinned and unpinned

# gitlab DIR VAR=VALUE...: the template's job in DIR, its report removed
# first; stdout and stderr in $tmp/gl.out and gl.err
gitlab() {
	_dir=$1
	shift
	rm -rf "$_dir/gl-code-quality-report.json" "$_dir/.gpumend"
	python3 "$run_ci" gitlab "$REPO_DIR/ci/gitlab-ci.yml" gpumend-lint "$_dir" \
		"$@" >"$tmp/gl.out" 2>"$tmp/gl.err"
}

# A release laid out as `make dist` writes it (tests/dist/build.sh): the
# CLI gpumend-VERSION-linux-amd64 beside SHA256SUMS, which names every
# artefact; `make dist-test` runs the job against dist/ itself
version=$(cat "$REPO_DIR/VERSION")
rel=$tmp/release
mkdir -p "$rel"
cli=gpumend-$version-linux-amd64
cp "$G" "$rel/$cli"
for f in "gpumend-$version.tar.gz" "gpumend-$version.tgz" \
	"gpumend-$version-linux-arm64" NOTICES; do
	echo "$f" >"$rel/$f"
done
(cd "$rel" && sha256sum "gpumend-$version.tar.gz" "gpumend-$version.tgz" \
	"$cli" "gpumend-$version-linux-arm64" NOTICES >SHA256SUMS)

gitlab "$mono" GPUMEND_URL="file://$G" GPUMEND_SHA256="$sha"; rc=$?
check "gitlab, pinned: the job fails on findings (exit $rc)" [ "$rc" = 1 ]
check "gitlab, pinned: the Code Quality report holds them, paths relative to the repository" \
	jqe 'length > 3 and all(.[]; (.location.path | startswith("./") | not) and .location.lines.begin > 0 and (.fingerprint | length) == 64 and (.severity | IN("info", "minor", "major", "critical", "blocker")))' \
	"$mono/gl-code-quality-report.json"
gitlab "$clean" GPUMEND_URL="file://$G" GPUMEND_SHA256="$sha"; rc=$?
check "gitlab, pinned: a clean repository passes with an empty report" \
	sh -c '[ "$1" = 0 ] && jq -e ". == []" "$2" >/dev/null' sh "$rc" "$clean/gl-code-quality-report.json"
gitlab "$clean" GPUMEND_URL="file://$rel/$cli" GPUMEND_SHA256="$sha"; rc=$?
check "gitlab, pinned: the release's CLI, SHA256SUMS not read" \
	sh -c '[ "$1" = 0 ] && [ ! -e "$2/.gpumend/SHA256SUMS" ]' sh "$rc" "$clean"

# unpinned: the CLI's line of SHA256SUMS
gitlab "$mono" GPUMEND_URL="file://$rel/$cli"; rc=$?
check "gitlab, unpinned: checked against the release's SHA256SUMS, fails on findings (exit $rc)" \
	sh -c '[ "$1" = 1 ] && grep -q "^\.gpumend/gpumend: OK$" "$2" &&
	 jq -e "length > 3" "$3" >/dev/null' sh "$rc" "$tmp/gl.out" "$mono/gl-code-quality-report.json"
gitlab "$clean" GPUMEND_URL="file://$rel/$cli"; rc=$?
check "gitlab, unpinned: a clean repository passes with an empty report" \
	sh -c '[ "$1" = 0 ] && jq -e ". == []" "$2" >/dev/null' sh "$rc" "$clean/gl-code-quality-report.json"
# a damaged download: the CLI is not what SHA256SUMS says
mkdir -p "$tmp/damaged"
cp "$rel/SHA256SUMS" "$tmp/damaged/"
{ cat "$G"; echo; } >"$tmp/damaged/$cli"
gitlab "$clean" GPUMEND_URL="file://$tmp/damaged/$cli"; rc=$?
check "gitlab, unpinned: a CLI that is not the one of SHA256SUMS fails the job before any lint" \
	sh -c '[ "$1" != 0 ] && ! grep -q "files read" "$2" && [ ! -e "$3" ]' \
	sh "$rc" "$tmp/gl.err" "$clean/gl-code-quality-report.json"
# a CLI that SHA256SUMS does not name, and a release without SHA256SUMS
cp "$G" "$rel/gpumend-renamed"
gitlab "$clean" GPUMEND_URL="file://$rel/gpumend-renamed"; rc=$?
check "gitlab, unpinned: SHA256SUMS names no such CLI: the job fails, saying so" \
	sh -c '[ "$1" != 0 ] && grep -q "SHA256SUMS names no gpumend-renamed; set GPUMEND_SHA256" "$2" &&
	 [ ! -e "$3" ]' sh "$rc" "$tmp/gl.err" "$clean/gl-code-quality-report.json"
mkdir -p "$tmp/nosums"
cp "$G" "$tmp/nosums/$cli"
gitlab "$clean" GPUMEND_URL="file://$tmp/nosums/$cli"; rc=$?
check "gitlab, unpinned: no SHA256SUMS beside the CLI: the job fails, saying so" \
	sh -c '[ "$1" != 0 ] && grep -q "cannot download file://.*/nosums/SHA256SUMS; set GPUMEND_SHA256" "$2" &&
	 [ ! -e "$3" ]' sh "$rc" "$tmp/gl.err" "$clean/gl-code-quality-report.json"
gitlab "$mono" GPUMEND_URL="file://$G" GPUMEND_SHA256="$sha" GPUMEND_ARGS="--exclude *.yaml ."; rc=$?
check "gitlab: GPUMEND_ARGS are not expanded as file names (--exclude *.yaml)" \
	sh -c '[ "$1" = 0 ] && jq -e ". == []" "$2" >/dev/null' sh "$rc" "$mono/gl-code-quality-report.json"
gitlab "$clean" GPUMEND_URL="file://$G" GPUMEND_SHA256="$bad"; rc=$?
check "gitlab, pinned: a wrong SHA-256 fails the job before any lint" \
	sh -c '[ "$1" != 0 ] && ! grep -q "files read" "$2" && [ ! -e "$3" ]' \
	sh "$rc" "$tmp/gl.err" "$clean/gl-code-quality-report.json"

# ------------------------------------------------------------------
# Code Quality fingerprints: lines move, the issues stay the same

cq=$tmp/cq
mkdir -p "$cq"
# item POD GPUS: a List item, a pod with two containers
item() {
	printf -- '- apiVersion: v1\n  kind: Pod\n  metadata: {name: %s, namespace: ml}\n  spec:\n    containers:\n' "$1"
	for c in a b; do
		printf -- '    - name: %s\n      resources:\n        limits:\n          alpha.kubernetes.io/nvidia-gpu: %s\n' "$c" "$2"
	done
}
{ printf 'apiVersion: v1\nkind: List\nitems:\n'; item one 1; item two 2; } >"$cq/list.yaml"
(cd "$cq" && "$G" lint --quiet --format codequality list.yaml) >"$tmp/cq1.json"
# ten lines more above, and the List's items in the other order
{ printf '# moved\n%.0s' 1 2 3 4 5 6 7 8 9 10
  printf 'apiVersion: v1\nkind: List\nitems:\n'; item two 2; item one 1; } >"$cq/list.yaml"
(cd "$cq" && "$G" lint --quiet --format codequality list.yaml) >"$tmp/cq2.json"
jq -r '[.[].fingerprint] | sort | .[]' "$tmp/cq1.json" >"$tmp/fp1"
jq -r '[.[].fingerprint] | sort | .[]' "$tmp/cq2.json" >"$tmp/fp2"
jq -r '[.[].location.lines.begin] | sort | .[]' "$tmp/cq1.json" >"$tmp/ln1"
jq -r '[.[].location.lines.begin] | sort | .[]' "$tmp/cq2.json" >"$tmp/ln2"
check "codequality: lines and List items moved, the fingerprints are the same" \
	sh -c '[ -s "$1" ] && cmp -s "$1" "$2" && ! cmp -s "$3" "$4" && [ "$(sort -u "$1" | wc -l)" = "$(wc -l <"$1")" ]' \
	sh "$tmp/fp1" "$tmp/fp2" "$tmp/ln1" "$tmp/ln2"

# ------------------------------------------------------------------
# A `kubectl get -o yaml` List: each item named in every format

list="$TESTS_DIR/golden/list-kubectl-get-names-objects/input.yaml"
for f in text json sarif github codequality; do
	"$G" lint --quiet --format $f - <"$list" >"$tmp/list.$f"
done
check "List: text names each item" \
	sh -c 'grep -q "^<stdin>:17:11: warning: Pod research/trainer-0: " "$1" && grep -q "^<stdin>:29:11: warning: Pod media/render-\*: " "$1" && grep -q "^<stdin>:55:15: warning: Deployment notebook: " "$1"' sh "$tmp/list.text"
check "List: json names each item" \
	jqe '[.[] | [.kind, .namespace, .name, .generateName]] == [["Pod", "research", "trainer-0", null], ["Pod", "media", null, "render-"], ["Deployment", null, "notebook", null]]' "$tmp/list.json"
check "List: sarif names each item in its logical location" \
	jqe '[.runs[0].results[].locations[0].logicalLocations[0].fullyQualifiedName] == ["Pod research/trainer-0", "Pod media/render-*", "Deployment notebook"]' "$tmp/list.sarif"
check "List: github names each item in the title" \
	sh -c '[ "$(grep -c "title=legacy-gpu-resource (\(Pod research/trainer-0\|Pod media/render-\*\|Deployment notebook\))::" "$1")" = 3 ]' sh "$tmp/list.github"
check "List: codequality names each item in the description" \
	jqe '[.[].description | split(":")[0]] == ["Pod research/trainer-0", "Pod media/render-*", "Deployment notebook"]' "$tmp/list.codequality"

# ------------------------------------------------------------------
# SARIF checked by Microsoft's SARIF multitool with GitHub's rules

if ! multitool=$(tool sarif-multitool); then
	fail "sarif multitool: not installed (tests/tools/get.sh sarif-multitool failed)"
else
	# a sample of every rule: the examples, the monorepo, the golden cases
	(cd "$REPO_DIR" && "$G" lint --quiet --format sarif examples tests/golden) >"$tmp/all.sarif" 2>/dev/null
	# and the rule that acts under the dra target alone
	(cd "$REPO_DIR" && "$G" lint --quiet --format sarif --target dra \
		tests/golden/dra-unsupported-*/input.yaml) >"$tmp/dra.sarif" 2>/dev/null
	cp "$report" "$tmp/mono.sarif"
	cp "$tmp/list.sarif" "$tmp/list-stdin.sarif"
	for s in all dra mono list-stdin; do
		rm -f "$tmp/$s.check.sarif"
		# .NET: no ICU needed for this
		DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 "$multitool" validate \
			--rule-kind "Gh;Sarif" --level "Error;Warning;Note" \
			-o "$tmp/$s.check.sarif" "$tmp/$s.sarif" >"$tmp/mt.out" 2>&1
		if ! jq -e . "$tmp/$s.check.sarif" >/dev/null 2>&1; then
			fail "sarif multitool: $s: no verdict"
			sed 's/^/    /' "$tmp/mt.out" | tail -n 5
			continue
		fi
		# a result without a level is a warning
		bad=$(jq '[.runs[0].results[] | select((.level // "warning") | IN("error", "warning"))] | length' \
			"$tmp/$s.check.sarif")
		rules=$(jq '.runs[0].tool.driver.rules | length' "$tmp/$s.sarif")
		if [ "$bad" = 0 ] && [ "$rules" -gt 0 ]; then
			pass "sarif multitool (Gh;Sarif): $s.sarif ($rules rules): 0 errors, 0 warnings"
		else
			fail "sarif multitool (Gh;Sarif): $s.sarif: $bad errors and warnings"
			jq -r '.runs[0].results[] | select((.level // "warning") | IN("error", "warning")) | "    \(.ruleId): \(.message.text // .message.id)"' \
				"$tmp/$s.check.sarif" | head -n 10
		fi
	done
	# every rule of `gpumend rules` was in what the multitool checked
	"$G" rules | awk 'NR > 1 { print $1 }' | sort >"$tmp/rules.want"
	jq -r '.runs[0].tool.driver.rules[].id' "$tmp/all.sarif" "$tmp/dra.sarif" |
		sort -u >"$tmp/rules.got"
	missing=$(comm -23 "$tmp/rules.want" "$tmp/rules.got" | tr '\n' ' ')
	[ -s "$tmp/rules.want" ] && [ -z "$missing" ] &&
		pass "sarif multitool: the sample holds every rule" ||
		fail "sarif multitool: the sample lacks rules: $missing"
fi

finish ci
