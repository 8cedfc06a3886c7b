#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/cel.sh - the webhook registration's matchConditions,
# evaluated by cel-go (the API server's CEL library, through
# tests/cel/celcheck.go), over every object the tests hold, as a CREATE and
# as an UPDATE (issue #29):
#   - superset: every object that `gpumend review` patches, warns about or
#     refuses reaches an entry of the right failure policy
#     (tests/cel/policy.tsv), and only those that need it reach the Fail
#     entry (never a pod UPDATE);
#   - selectivity: no plain object (no finding, no GPU word) reaches any
#     entry; the counts are printed;
#   - cost: no condition fails to evaluate, and the runtime cost stays
#     within the API server's budget, on the corpus and on the large and
#     hostile bodies of tests/cel/cost.tsv.
# celcheck's own known answers (tests/cel/harness.tsv, selector.tsv) come
# first.
. "$(dirname "$0")/../lib.sh"

# not dir=$(scratch): the subshell's exit trap would remove it at once
scratch >/dev/null
dir=$_scratch
cel="$TESTS_DIR/cel"
dra="$dir/dra"

# Where the registration comes from: generator (`gpumend webhook-config
# -o json`, the default config), sample (tests/cel/sample-webhook-config.jq,
# the hand-written stand-in), or auto (the generator when gpumend has the
# subcommand, else the sample). Once the generator has landed, set this to
# generator: the sample is then never used.
registration=${GPUMEND_CEL_REGISTRATION:-generator}

if ! celcheck=$(tool celcheck); then
	fail "cel: no celcheck (tests/tools/get.sh, above)"
	finish cel
	exit 1
fi
budget=$("$celcheck" budget | awk -F '\t' '$1 == "matchConditionsBudget" { print $2 }')
per_call=$("$celcheck" budget | awk -F '\t' '$1 == "perCallLimit" { print $2 }')

# ------------------------------------------------------------------
# celcheck's known answers

# one_webhook POLICY EXPRESSIONS: a registration of one webhook for every
# pod CREATE, the conditions separated by " ;; ".
one_webhook() {
	jq -n --arg policy "$1" --arg exprs "$2" '{
		apiVersion: "admissionregistration.k8s.io/v1",
		kind: "MutatingWebhookConfiguration", metadata: {name: "t"},
		webhooks: [{name: "t.gpumend.io", failurePolicy: $policy,
			rules: [{operations: ["CREATE"], apiGroups: [""],
				apiVersions: ["v1"], resources: ["pods"]}],
			matchConditions: [$exprs | split(" ;; ") | to_entries[] |
				{name: "c\(.key)", expression: .value}]}]}'
}

# known NAME WANT FIELD COMMAND...: runs COMMAND (a celcheck); its answer
# is the FIELD-th field of its output, or compile-error when it fails;
# passes when that is WANT.
known() {
	_name=$1 _want=$2 _field=$3
	shift 3
	if "$@" >"$dir/known.out" 2>"$dir/known.err"; then
		_got=$(cut -f"$_field" "$dir/known.out")
	else
		_got=compile-error
	fi
	if [ "$_got" = "$_want" ]; then
		pass "$_name ($_want)"
	else
		fail "$_name: $_got, not $_want"
		sed 's/^/    /' "$dir/known.out" "$dir/known.err"
	fi
}

review="$TESTS_DIR/bench/review-legacy-pod.json"
n_harness=0
cases "$cel/harness.tsv" >"$dir/harness"
while IFS='	' read -r name policy want exprs; do
	n_harness=$((n_harness + 1))
	one_webhook "$policy" "$exprs" >"$dir/one.json"
	known "celcheck: $name" "$want" 5 "$celcheck" match -config "$dir/one.json" "$review"
done <"$dir/harness"
check "celcheck: the known answers ran ($n_harness cases)" [ "$n_harness" -ge 10 ]

i=0
cases "$cel/selector.tsv" >"$dir/selector"
while IFS='	' read -r name want expr device; do
	i=$((i + 1))
	printf '%s\n' "$device" >"$dir/device-$i.json"
	known "celcheck selector: $name" "$want" 2 "$celcheck" selector -expr "$expr" "$dir/device-$i.json"
done <"$dir/selector"

# ------------------------------------------------------------------
# The DRA selectors `gpumend migrate --target dra` writes (the golden
# outputs of tests/golden/dra/): each compiles in the device selector
# environment and accepts exactly the sample devices (tests/cel/devices.tsv)
# whose name, spaces as '-', it names; so the model named matches and a
# near one (A100-SXM4-40GB for A100-SXM4-80GB) does not.

