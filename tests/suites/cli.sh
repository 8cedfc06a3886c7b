#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/cli.sh - the gpumend command as a user drives it: subcommands
# and flags, files, directories and stdin, in-place writes, exit statuses,
# the lint formats, config files and their errors.
. "$(dirname "$0")/../lib.sh"

dir=$(scratch)
G="$GPUMEND"
ex="$REPO_DIR/examples"

# --- usage ---------------------------------------------------------------
"$G" --version | grep -qE '^gpumend [0-9]+\.[0-9]+\.[0-9]+ \(([0-9a-f]{7,}|unknown)\)$' &&
	pass "--version" || fail "--version"
for cmd in migrate lint review certs rules config; do
	if "$G" $cmd --help >"$dir/help" 2>&1 && grep -q "usage: gpumend $cmd" "$dir/help"; then
		pass "$cmd --help"
	else
		fail "$cmd --help"
	fi
done
"$G" frobnicate >/dev/null 2>"$dir/err"; rc=$?
[ $rc = 2 ] && grep -q "'frobnicate' is not a gpumend command" "$dir/err" &&
	pass "unknown command exits 2" || fail "unknown command exits 2 ($rc)"
"$G" migrate --bogus >/dev/null 2>&1; [ $? = 2 ] &&
	pass "unknown flag exits 2" || fail "unknown flag exits 2"
# a usage error is one line naming the command and pointing to its help,
# not the whole usage; each command alike (getopt's words are not shown)
while IFS='|' read -r args want; do
	# shellcheck disable=SC2086
	"$G" $args >/dev/null 2>"$dir/err"; rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$dir/err")" = 1 ] && [ "$(cat "$dir/err")" = "$want" ]; then
		pass "usage error: gpumend $args"
	else
		fail "usage error: gpumend $args: exit $rc, $(cat "$dir/err")"
	fi
done <<'EOF'
lint --bogus|gpumend lint: unknown option '--bogus'; see 'gpumend lint --help'
lint -z|gpumend lint: unknown option '-z'; see 'gpumend lint --help'
lint --format|gpumend lint: option '--format' needs a value; see 'gpumend lint --help'
lint --quiet=yes|gpumend lint: option '--quiet' takes no value; see 'gpumend lint --help'
migrate --bogus|gpumend migrate: unknown option '--bogus'; see 'gpumend migrate --help'
rules -c|gpumend rules: option '-c' needs a value; see 'gpumend rules --help'
config --bogus|gpumend config: unknown option '--bogus'; see 'gpumend config --help'
webhook-config --bogus|gpumend webhook-config: unknown option '--bogus'; see 'gpumend webhook-config --help'
review --bogus|gpumend review: unknown option '--bogus'; see 'gpumend review --help'
certs --bogus|gpumend certs: unknown option '--bogus'; see 'gpumend certs --help'
certs check --bogus|gpumend certs check: unknown option '--bogus'; see 'gpumend certs check --help'
EOF
"$G" lint --format xml "$ex" >/dev/null 2>"$dir/err"; [ $? = 2 ] && grep -q "unknown format 'xml'" "$dir/err" &&
	pass "bad --format exits 2" || fail "bad --format exits 2"
"$G" lint --fail-on fatal "$ex" >/dev/null 2>&1; [ $? = 2 ] &&
	pass "bad --fail-on exits 2" || fail "bad --fail-on exits 2"
"$G" >/dev/null 2>&1; [ $? = 2 ] && pass "no command exits 2" || fail "no command exits 2"

# options anywhere, as git and kubectl take them; "--" ends them
"$G" lint "$ex/pod-driver-hostpath.yaml" --format json >"$dir/late.json" 2>"$dir/err"; rc=$?
[ $rc = 1 ] && jq -e 'length > 0 and all(.[]; .rule != "input")' "$dir/late.json" >/dev/null 2>&1 &&
	pass "lint FILE --format json: the option after the path" ||
	{ fail "lint FILE --format json: the option after the path ($rc)"; cat "$dir/err"; }
"$G" migrate "$ex/pod-driver-hostpath.yaml" --check >/dev/null 2>&1; [ $? = 1 ] &&
	pass "migrate FILE --check: the option after the path" ||
	fail "migrate FILE --check: the option after the path"
"$G" migrate "$ex/pod-driver-hostpath.yaml" -c "$dir/none.yaml" >/dev/null 2>"$dir/err"; [ $? = 2 ] &&
	grep -q "cannot open config" "$dir/err" && pass "migrate FILE -c CONFIG: -c read after the path" ||
	fail "migrate FILE -c CONFIG: -c read after the path"
cp "$ex/pod-driver-hostpath.yaml" "$dir/--check"
(cd "$dir" && "$G" migrate -- --check) >"$dir/dd.out" 2>"$dir/err"; rc=$?
[ $rc = 0 ] && grep -q 'nvidia.com/gpu' "$dir/dd.out" &&
	pass "'--' ends the options: '--check' is then a file" ||
	{ fail "'--' ends the options ($rc)"; cat "$dir/err"; }
"$G" config -c /dev/null extra >/dev/null 2>"$dir/err"; [ $? = 2 ] &&
	grep -q "^gpumend config: unexpected argument 'extra'; see 'gpumend config --help'$" "$dir/err" &&
	pass "config: an operand is refused" ||
	fail "config: an operand is refused"
POSIXLY_CORRECT=1 "$G" lint "$ex/pod-driver-hostpath.yaml" --fail-on error >/dev/null 2>&1; [ $? = 0 ] &&
	pass "options after paths also under POSIXLY_CORRECT" ||
	fail "options after paths also under POSIXLY_CORRECT"

# standard input is "<stdin>" in every message, whatever reads it
while IFS='|' read -r args want; do
	# shellcheck disable=SC2086
	printf 'kind: [\n' | "$G" $args >/dev/null 2>"$dir/err"
	if grep -qF -- "$want" "$dir/err" && ! grep -q "'-'" "$dir/err"; then
		pass "standard input is <stdin>: gpumend $args"
	else
		fail "standard input is <stdin>: gpumend $args: $(cat "$dir/err")"
	fi
done <<'EOF'
lint|<stdin>:2:1: error: cannot parse
lint -|<stdin>:2:1: error: cannot parse
migrate -|<stdin>:2:1: error: cannot parse
review|cannot review '<stdin>': malformed JSON
review -|cannot review '<stdin>': malformed JSON
certs check - --service s --namespace n|'<stdin>' holds no certificate
EOF