mkdir -p "$dra"
n_devices=0
sed -e '/^#/d' -e '/^$/d' "$cel/devices.tsv" >"$dra/names"
while IFS= read -r product; do
	n_devices=$((n_devices + 1))
	jq -n --arg p "$product" \
		'{driver: "gpu.nvidia.com", attributes: {"gpu.nvidia.com": {productName: $p}}, capacity: {}}' \
		>"$dra/device-$n_devices.json"
done <"$dra/names"
{
	for f in "$TESTS_DIR"/golden/dra/*/expected.yaml; do
		[ -f "$f" ] && sed -n 's/^ *expression: //p' "$f"
	done
	for f in "$TESTS_DIR"/golden/dra/*/expected.json; do
		[ -f "$f" ] && jq -r '.. | .cel? | .expression? // empty' "$f"
	done
} | sort -u >"$dra/selectors"
n_selectors=0
while IFS= read -r expr; do
	n_selectors=$((n_selectors + 1))
	# the models it names: its string literals after "gpu.nvidia.com",
	# " " and "-"
	printf '%s\n' "$expr" | grep -o '"[^"]*"' | sed -n '4,$s/"//gp' >"$dra/models"
	i=0 want=""
	while IFS= read -r product; do
		i=$((i + 1))
		label=$(printf '%s' "$product" | tr ' ' '-')
		if grep -qxF -- "$label" "$dra/models"; then
			want="$want device-$i.json true"
		else
			want="$want device-$i.json false"
		fi
	done <"$dra/names"
	(cd "$dra" && "$celcheck" selector -expr "$expr" $(seq -f 'device-%g.json' "$n_devices")) \
		>"$dra/got" 2>"$dra/got.err"
	got=$(awk -F '\t' '{ printf " %s %s", $1, $2 }' "$dra/got")
	matched=$(awk -F '\t' '$2 == "true"' "$dra/got" | wc -l)
	if [ "$got" = "$want" ] && [ "$matched" -ge 1 ]; then
		pass "dra selector accepts exactly its models ($matched of $n_devices sample GPUs): $expr"
	else
		fail "dra selector: $expr"
		printf '    want:%s\n    got: %s\n' "$want" "$got"
		sed 's/^/    /' "$dra/got.err"
	fi
done <"$dra/selectors"
check "dra selectors: the golden outputs hold some ($n_selectors)" [ "$n_selectors" -ge 5 ]

# ------------------------------------------------------------------
# The registration

reg="$dir/registration.json"
source=""
if [ "$registration" != sample ]; then
	if "$GPUMEND" webhook-config -o json >"$reg" 2>"$dir/reg.err"; then
		source="gpumend webhook-config -o json"
	elif [ "$registration" = auto ] && grep -q "'webhook-config' is not a gpumend command" "$dir/reg.err"; then
		:
	else
		fail "registration: gpumend webhook-config -o json failed"
		sed 's/^/    /' "$dir/reg.err"
		finish cel
		exit 1
	fi
fi
if [ -z "$source" ]; then
	jq -n -f "$cel/sample-webhook-config.jq" >"$reg" || {
		fail "registration: the sample (tests/cel/sample-webhook-config.jq) does not build"
		finish cel
		exit 1
	}
	source="the sample, tests/cel/sample-webhook-config.jq"
fi
echo "# registration: $source"
jq -r '.webhooks[] | "#   \(.name): failurePolicy \(.failurePolicy), \(.matchConditions | length) conditions"' "$reg"

# every object of the inputs as a CREATE and an UPDATE review
mkdir -p "$dir/reviews"
# shellcheck disable=SC2046
(cd "$REPO_DIR" && "$celcheck" wrap -out "$dir/reviews" -ops CREATE,UPDATE \
	$(sed -e '/^#/d' -e '/^$/d' "$cel/inputs")) >"$dir/index" 2>"$dir/wrap.err"
n_objects=$(wc -l <"$dir/index")
n_unreadable=$(grep -c '^celcheck: cannot parse' "$dir/wrap.err")
check "inputs: $n_objects objects read ($n_unreadable files or documents that do not parse: no API server sends them)" \
	[ "$n_objects" -ge 100 ]