# --- rules and config ----------------------------------------------------
n=$("$G" rules | tail -n +2 | wc -l)
[ "$n" = 15 ] && pass "rules lists fifteen rules" || fail "rules lists $n rules"
"$G" config >"$dir/default.yaml" && "$G" config -c "$dir/default.yaml" >"$dir/effective.yaml" &&
	pass "the default config loads back" || fail "the default config loads back"
cat >"$dir/bad.yaml" <<'EOF'
rules:
  gpu-visibility:
    mode: loud
EOF
"$G" migrate -c "$dir/bad.yaml" "$ex" >/dev/null 2>"$dir/err"; rc=$?
[ $rc = 2 ] && grep -q "bad.yaml:3:11: mode must be one of off, warn, deny, mutate" "$dir/err" &&
	pass "a bad config value names the line and column of the value" ||
	{ fail "a bad config value names the line and column of the value"; cat "$dir/err"; }
printf 'target: dra\ndra:\n  deviceClassName: gpu.example.com\n' >"$dir/dra.yaml"
"$G" config -c "$dir/dra.yaml" >"$dir/out" 2>"$dir/err" &&
	grep -qx 'target: dra' "$dir/out" && grep -qx '  deviceClassName: gpu.example.com' "$dir/out" &&
	pass "config prints target and dra.deviceClassName" ||
	{ fail "config prints target and dra.deviceClassName"; cat "$dir/err"; }
"$G" review -c "$dir/dra.yaml" </dev/null >/dev/null 2>"$dir/err"; rc=$?
[ $rc = 2 ] && grep -q "dra.yaml:1:9: target 'dra' is for gpumend migrate and lint only" "$dir/err" &&
	pass "review refuses target dra at its value" ||
	{ fail "review refuses target dra at its value"; cat "$dir/err"; }
printf 'target: cuda\n' >"$dir/bad3.yaml"
"$G" lint -c "$dir/bad3.yaml" "$ex" >/dev/null 2>"$dir/err"; rc=$?
[ $rc = 2 ] && grep -q "bad3.yaml:1:9: target must be one of device-plugin, dra" "$dir/err" &&
	pass "an unknown target names the line and column of its value" ||
	{ fail "an unknown target names the line and column of its value"; cat "$dir/err"; }
for cmd in migrate lint; do
	"$G" $cmd --target cuda "$ex" >/dev/null 2>"$dir/err"; rc=$?
	[ $rc = 2 ] && grep -q "target must be device-plugin or dra, not 'cuda'" "$dir/err" &&
		pass "$cmd --target cuda: a usage error" ||
		{ fail "$cmd --target cuda: a usage error"; cat "$dir/err"; }
done
# a size is taken as a quantity too, as the webhook's --max-body is
printf 'limits:\n  maxDocumentBytes: 64Mi\n' >"$dir/size.yaml"
"$G" config -c "$dir/size.yaml" 2>"$dir/err" | grep -qx '  maxDocumentBytes: 67108864' &&
	pass "limits.maxDocumentBytes: 64Mi is 67108864 bytes" ||
	{ fail "limits.maxDocumentBytes: 64Mi"; cat "$dir/err"; }
printf 'limits:\n  maxDocumentBytes: 1.5\n' >"$dir/size.yaml"
"$G" config -c "$dir/size.yaml" >/dev/null 2>"$dir/err"; rc=$?
[ $rc = 2 ] && grep -q "size.yaml:2:21: maxDocumentBytes must be a positive whole number of bytes" "$dir/err" &&
	pass "limits.maxDocumentBytes: a quantity that is no whole number of bytes is refused at its value" ||
	{ fail "limits.maxDocumentBytes: 1.5 ($rc)"; cat "$dir/err"; }
printf 'sharing:\n  strateg: mps\n' >"$dir/bad2.yaml"
"$G" lint -c "$dir/bad2.yaml" "$ex" >/dev/null 2>"$dir/err"; rc=$?
[ $rc = 2 ] && grep -q "bad2.yaml:2:3: unknown key 'strateg'" "$dir/err" &&
	pass "an unknown config key names its line and column" ||
	{ fail "an unknown config key names its line and column"; cat "$dir/err"; }
"$G" lint -c "$dir/missing.yaml" "$ex" >/dev/null 2>"$dir/err"; [ $? = 2 ] &&
	grep -q "cannot open config" "$dir/err" && pass "a missing config exits 2" ||
	fail "a missing config exits 2"
printf 'rules:\n  gpu-visibility: mutate\n' >"$dir/vis.yaml"
"$G" migrate -c "$dir/vis.yaml" "$ex/job-gpu-name-selector.yaml" | grep -q 'NVIDIA_VISIBLE_DEVICES' &&
	pass "a config changes what migrate does" || fail "a config changes what migrate does"

# --- migrate: stdin, files, --check, --diff --------------------------------
"$G" migrate <"$ex/pod-driver-hostpath.yaml" >"$dir/stdin.out" &&
	"$G" migrate "$ex/pod-driver-hostpath.yaml" >"$dir/file.out" &&
	cmp -s "$dir/stdin.out" "$dir/file.out" &&
	"$G" migrate - <"$ex/pod-driver-hostpath.yaml" | cmp -s - "$dir/file.out" &&
	pass "stdin and a file give the same output" || fail "stdin and a file give the same output"
grep -q 'nvidia.com/gpu: 2' "$dir/file.out" && ! grep -q "name: libcuda" "$dir/file.out" &&
	pass "the driver pod is migrated" || fail "the driver pod is migrated"

cp -r "$ex" "$dir/work" && chmod -R u+w "$dir/work"
"$G" migrate --check "$dir/work" 2>"$dir/err"; rc=$?
[ $rc = 1 ] && grep -q "would migrate" "$dir/err" && pass "--check exits 1 when something would change" ||
	fail "--check exits 1 when something would change ($rc)"
"$G" migrate --check "$dir/file.out" 2>/dev/null; [ $? = 0 ] &&
	pass "--check exits 0 on migrated input" || fail "--check exits 0 on migrated input"
(cd "$dir/work" && "$G" migrate --diff pod-driver-hostpath.yaml >"$dir/p.diff")
rc=$?
cp "$dir/work/pod-driver-hostpath.yaml" "$dir/patched.yaml"
if [ $rc = 0 ] && head -n 1 "$dir/p.diff" | grep -q '^--- a/pod-driver-hostpath.yaml' &&
   (cd "$dir" && sed 's#a/pod-driver-hostpath.yaml#patched.yaml#; s#b/pod-driver-hostpath.yaml#patched.yaml#' p.diff | patch -s -p0) &&
   cmp -s "$dir/patched.yaml" "$dir/file.out"; then
	pass "--diff is a unified diff that patch applies"
else
	fail "--diff is a unified diff that patch applies"
fi
"$G" migrate --json-patch "$ex/pod-driver-hostpath.yaml" | jq -e 'type == "array" and length > 0 and .[0].op == "move"' >/dev/null &&
	pass "--json-patch prints an RFC 6902 patch" || fail "--json-patch prints an RFC 6902 patch"

# --- migrate -i ----------------------------------------------------------
chmod 640 "$dir/work/pod-driver-hostpath.yaml"
ln -s pod-affinity-annotation.yaml "$dir/work/link.yml"
"$G" migrate -i "$dir/work" 2>"$dir/err"; rc=$?
[ $rc = 0 ] && pass "migrate -i on a directory exits 0" || { fail "migrate -i on a directory exits 0 ($rc)"; cat "$dir/err"; }
cmp -s "$dir/work/pod-driver-hostpath.yaml" "$dir/file.out" && pass "-i writes the migrated text" ||
	fail "-i writes the migrated text"
[ "$(stat -c %a "$dir/work/pod-driver-hostpath.yaml")" = 640 ] && pass "-i keeps the file mode" ||
	fail "-i keeps the file mode"
[ -L "$dir/work/link.yml" ] && pass "-i through a symlink keeps the link" || fail "-i through a symlink keeps the link"
ls -a "$dir/work" | grep -q gpumend- && fail "-i leaves no temporary files" || pass "-i leaves no temporary files"
"$G" migrate --check "$dir/work" 2>/dev/null; [ $? = 0 ] && pass "a migrated tree is clean (idempotent)" ||
	fail "a migrated tree is clean (idempotent)"

cp "$ex/pod-driver-hostpath.yaml" "$dir/ro.yaml"; chmod 444 "$dir/ro.yaml"
"$G" migrate -i "$dir/ro.yaml" 2>"$dir/err"; rc=$?
[ $rc = 2 ] && grep -q "read-only" "$dir/err" && cmp -s "$dir/ro.yaml" "$ex/pod-driver-hostpath.yaml" &&
	pass "-i refuses a read-only file and leaves it" || fail "-i refuses a read-only file and leaves it"

# --- errors: one bad file does not stop the others -------------------------
mkdir -p "$dir/mixed/sub" "$dir/mixed/.hidden"
cp "$ex/pod-driver-hostpath.yaml" "$dir/mixed/a.yaml"; chmod 644 "$dir/mixed/a.yaml"
printf 'kind: Pod\nspec:\n  containers:\n  - name: x\n    resources:\n      limits:\n        alpha.kubernetes.io/nvidia-gpu: "1.5"\n' >"$dir/mixed/b.yaml"
printf 'kind: Pod\nspec: [unclosed\n' >"$dir/mixed/sub/c.yml"
cp "$ex/pod-driver-hostpath.yaml" "$dir/mixed/sub/d.json.txt"
cp "$ex/pod-driver-hostpath.yaml" "$dir/mixed/.hidden/e.yaml"
ln -s .. "$dir/mixed/sub/loop"
cp "$dir/mixed/b.yaml" "$dir/b.orig"
"$G" migrate -i "$dir/mixed" 2>"$dir/err"; rc=$?
[ $rc = 2 ] && pass "a directory with broken files exits 2" || fail "a directory with broken files exits 2 ($rc)"
grep -q "b.yaml:7:9: error: Pod: 'alpha.kubernetes.io/nvidia-gpu' must be a whole" "$dir/err" &&
	pass "an unfixable value is reported at file:line:col" || { fail "an unfixable value is reported at file:line:col"; cat "$dir/err"; }
grep -q "c.yml:3:1: error: cannot parse" "$dir/err" && pass "a syntax error is reported at file:line:col" ||
	{ fail "a syntax error is reported at file:line:col"; cat "$dir/err"; }
cmp -s "$dir/mixed/b.yaml" "$dir/b.orig" && pass "the broken file is left untouched" ||
	fail "the broken file is left untouched"
cmp -s "$dir/mixed/a.yaml" "$dir/file.out" && pass "the good file is migrated anyway" ||
	fail "the good file is migrated anyway"
cmp -s "$dir/mixed/sub/d.json.txt" "$ex/pod-driver-hostpath.yaml" &&
	cmp -s "$dir/mixed/.hidden/e.yaml" "$ex/pod-driver-hostpath.yaml" &&
	pass "other extensions and hidden directories are not touched" ||
	fail "other extensions and hidden directories are not touched"
"$G" migrate "$dir/nope.yaml" >/dev/null 2>"$dir/err"; [ $? = 2 ] && grep -q "cannot open '$dir/nope.yaml'" "$dir/err" &&
	pass "a missing file exits 2" || fail "a missing file exits 2"
printf '\357\273\277apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n    resources: {limits: {alpha.kubernetes.io/nvidia-gpu: 1}}\n' >"$dir/bom.yaml"
"$G" migrate "$dir/bom.yaml" >"$dir/bom.out" 2>/dev/null && head -c 3 "$dir/bom.out" | od -An -tx1 | grep -q 'ef bb bf' &&
	grep -q 'nvidia.com/gpu: 1' "$dir/bom.out" && pass "a BOM is kept and the file migrated" ||
	fail "a BOM is kept and the file migrated"
printf 'kind: Pod\nspec:\n\tcontainers: []\n' >"$dir/tab.yaml"
"$G" migrate "$dir/tab.yaml" >/dev/null 2>"$dir/err"; [ $? = 2 ] && grep -q "tab.yaml:3:1: error" "$dir/err" &&
	pass "tab indentation is a located error" || { fail "tab indentation is a located error"; cat "$dir/err"; }