# The namespaceSelector leaves out kube-system and the webhook's own
# namespace by design (docs/deploy.md, "Opting out"): checked here once.
# The conditions are then judged on every object as if in any other
# namespace, kube-system's legacy device plugins included, so that the
# selector hides no condition that misses.
check "registration: each entry's namespaceSelector leaves out exactly kube-system and gpumend-system, and the opt-out label" \
	[ "$(jq -c '[.webhooks[].namespaceSelector] | unique' "$reg")" = \
	'[{"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":"NotIn","values":["kube-system","gpumend-system"]},{"key":"gpumend.io/webhook","operator":"NotIn","values":["disabled"]}]}]' ]
jq 'del(.webhooks[].namespaceSelector)' "$reg" >"$dir/any-namespace.json"
n_excluded=$(cat "$dir"/reviews/*.json | jq -r '.request.namespace' | grep -cx 'kube-system\|gpumend-system')
echo "# $n_excluded reviews in kube-system or gpumend-system: judged as if in another namespace"

if "$celcheck" match -config "$dir/any-namespace.json" "$dir"/reviews/*.json >"$dir/match" 2>"$dir/match.err"; then
	pass "registration: every condition compiles in the API server's CEL environment"
else
	fail "registration: celcheck cannot evaluate it"
	sed 's/^/    /' "$dir/match.err"
	finish cel
	exit 1
fi

# what gpumend does with each review, and with only each entry's rules
# (`review --entry`)
for f in "$dir"/reviews/*.json; do
	"$GPUMEND" review "$f" >"${f%.json}.answer" 2>/dev/null
	for e in legacy advisory; do
		"$GPUMEND" review --entry "$e" "$f" >"${f%.json}.$e" 2>/dev/null
	done
done
# FILE <TAB> WHAT <TAB> MESSAGE, one line per finding (a warning "RULE:
# MESSAGE", "deny" for a refusal, "*patch" for a patch that no warning
# explains)
jq -r '
	(input_filename | sub("[.]answer$"; ".json")) as $f |
	.response as $r |
	(($r.warnings // []) | map(capture("^(?<rule>[a-z-]+): (?<msg>.*)$") //
		{rule: "*", msg: .})) as $w |
	($w[] | [$f, .rule, .msg]),
	(if $r.allowed == false then [$f, "deny", ($r.status.message // "-")] else empty end),
	(if ($r.patch // "") != "" and ($w | length) == 0 then [$f, "*patch", "-"] else empty end)
	| @tsv' "$dir"/reviews/*.answer >"$dir/findings" 2>"$dir/findings.err"
n_answers=$(ls "$dir"/reviews/*.answer | wc -l)
n_reviewed=$(jq -r '.response.uid' "$dir"/reviews/*.answer 2>/dev/null | wc -l)
check "gpumend review answers every review ($n_reviewed of $n_answers)" \
	[ "$n_reviewed" = "$n_answers" -a ! -s "$dir/findings.err" ]
# FILE <TAB> WEBHOOK, for each entry responsible for the review (a patch,
# a warning or a refusal): its conditions must match it
for e in legacy advisory; do
	jq -r --arg e "$e" 'select((.response.patch // "") != "" or
		((.response.warnings // []) | length) > 0 or
		.response.allowed == false) |
		[(input_filename | sub("[.][a-z]+$"; ".json")), "\($e).gpumend.io"] | @tsv' \
		"$dir"/reviews/*."$e"
done >"$dir/responsible" 2>"$dir/responsible.err"
n_entry=$(cat "$dir"/reviews/*.legacy "$dir"/reviews/*.advisory | jq -r '.response.uid' 2>/dev/null | wc -l)
check "gpumend review --entry answers every review for each entry ($n_entry of $((2 * n_answers)))" \
	[ "$n_entry" = "$((2 * n_answers))" -a ! -s "$dir/responsible.err" ]

# ------------------------------------------------------------------
# Judging: one line per review and entry in $dir/match; the verdicts
# of the awk below, one per line: CHECK <TAB> REVIEW <TAB> WHY

awk -F '\t' -v budget="$budget" -v index_file="$dir/index" \
	-v policy_file="$cel/policy.tsv" -v findings_file="$dir/findings" \
	-v reviews="$dir/reviews/" -v responsible_file="$dir/responsible" '
	BEGIN {
		while ((getline line <responsible_file) > 0) {
			split(line, p, "\t")
			sub(".*/", "", p[1])
			responsible[p[1], p[2]] = 1
		}
		while ((getline line <policy_file) > 0) {
			if (line ~ /^#/ || line ~ /^[ \t]*$/) continue
			split(line, p, "\t")
			np++; pwhat[np] = p[1]; pmsg[np] = p[2]; ppol[np] = p[3]
		}
		while ((getline line <index_file) > 0) {
			split(line, p, "\t")
			sub(".*/", "", p[1])
			origin[p[1]] = p[2]; kind[p[1]] = p[3]; group[p[1]] = p[4]
		}
		while ((getline line <findings_file) > 0) {
			split(line, p, "\t")
			f = p[1]; sub(".*/", "", f)
			nf[f]++; fwhat[f, nf[f]] = p[2]; fmsg[f, nf[f]] = p[3]
		}
	}
	# class F: what the findings of review F need (Fail, Ignore, offline
	# or "" for none)
	function class(f,    base, k, i, j, c, best) {
		base = f; sub(/[.][A-Z]+[.]json$/, "", base)
		for (j = 1; j <= np; j++)
			if (pwhat[j] == "kind=" kind[base]) return ppol[j]
		best = ""
		for (i = 1; i <= nf[f]; i++) {
			c = ""
			for (j = 1; j <= np && c == ""; j++)
				if ((pwhat[j] == fwhat[f, i] || pwhat[j] == "*") && fmsg[f, i] ~ pmsg[j])
					c = ppol[j]
			if (c == "") c = "Ignore"
			if (c == "Fail" || best == "") best = c
		}
		if (best == "Fail" && f ~ /[.]UPDATE[.]json$/ &&
		    ((kind[base] == "Pod" && group[base] == "") ||
		     (kind[base] == "Job" && group[base] == "batch"))) best = "Ignore"
		return best
	}
	{
		f = $1; sub(".*/", "", f)
		reviews_seen[f] = 1
		if ($5 == "unreadable") { unreadable[f] = $7; next }
		if ($5 == "match") matched[f, $4] = 1
		if ($5 == "match") hook_matched[f, $3] = 1
		hooks[$3] = 1
		if ($5 == "match") any[f] = 1
		if ($5 == "reject" || $5 == "skip") errs[f] = errs[f] $3 ": " $7 "; "
		if ($5 == "unregistered") unreg[f] = 1
		if ($6 + 0 > maxcost[$3] + 0) { maxcost[$3] = $6; maxat[$3] = f }
	}
	END {
		for (f in reviews_seen) {
			base = f; sub(/[.][A-Z]+[.]json$/, "", base)
			who = origin[base] " (" kind[base] ", " (f ~ /UPDATE/ ? "UPDATE" : "CREATE") ")"
			if (f in unreadable) { print "unreadable\t" who "\t" unreadable[f]; continue }
			for (h in hooks)
				if (responsible[f, h] && !hook_matched[f, h]) {
					print "entry\t" who "\t" "review --entry " h " acts, its conditions do not match"
					n_entry_missed++
				}
			for (h in hooks)
				if (responsible[f, h]) n_responsible++
			c = class(f)
			n_total++
			if (f in errs) print "error\t" who "\t" errs[f]
			if (c == "offline") { n_offline++; continue }
			if (c == "Fail" || c == "Ignore") {
				n_acted++
				if (c == "Fail") n_fail++; else n_ignore++
				if (!matched[f, c])
					print "superset-" c "\t" who "\t" (f in unreg ? "not registered for its kind" : "no " c " entry matches")
			}
			if (c != "Fail" && matched[f, "Fail"])
				print "overblock\t" who "\tneeds " (c == "" ? "nothing" : c) ", reaches the Fail entry"
			if (c == "") {
				# plain: no finding and no GPU word anywhere in the object
				cmd = "grep -Eqi \"gpu|nvidia|cuda|nvcr[.]io\" " reviews f
				plain = (system(cmd) != 0)
				if (plain) {
					n_plain++
					if (f in any) print "selectivity\t" who "\ta plain object reaches an entry"
				} else {
					n_gpu_quiet++
					if (f in any) n_gpu_quiet_sent++
				}
			}
		}
		printf "count\treviews\t%d\n", n_total
		printf "count\tresponsible\t%d\n", n_responsible
		printf "count\tacted\t%d\n", n_acted
		printf "count\tfail\t%d\n", n_fail
		printf "count\tignore\t%d\n", n_ignore
		printf "count\toffline\t%d\n", n_offline
		printf "count\tplain\t%d\n", n_plain
		printf "count\tgpu-quiet\t%d\n", n_gpu_quiet
		printf "count\tgpu-quiet-sent\t%d\n", n_gpu_quiet_sent
		for (w in maxcost) printf "cost\t%s\t%d\t%s\n", w, maxcost[w], origin[substr(maxat[w], 1, 5)]
	}' "$dir/match" >"$dir/verdicts"