printf 'kind: Pod\nmetadata:\n  name: "\377"\n' >"$dir/utf8.yaml"
"$G" lint "$dir/utf8.yaml" >/dev/null 2>"$dir/err"; [ $? = 2 ] && grep -q "error" "$dir/err" &&
	pass "invalid UTF-8 exits 2" || fail "invalid UTF-8 exits 2"
printf 'a: [' >"$dir/trunc.json"
"$G" lint "$dir/trunc.json" >/dev/null 2>&1; [ $? = 2 ] && pass "truncated JSON exits 2" || fail "truncated JSON exits 2"

# --- lint ----------------------------------------------------------------
"$G" lint "$REPO_DIR/tests/golden/format-comments/input.yaml" >"$dir/lint.txt"; rc=$?
[ $rc = 1 ] && grep -qE '^.*input.yaml:15:9: warning: .* \[legacy-gpu-resource\]$' "$dir/lint.txt" &&
	pass "lint text format and exit 1" || fail "lint text format and exit 1 ($rc)"
"$G" lint --fail-on error "$REPO_DIR/tests/golden/format-comments/input.yaml" >/dev/null; [ $? = 0 ] &&
	pass "--fail-on error passes warnings" || fail "--fail-on error passes warnings"
"$G" lint "$dir/file.out" >"$dir/clean.txt" 2>"$dir/clean.err"; [ $? = 0 ] && [ ! -s "$dir/clean.txt" ] &&
	pass "lint of migrated output is clean" || fail "lint of migrated output is clean"
[ "$(cat "$dir/clean.err")" = "gpumend: 1 file read: 0 with findings, 1 clean, 0 skipped, 0 failed; 0 errors, 0 warnings, 0 info" ] &&
	pass "a clean lint says so on stderr, with the number of files" ||
	fail "a clean lint says: $(cat "$dir/clean.err")"
mkdir -p "$dir/no-yaml"
"$G" lint --allow-empty "$dir/no-yaml" >"$dir/clean.txt" 2>"$dir/clean.err"; rc=$?
[ $rc = 0 ] && [ "$(cat "$dir/clean.err")" = "gpumend: 0 files read: 0 with findings, 0 clean, 0 skipped, 0 failed; 0 errors, 0 warnings, 0 info" ] &&
	pass "lint --allow-empty of a folder without manifests says it read none" ||
	fail "lint --allow-empty of a folder without manifests: exit $rc, $(cat "$dir/clean.err")"
"$G" lint --format json "$ex" >"$dir/lint.json"
jq -e 'type == "array" and length > 5 and all(.[]; has("file") and has("line") and has("column") and has("rule") and has("severity") and has("message"))' "$dir/lint.json" >/dev/null &&
	pass "lint json has the documented fields" || fail "lint json has the documented fields"
"$G" lint --format sarif "$ex" >"$dir/lint.sarif"
jq -e '.version == "2.1.0" and (.runs[0].results | length > 5) and (.runs[0].results[0].locations[0].physicalLocation.region.startLine > 0) and (.runs[0].tool.driver.rules | length > 0)' "$dir/lint.sarif" >/dev/null &&
	pass "lint sarif is SARIF 2.1.0 with locations" || fail "lint sarif is SARIF 2.1.0 with locations"
"$G" lint --format github "$ex" >"$dir/lint.gh"
grep -qE '^::warning file=.*examples/pod-driver-hostpath.yaml,line=14,col=9,title=legacy-gpu-resource \(Pod gpu-pod\)::' "$dir/lint.gh" &&
	pass "lint github workflow commands" || fail "lint github workflow commands"
"$G" lint --format json "$dir/mixed/sub/c.yml" >"$dir/bad.json" 2>/dev/null; rc=$?
[ $rc = 2 ] && jq -e '.[0].rule == "syntax" and .[0].line == 3' "$dir/bad.json" >/dev/null &&
	pass "malformed input is a finding and exits 2" || fail "malformed input is a finding and exits 2 ($rc)"

# file names with a newline and a backslash: one line per finding, and
# SARIF's URI encodes the backslash (a character of the name here)
mkdir -p "$dir/odd"
cp "$REPO_DIR/tests/golden/format-comments/input.yaml" "$dir/odd/$(printf 'new\nline.yaml')"
cp "$REPO_DIR/tests/golden/format-comments/input.yaml" "$dir/odd/back\\slash.yaml"
(cd "$dir/odd" && "$G" lint .) >"$dir/odd.txt" 2>/dev/null
(cd "$dir/odd" && "$G" migrate --check .) 2>"$dir/odd.err"
(cd "$dir/odd" && "$G" lint --format sarif .) >"$dir/odd.sarif" 2>/dev/null
[ "$(grep -c . "$dir/odd.txt")" = "$(grep -c 'legacy-gpu-resource\]$' "$dir/odd.txt")" ] &&
	grep -q '^\./new\\nline\.yaml:15:9: warning: ' "$dir/odd.txt" &&
	pass "lint text: a newline in a file name is shown escaped, one finding per line" ||
	{ fail "lint text: a file name with a newline breaks the lines"; sed 's/^/    /' "$dir/odd.txt"; }
grep -qF "would migrate './new\\nline.yaml'" "$dir/odd.err" &&
	pass "messages on stderr show a newline in a file name escaped" ||
	fail "messages on stderr: $(head -n 3 "$dir/odd.err")"
jq -e '[.runs[0].results[].locations[0].physicalLocation.artifactLocation.uri] | unique ==
	["back%5Cslash.yaml", "new%0Aline.yaml"]' "$dir/odd.sarif" >/dev/null &&
	pass "lint sarif: a backslash and a newline in file names are percent-encoded" ||
	fail "lint sarif: $(jq -c '[.runs[0].results[].locations[0].physicalLocation.artifactLocation.uri]' "$dir/odd.sarif")"

# --- the trigger search -------------------------------------------------
# A document's rules are skipped when none of their triggers is in its text
# (stream_each): behind an escape, or folded from two lines, a trigger is
# not in the text as written, and its rules must run anyway.
cat >"$dir/hidden.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata: {name: plain}
data: {a: b}
---
apiVersion: v1
kind: Pod
metadata: {name: escaped}
spec:
  containers:
  - name: c
    image: busybox
    resources:
      limits: {"alpha.kubernetes.io\u002fnvidia-gpu": 1}
EOF
"$G" migrate "$dir/hidden.yaml" >"$dir/hidden.out" 2>"$dir/err"
grep -q 'nvidia.com/gpu' "$dir/hidden.out" && ! grep -q 'alpha.kubernetes.io' "$dir/hidden.out" &&
	pass "migrate: a legacy resource named with an escape is renamed" ||
	{ fail "migrate: a legacy resource named with an escape"; cat "$dir/hidden.out" "$dir/err"; }
cat >"$dir/folded.yaml" <<'EOF'
apiVersion: v1
kind: Pod
metadata: {name: folded}
spec:
  containers:
  - name: c
    image: my
      cuda:1
EOF
printf 'visibility:\n  images: ["my cuda*"]\n' >"$dir/blank.yaml"
"$G" lint -c "$dir/blank.yaml" "$dir/folded.yaml" >"$dir/folded.out" 2>"$dir/err"; rc=$?
[ $rc = 1 ] && grep -q 'folded.yaml:7:.*gpu-visibility' "$dir/folded.out" &&
	pass "lint: an image pattern with a blank finds an image folded from two lines" ||
	{ fail "lint: an image folded from two lines ($rc)"; cat "$dir/folded.out" "$dir/err"; }
# U+2028 is a line break in YAML: kept in a folded value, the blanks after
# it dropped, so the value is not the text as written
printf 'sharing:\n  schedulerNames: ["gpu\\Lshare"]\n' >"$dir/ls.yaml"
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: ls}\nspec:\n  schedulerName: gpu\342\200\250    share\n  containers:\n  - {name: c, image: busybox}\n' >"$dir/ls-pod.yaml"
"$G" lint -c "$dir/ls.yaml" "$dir/ls-pod.yaml" >"$dir/ls.out" 2>"$dir/err"; rc=$?
[ $rc = 1 ] && grep -q 'ls-pod.yaml:5:.*gpu-sharing' "$dir/ls.out" &&
	pass "lint: a scheduler name holding U+2028 is found folded over two lines" ||
	{ fail "lint: a scheduler name holding U+2028 ($rc)"; cat "$dir/ls.out" "$dir/err"; }

# --- sparse documents ----------------------------------------------------
# A document with no trigger of a rule but deprecated-workload-api's is read
# without its values (source_parser_set_need); every check still holds,
# and it is read in full when the rule finds something.
cat >"$dir/sparse.yaml" <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata: {name: with-selector}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec:
      containers: [{name: c, image: busybox}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: null-selector}
spec:
  selector: ~
  template:
    metadata: {labels: {app: b}}
    spec:
      containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: in-list}
  spec:
    template:
      metadata: {labels: {app: c}}
      spec:
        containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: anchors}
data: &d {a: b}
more:
  <<: *d
  c: d
EOF
"$G" migrate "$dir/sparse.yaml" >"$dir/sparse.out" 2>"$dir/err"; rc=$?
[ $rc = 0 ] && [ "$(grep -c 'matchLabels' "$dir/sparse.out")" = 3 ] &&
	grep -q 'matchLabels: {app: a}' "$dir/sparse.out" &&
	grep -q 'app: b' "$dir/sparse.out" && grep -q 'app: c' "$dir/sparse.out" &&
	grep -q '<<: \*d' "$dir/sparse.out" &&
	pass "migrate: apps/v1 workloads read sparse get the selector they lack, and only those" ||
	{ fail "migrate: apps/v1 workloads read sparse ($rc)"; cat "$dir/sparse.out" "$dir/err"; }
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dup}\ndata:\n  a: b\n  a: c\n' >"$dir/dup.yaml"
"$G" migrate "$dir/dup.yaml" >/dev/null 2>"$dir/err"; rc=$?
[ $rc != 0 ] && grep -q "dup.yaml:6:3: .*duplicate key 'a'" "$dir/err" &&
	pass "migrate: a duplicate key in a document without triggers is an error at its place" ||
	{ fail "migrate: a duplicate key in a document read sparse ($rc)"; cat "$dir/err"; }
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\ndata:\n  <<: text\n' >"$dir/merge.yaml"
"$G" migrate "$dir/merge.yaml" >/dev/null 2>"$dir/err"; rc=$?
[ $rc != 0 ] && grep -q "merge.yaml:5:.*a merge key" "$dir/err" &&
	pass "migrate: a merge of a scalar in a document without triggers is an error" ||
	{ fail "migrate: a merge of a scalar read sparse ($rc)"; cat "$dir/err"; }
# a directive comes before its document's --- line: the document runs on
# past the part first searched, and is searched again whole
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: first}\n---\n%%YAML 1.1\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: busybox\n    resources:\n      limits: {alpha.kubernetes.io/nvidia-gpu: 1}\n' >"$dir/directive.yaml"
"$G" migrate "$dir/directive.yaml" >"$dir/directive.out" 2>"$dir/err"; rc=$?
[ $rc = 0 ] && grep -q 'limits: {nvidia.com/gpu: 1}' "$dir/directive.out" &&
	pass "migrate: a legacy resource after a directive and its --- line is renamed" ||
	{ fail "migrate: a legacy resource after a directive ($rc)"; cat "$dir/directive.out" "$dir/err"; }

# an alias stops a sparse reading: the document is read again in full from
# its start, and its errors keep their places in the file
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: b}\ndata:\n  x: *m\n  y: *nowhere\n' >"$dir/alias.yaml"
"$G" migrate "$dir/alias.yaml" >/dev/null 2>"$dir/err"; rc=$?
[ $rc != 0 ] && grep -q "alias.yaml:10:6: .*unknown alias 'nowhere'" "$dir/err" &&
	pass "migrate: an unknown alias after an anchor, in a document without triggers, is an error at its place" ||
	{ fail "migrate: an unknown alias in a document read again ($rc)"; cat "$dir/err"; }
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: b}\ndata:\n  x: *m\n  x: again\n' >"$dir/alias-dup.yaml"
"$G" migrate "$dir/alias-dup.yaml" >/dev/null 2>"$dir/err"; rc=$?
[ $rc != 0 ] && grep -q "alias-dup.yaml:10:3: .*duplicate key 'x'" "$dir/err" &&
	pass "migrate: a duplicate key after an alias, in a document without triggers, is an error at its place" ||
	{ fail "migrate: a duplicate key in a document read again ($rc)"; cat "$dir/err"; }