count() { awk -F '\t' -v k="$1" '$1 == "count" && $2 == k { print $3 }' "$dir/verdicts"; }
# verdict CHECK DESCRIPTION: passes when the awk found no CHECK line.
verdict() {
	if grep -q "^$1	" "$dir/verdicts"; then
		fail "$2"
		grep "^$1	" "$dir/verdicts" | cut -f2- | sort | sed 's/	/: /; s/^/    /'
	else
		pass "$2"
	fi
}

echo "# $(count reviews) reviews: $(count acted) that gpumend acts on ($(count fail) need Fail, $(count ignore) Ignore), $(count offline) offline-only, $(count plain) plain, $(count gpu-quiet) with a GPU word and no finding ($(count gpu-quiet-sent) of them sent)"
verdict superset-Fail "superset: every object that cannot run unmigrated reaches the Fail entry ($(count fail) reviews)"
verdict superset-Ignore "superset: every other object gpumend acts on reaches an Ignore entry ($(count ignore) reviews)"
verdict entry "superset: each entry matches every object that \`gpumend review --entry\` says it is responsible for ($(count responsible) (review, entry) pairs)"
verdict overblock "no object reaches the Fail entry that does not need it (pod UPDATEs never do)"
verdict selectivity "selectivity: no plain object reaches any entry ($(count plain) plain reviews)"
verdict error "no condition fails to evaluate on any of the $(count reviews) reviews"
check "the counts are there (the judging ran)" [ "$(count acted)" -gt 50 -a "$(count plain)" -gt 10 ]
awk -F '\t' -v budget="$budget" '$1 == "cost" {
	printf "# highest runtime cost of %s: %d of %d (%s)\n", $2, $3, budget, $4 }' "$dir/verdicts"