# N members k0..k(N-1) of a mapping at indent 2, each with VALUE
keys() {
	i=0
	while [ $i -lt "$1" ]; do printf '  k%d: %s\n' $i "$2"; i=$((i + 1)); done
}
# (beyond what libyaml decodes ahead of the alias: past 16 KB)
{
	printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: b}\ndata:\n  x: *m\n'
	keys 1500 value
	printf '  y: \377\n'
} >"$dir/alias-byte.yaml"
"$G" migrate "$dir/alias-byte.yaml" >/dev/null 2>"$dir/err"; rc=$?
[ $rc != 0 ] && grep -q "at byte 21518" "$dir/err" &&
	pass "migrate: a byte that is no UTF-8 after an alias is reported at its offset in the file" ||
	{ fail "migrate: an invalid byte in a document read again ($rc)"; cat "$dir/err"; }
# a mapping of more than 16 keys finds its duplicates in a table
{
	printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n'
	keys 40 v
	printf '  k17: again\n'
} >"$dir/big-dup.yaml"
"$G" migrate "$dir/big-dup.yaml" >/dev/null 2>"$dir/err"; rc=$?
[ $rc != 0 ] && grep -q "big-dup.yaml:45:3: .*duplicate key 'k17'" "$dir/err" &&
	pass "migrate: the duplicate of the 18th of 40 keys, in a document without triggers, is an error at its place" ||
	{ fail "migrate: a duplicate key in a large mapping read sparse ($rc)"; cat "$dir/err"; }
# NEL, U+2028 and U+2029 end lines too: a document after one is read again
# from its own first line
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\302\205---\napiVersion: extensions/v1beta1\nkind: Deployment\nspec:\n  selector: {}\n' >"$dir/nel.yaml"
"$G" lint "$dir/nel.yaml" >"$dir/nel.out" 2>"$dir/err"; rc=$?
[ $rc = 1 ] && grep -q "nel.yaml:6:1: warning: Deployment: 'extensions/v1beta1' Deployment" "$dir/nel.out" &&
	pass "lint: a document after a NEL line break is read again from its own start" ||
	{ fail "lint: a document after a NEL line break ($rc)"; cat "$dir/nel.out" "$dir/err"; }
printf 'a: 1\342\200\250---\nx: 1\nx: 2\n' >"$dir/ls-dup.yaml"
"$G" lint "$dir/ls-dup.yaml" >"$dir/ls-dup.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "ls-dup.yaml:4:1: .*duplicate key 'x'" "$dir/ls-dup.out" &&
	pass "lint: a duplicate key after a U+2028 line break is an error at its place" ||
	{ fail "lint: a duplicate key after a U+2028 line break ($rc)"; cat "$dir/ls-dup.out"; }

# --- CI cannot pass on a wrong path ---------------------------------------
# A named path that cannot be read, a named directory in which no manifest
# is read (none there; all of it left out by .gpumendignore; only files
# that are no manifest), and standard input without a document: each is
# an input finding in every format, a failed file, exit 2; --allow-empty
# accepts all but the path that is not there.
mkdir -p "$dir/wrong/none" "$dir/wrong/ignored/legacy" "$dir/wrong/unparsed"
cp "$ex/pod-driver-hostpath.yaml" "$dir/wrong/ignored/legacy/pod.yaml"
printf 'legacy/\n' >"$dir/wrong/ignored/.gpumendignore"
printf '{"name": [\n' >"$dir/wrong/unparsed/package.json"
# has_input FORMAT FILE OUT: OUT, in FORMAT, has one input finding, an
# error, about FILE
has_input() {
	case $1 in
	text) [ "$(grep -c "^$2: error: .* \[input\]\$" "$3")" = 1 ] ;;
	json) jq -e --arg f "$2" '[.[] | select(.rule == "input")] | length == 1 and
		.[0].file == $f and .[0].severity == "error"' "$3" >/dev/null ;;
	sarif) jq -e --arg f "$(printf '%s' "$2" | sed 's/</%3C/; s/>/%3E/')" \
		'[.runs[0].results[] | select(.ruleId == "input")] | length == 1 and
		.[0].level == "error" and
		.[0].locations[0].physicalLocation.artifactLocation.uri == $f' "$3" >/dev/null ;;
	github) [ "$(grep -c "^::error file=$2,title=input::" "$3")" = 1 ] ;;
	codequality) jq -e --arg f "$2" '[.[] | select(.check_name == "input")] |
		length == 1 and .[0].location.path == $f and .[0].severity == "critical"' \
		"$3" >/dev/null ;;
	esac
}
while IFS='|' read -r name path allowed why; do
	for format in text json sarif github codequality; do
		if [ "$path" = "<stdin>" ]; then
			(cd "$dir/wrong" && "$G" lint --format $format - </dev/null) \
				>"$dir/wrong.out" 2>"$dir/wrong.err"
		else
			(cd "$dir/wrong" && "$G" lint --format $format "$path") \
				>"$dir/wrong.out" 2>"$dir/wrong.err"
		fi
		rc=$?
		if [ $rc = 2 ] && has_input $format "$path" "$dir/wrong.out" &&
		   grep -q "^gpumend: error: .*$why" "$dir/wrong.err" &&
		   tail -n 1 "$dir/wrong.err" | grep -q "1 failed; 1 error,"; then
			pass "lint --format $format: $name is an input finding, a failed file, exit 2"
		else
			fail "lint --format $format: $name (exit $rc)"
			sed 's/^/    /' "$dir/wrong.out" "$dir/wrong.err" | head -n 12
		fi
	done
	if [ "$path" = "<stdin>" ]; then
		(cd "$dir/wrong" && "$G" migrate - </dev/null) >/dev/null 2>"$dir/wrong.err"
	else
		(cd "$dir/wrong" && "$G" migrate --check "$path") >/dev/null 2>"$dir/wrong.err"
	fi
	rc=$?
	[ $rc = 2 ] && grep -q "$why" "$dir/wrong.err" &&
		tail -n 1 "$dir/wrong.err" | grep -q "1 failed; 1 error," &&
		pass "migrate: $name is an error, a failed file, exit 2" ||
		{ fail "migrate: $name (exit $rc)"; cat "$dir/wrong.err"; }
	if [ "$path" = "<stdin>" ]; then
		(cd "$dir/wrong" && "$G" lint --allow-empty --format json - </dev/null) \
			>"$dir/wrong.out" 2>"$dir/wrong.err"
	else
		(cd "$dir/wrong" && "$G" lint --allow-empty --format json "$path") \
			>"$dir/wrong.out" 2>"$dir/wrong.err"
	fi
	rc=$?
	if [ "$allowed" = yes ]; then
		[ $rc = 0 ] && [ "$(cat "$dir/wrong.out")" = "[]" ] &&
			tail -n 1 "$dir/wrong.err" | grep -q " 0 failed; 0 errors," &&
			pass "lint --allow-empty: $name is accepted" ||
			{ fail "lint --allow-empty: $name (exit $rc)"; cat "$dir/wrong.err"; }
	else
		[ $rc = 2 ] && has_input json "$path" "$dir/wrong.out" &&
			pass "lint --allow-empty: $name is still an error" ||
			{ fail "lint --allow-empty: $name (exit $rc)"; cat "$dir/wrong.err"; }
	fi
done <<'EOF'
a named path that is not there|missing.yaml|no|cannot open 'missing.yaml': No such file or directory
a named directory without manifests|none|yes|'none' holds no manifest: no \*\.yaml, \*\.yml or \*\.json file; --allow-empty accepts that
a named directory that .gpumendignore empties|ignored|yes|'ignored' holds no manifest: 1 path left out by the ignore rules
a named directory of files that are no manifest|unparsed|yes|'unparsed' holds no manifest: 1 file skipped
an empty standard input|<stdin>|yes|'<stdin>' holds no document; --allow-empty accepts that
EOF
# a missing path among good ones: the good ones are still read
(cd "$dir/wrong" && "$G" lint --format json missing.yaml "$ex/pod-driver-hostpath.yaml") \
	>"$dir/wrong.out" 2>"$dir/wrong.err"; rc=$?
[ $rc = 2 ] && jq -e 'any(.[]; .rule == "input") and any(.[]; .rule == "legacy-gpu-resource")' \
	"$dir/wrong.out" >/dev/null &&
	tail -n 1 "$dir/wrong.err" | grep -q "^gpumend: 2 files read: 1 with findings, 0 clean, 0 skipped, 1 failed" &&
	pass "lint: a missing path beside a good file: both reported" ||
	{ fail "lint: a missing path beside a good file ($rc)"; cat "$dir/wrong.err"; }
# --verbose says what was read, left out and why
(cd "$dir/wrong" && "$G" lint -v --allow-empty --exclude 'package.json' ignored unparsed) \
	>/dev/null 2>"$dir/wrong.err"
grep -q "^gpumend: 'ignored/legacy' left out by 'legacy/' (ignored/.gpumendignore:1)$" "$dir/wrong.err" &&
	grep -q "^gpumend: 'unparsed/package.json' left out by 'package.json' (--exclude)$" "$dir/wrong.err" &&
	grep -q "^gpumend: 'ignored/.gpumendignore' left out: hidden$" "$dir/wrong.err" &&
	(cd "$dir/wrong" && "$G" lint -v "$ex/pod-driver-hostpath.yaml" unparsed) 2>&1 >/dev/null |
	grep -q "^gpumend: read '$ex/pod-driver-hostpath.yaml'$" &&
	pass "lint --verbose: each path read or left out, and by which rule" ||
	{ fail "lint --verbose"; cat "$dir/wrong.err"; }

# --- a real repository: excludes, ignore files, skips, summaries ---------
# A tree as repositories hold it. Each line of the table below runs
# gpumend in it (ARGS split on blanks) and wants its exit status, a line
# of stdout matching OUT and the last line of stderr matching LAST (- for
# any; empty: stderr empty).
repo=$dir/repo
mkdir -p "$repo/deploy" "$repo/node_modules/pkg" "$repo/vendor/lib" "$repo/web" \
	"$repo/legacy" "$repo/broken"
cp "$ex/pod-driver-hostpath.yaml" "$repo/deploy/pod.yaml"
cp "$ex/pod-driver-hostpath.yaml" "$repo/node_modules/pkg/pod.yaml"
cp "$ex/pod-driver-hostpath.yaml" "$repo/vendor/lib/pod.yaml"
cp "$ex/pod-driver-hostpath.yaml" "$repo/legacy/old.yaml"
printf '{\n  // comments are not JSON\n  "compilerOptions": {"strict": true,},\n}\n' >"$repo/web/tsconfig.json"
printf 'a: [unclosed\n' >"$repo/web/broken.yaml"
printf 'apiVersion: v1\nkind: Pod\nspec: [unclosed\n' >"$repo/broken/pod.yaml"
printf '{"name": "web", "version": "1.0.0"}\n' >"$repo/web/package.json"
printf '# legacy/ is migrated by hand\nlegacy/\n' >"$repo/.gpumendignore"
tab=$(printf '\t')
while IFS="$tab" read -r name args want_rc out last; do
	case "$name" in '' | '#'*) continue ;; esac
	# shellcheck disable=SC2086
	(cd "$repo" && set -f && "$G" $args) </dev/null >"$dir/repo.out" 2>"$dir/repo.err"; rc=$?
	why=""
	if [ "$rc" != "$want_rc" ]; then
		why="exit $rc, wanted $want_rc"
	elif [ "$out" != - ] && ! grep -qE -- "$out" "$dir/repo.out"; then
		why="no line of stdout matches '$out'"
	elif [ -z "$last" ] && [ -s "$dir/repo.err" ]; then
		why="stderr is not empty"
	elif [ -n "$last" ] && [ "$last" != - ] &&
	     ! tail -n 1 "$dir/repo.err" | grep -qE -- "$last"; then
		why="the last line of stderr does not match '$last'"
	fi
	if [ -z "$why" ]; then
		pass "repository: $name"
	else
		fail "repository: $name: $why"
		sed 's/^/    /' "$dir/repo.err" | head -n 8
	fi