# ------------------------------------------------------------------
# Cost on large and hostile bodies

cases "$cel/cost.tsv" >"$dir/cost"
i=0
while IFS='	' read -r name want base filter; do
	i=$((i + 1))
	if ! jq -c "$filter" "$TESTS_DIR/bench/review-$base.json" >"$dir/cost-$i.json" 2>"$dir/cost.err"; then
		fail "cost: $name: the jq filter fails"
		sed 's/^/    /' "$dir/cost.err"
		continue
	fi
	size=$(wc -c <"$dir/cost-$i.json")
	"$celcheck" match -config "$reg" "$dir/cost-$i.json" >"$dir/cost.out" 2>"$dir/cost.err"
	summary=$(awk -F '\t' '{ printf "%s%s %s %d", sep, $3, $5, $6; sep = ", " }' "$dir/cost.out")
	# entries that ran out (an error or a cost over the budget), and
	# those of them not answered by their policy (reject under Fail,
	# skip under Ignore)
	over=$(awk -F '\t' -v b="$budget" '$5 == "reject" || $5 == "skip" || $6 > b { n++ } END { print n + 0 }' "$dir/cost.out")
	unanswered=$(awk -F '\t' -v b="$budget" '($7 ~ /cost|budget/ || $6 > b) &&
		!($4 == "Fail" && $5 == "reject" || $4 == "Ignore" && $5 == "skip") { n++ } END { print n + 0 }' "$dir/cost.out")
	if [ ! -s "$dir/cost.out" ]; then
		fail "cost: $name: celcheck answered nothing"
		sed 's/^/    /' "$dir/cost.err"
	elif [ "$size" -gt 3145728 ]; then
		fail "cost: $name: $size bytes, over the API server's 3 MiB"
	elif [ "$want" = within ]; then
		check "cost: $name ($size bytes): within the budget of $budget ($summary)" [ "$over" = 0 ]
	else
		check "cost: $name ($size bytes): over, rejected under Fail and not sent under Ignore ($summary)" \
			[ "$over" != 0 -a "$unanswered" = 0 ]
	fi
done <"$dir/cost"
check "cost: the hostile bodies ran ($i cases)" [ "$i" -ge 5 ]
echo "# the API server's figures (k8s.io/apiserver/pkg/apis/cel/config.go): PerCallLimit $per_call, RuntimeCELCostBudgetMatchConditions $budget"

finish cel