done <<'TABLE'
# name	ARGS	exit	OUT	LAST
a broken manifest in a directory is an error, the rest is linted	lint .	2	^\./deploy/pod.yaml:14:9: warning: Pod gpu-pod: 	^gpumend: 5 files read: 1 with findings, 1 clean, 2 skipped, 1 failed; 1 error, 5 warnings, 0 info$
node_modules/, vendor/ and .gpumendignore are left out, no manifest that does not parse is skipped	lint --exclude broken/ .	1	-	^gpumend: 4 files read: 1 with findings, 1 clean, 2 skipped, 0 failed; 0 errors, 5 warnings, 0 info$
--exclude takes more paths out	lint --exclude broken --exclude deploy/ .	0	-	^gpumend: 3 files read: 0 with findings, 1 clean, 2 skipped, 0 failed; 0 errors, 0 warnings, 0 info$
"!" in --exclude takes a default back	lint --exclude broken/ --exclude !vendor/ .	1	^\./vendor/lib/pod.yaml:14:9: 	^gpumend: 5 files read: 2 with findings
--quiet: no summary, no notes on skips	lint --quiet --exclude broken/ .	1	-	
named files: the ignore rules apply to them too	lint legacy/old.yaml node_modules/pkg/pod.yaml ./vendor/lib/pod.yaml	0	-	^gpumend: 0 files read: 
a named file that does not parse is an error	lint web/tsconfig.json	2	^web/tsconfig.json:3:20: error: .* \[syntax\]$	^gpumend: 1 file read: 0 with findings, 0 clean, 0 skipped, 1 failed; 1 error, 0 warnings, 0 info$
--skip-unparsable: a named file that is no manifest and does not parse is skipped	lint --skip-unparsable web/tsconfig.json web/package.json	0	-	^gpumend: 2 files read: 0 with findings, 1 clean, 1 skipped, 0 failed; 0 errors, 0 warnings, 0 info$
--skip-unparsable: a named manifest that does not parse is still an error	lint --skip-unparsable broken/pod.yaml	2	-	^gpumend: 1 file read: 0 with findings, 0 clean, 0 skipped, 1 failed; 1 error
migrate --skip-unparsable too	migrate --check --skip-unparsable web/tsconfig.json	0	-	^gpumend: 1 file read: 0 would change, 0 unchanged, 1 skipped, 0 failed
a named file no rule excludes is read	lint deploy/pod.yaml legacy/old.yaml	1	^deploy/pod.yaml:14:9: 	^gpumend: 1 file read: 1 with findings
standard input is never excluded	lint --allow-empty - --exclude *	0	-	^gpumend: 1 file read: 0 with findings, 1 clean
migrate --check: the summary says what would change	migrate --check --exclude broken/ .	1	-	^gpumend: 4 files read: 1 would change, 1 unchanged, 2 skipped, 0 failed; 0 errors, 0 warnings, 0 info$
migrate --diff: a summary too	migrate --diff --exclude broken/ .	0	^\+\+\+ b/\./deploy/pod.yaml	^gpumend: 4 files read: 1 would change, 
migrate to stdout: a summary too	migrate deploy/pod.yaml	0	nvidia.com/gpu	^gpumend: 1 file read: 1 changed, 0 unchanged, 0 skipped, 0 failed; 0 errors, 0 warnings, 0 info$
migrate --quiet	migrate --quiet deploy/pod.yaml	0	nvidia.com/gpu	
TABLE
(cd "$repo" && "$G" lint --exclude broken/ . 2>&1 >/dev/null) >"$dir/repo.err"
grep -q "^gpumend: '\./web/tsconfig.json' skipped: not a Kubernetes manifest, and cannot parse it (3:20: " "$dir/repo.err" &&
	grep -q "^gpumend: '\./web/broken.yaml' skipped: " "$dir/repo.err" &&
	pass "repository: a skipped file is named, with where it does not parse" ||
	{ fail "repository: a skipped file is named, with where it does not parse"; cat "$dir/repo.err"; }
cp -R "$repo" "$dir/repo-i"
(cd "$dir/repo-i" && "$G" migrate -i --exclude broken/ . >/dev/null 2>"$dir/repo.err"); rc=$?
[ $rc = 0 ] && grep -q 'nvidia.com/gpu' "$dir/repo-i/deploy/pod.yaml" &&
	cmp -s "$dir/repo-i/node_modules/pkg/pod.yaml" "$ex/pod-driver-hostpath.yaml" &&
	cmp -s "$dir/repo-i/legacy/old.yaml" "$ex/pod-driver-hostpath.yaml" &&
	cmp -s "$dir/repo-i/web/tsconfig.json" "$repo/web/tsconfig.json" &&
	pass "repository: migrate -i leaves what is excluded or skipped as it was" ||
	{ fail "repository: migrate -i of a repository ($rc)"; cat "$dir/repo.err"; }
# metadata without a name, and no metadata at all: named alike by lint
# and migrate
printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  labels: {a: b}\nspec:\n  containers:\n  - name: c\n    resources: {limits: {alpha.kubernetes.io/nvidia-gpu: 1.5}}\n---\nkind: Pod\nspec:\n  containers:\n  - name: c\n    resources: {limits: {alpha.kubernetes.io/nvidia-gpu: 2.5}}\n' >"$dir/nameless.yaml"
"$G" lint "$dir/nameless.yaml" >"$dir/nameless.lint" 2>/dev/null
"$G" migrate "$dir/nameless.yaml" >/dev/null 2>"$dir/nameless.err"
grep -q "nameless.yaml:8:.*: error: Pod <no name>: " "$dir/nameless.lint" &&
	grep -q "nameless.yaml:8:.*: error: Pod <no name>: " "$dir/nameless.err" &&
	grep -q "nameless.yaml:14:.*: error: Pod: " "$dir/nameless.lint" &&
	grep -q "nameless.yaml:14:.*: error: Pod: " "$dir/nameless.err" &&
	pass "an object with metadata but no name is '<no name>', one without metadata its kind alone" ||
	{ fail "objects without a name"; cat "$dir/nameless.lint" "$dir/nameless.err"; }
# an ignore file that cannot be read is an error, not "no rules"
mkdir "$dir/repo-dir-ignore" && mkdir "$dir/repo-dir-ignore/.gpumendignore"
"$G" lint "$dir/repo-dir-ignore" >/dev/null 2>"$dir/repo.err"; rc=$?
[ $rc = 2 ] && grep -q "cannot read '.*/.gpumendignore'" "$dir/repo.err" &&
	pass "repository: an ignore file that cannot be read is an error" ||
	{ fail "repository: an ignore file that cannot be read ($rc)"; cat "$dir/repo.err"; }
finish cli
