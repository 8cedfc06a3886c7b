#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/monitoring.sh - manifests/monitoring: it builds offline
# with `kubectl kustomize`; its ServiceMonitor scrapes the base's Service
# the way the webhook serves (port, scheme, certificate name, CA); its
# PrometheusRule passes `promtool check rules`, and `promtool test rules`
# with tests/monitoring/rules.test.yaml, where every alert has series that
# must fire it and series that must not; every gpumend_* metric the alerts
# read is one the webhook exports. promtool comes from Debian's prometheus
# package (make test-deps); a missing promtool fails.
. "$(dirname "$0")/../lib.sh"

# not dir=$(scratch): see tests/lib.sh
scratch >/dev/null
dir=$_scratch
WEBHOOK_DIR=$dir
manifests="$REPO_DIR/manifests"
tests_data="$TESTS_DIR/monitoring"

if ! kubectl=$(tool kubectl); then
	fail "monitoring: no kubectl (tests/tools/get.sh, above)"
	finish monitoring
	exit 1
fi
if ! command -v promtool >/dev/null 2>&1; then
	fail "monitoring: no promtool (make test-deps installs Debian's prometheus)"
	finish monitoring
	exit 1
fi

# doc_of KIND <FILE: the YAML documents of that kind.
doc_of() {
	awk -v kind="$1" '
		/^---$/ { if (k == kind) printf "%s", doc; doc = ""; k = ""; next }
		{ doc = doc $0 "\n"; if ($0 ~ /^kind: /) k = substr($0, 7) }
		END { if (k == kind) printf "%s", doc }'
}

if "$kubectl" kustomize "$manifests/monitoring" >"$dir/mon.yaml" 2>"$dir/mon.err"; then
	pass "kubectl kustomize manifests/monitoring succeeds"
else
	fail "kubectl kustomize manifests/monitoring succeeds ($(cat "$dir/mon.err"))"
fi
"$kubectl" kustomize "$manifests/base" >"$dir/base.yaml" 2>/dev/null
check "one ServiceMonitor and one PrometheusRule" \
	[ "$(grep -c '^kind: ServiceMonitor$' "$dir/mon.yaml")" = 1 -a \
	  "$(grep -c '^kind: PrometheusRule$' "$dir/mon.yaml")" = 1 ]
check "everything in gpumend-system, as the webhook" sh -c \
	"[ \$(grep -c '^  namespace: gpumend-system\$' '$dir/mon.yaml') = 2 ]"

# ---------------------------------------------------------------- scrape
doc_of ServiceMonitor <"$dir/mon.yaml" >"$dir/sm.yaml"
doc_of Service <"$dir/base.yaml" >"$dir/service.yaml"
service=$(awk '/^metadata:/ { m = 1 } m && /^  name: / { print $2; exit }' "$dir/service.yaml")
check "servicemonitor: selects the Service by its label" sh -c \
	"awk '/^  labels:/,/^  name:/' '$dir/service.yaml' | grep -q 'app.kubernetes.io/name: gpumend-webhook' &&
	 tr -d ' \n' <'$dir/sm.yaml' | grep -qF 'selector:matchLabels:app.kubernetes.io/name:gpumend-webhook'"
check "servicemonitor: the port is one the Service names (https)" sh -c \
	"grep -q '^  - port: https\$\|^    port: https\$' '$dir/sm.yaml' &&
	 grep -q '^  - name: https\$' '$dir/service.yaml'"
check "servicemonitor: HTTPS on /metrics" sh -c \
	"grep -q 'scheme: https' '$dir/sm.yaml' && grep -q 'path: /metrics' '$dir/sm.yaml'"
check "servicemonitor: checks the name the certificate holds ($service.gpumend-system.svc)" \
	grep -q "serverName: $service.gpumend-system.svc\$" "$dir/sm.yaml"
check "servicemonitor: trusts ca.crt of the Secret the Deployment mounts" sh -c \
	"tr -d ' \n' <'$dir/sm.yaml' | grep -qF 'ca:secret:key:ca.crtname:gpumend-webhook-tls' &&
	 grep -q 'secretName: gpumend-webhook-tls' '$dir/base.yaml'"

# ---------------------------------------------------------------- rules
# the PrometheusRule's spec is a Prometheus rule file
doc_of PrometheusRule <"$dir/mon.yaml" |
	awk '/^spec:$/ { s = 1; next } s && /^[^ ]/ { s = 0 } s { print substr($0, 3) }' \
	>"$dir/rules.yaml"
promtool check rules "$dir/rules.yaml" >"$dir/check.out" 2>&1
status=$?
check "promtool check rules: $(grep -o '[0-9]* rules found' "$dir/check.out")" \
	[ "$status" = 0 ]
[ "$status" = 0 ] || sed 's/^/    /' "$dir/check.out"
check "the job the alerts read is the Service's name (the operator's default job label)" sh -c \
	"[ -n '$service' ] && grep -q 'job=\"$service\"' '$dir/rules.yaml' &&
	 ! grep -o 'job=\"[^\"]*\"' '$dir/rules.yaml' | grep -qv 'job=\"$service\"'"
cp "$tests_data/rules.test.yaml" "$dir/"
(cd "$dir" && promtool test rules rules.test.yaml) >"$dir/test.out" 2>&1
status=$?
check "promtool test rules tests/monitoring/rules.test.yaml" [ "$status" = 0 ]
[ "$status" = 0 ] || sed 's/^/    /' "$dir/test.out"

# every alert: an evaluation where it fires (exp_labels) and one where it
# must not (exp_alerts: [])
sed -n 's/^ *- alert: *//p' "$dir/rules.yaml" >"$dir/alerts"
check "the rules hold the six alerts ($(tr '\n' ' ' <"$dir/alerts"))" \
	[ "$(wc -l <"$dir/alerts")" = 6 ]
while read -r alert; do
	set -- $(awk -v a="$alert" '
		/alertname:/ { cur = $2 }
		cur == a && /exp_alerts: \[\]/ { neg++ }
		cur == a && /exp_labels:/ { pos++ }
		END { print pos + 0, neg + 0 }' "$tests_data/rules.test.yaml")
	check "$alert: tested firing ($1) and not firing ($2)" [ "$1" -ge 1 -a "$2" -ge 1 ]
done <"$dir/alerts"

# the alerts' own metrics exist: every gpumend_* name in the rules is on
# the webhook's /metrics page
webhook_pair "$dir/certs" &&
	webhook_start metrics --tls-cert "$dir/certs/tls.crt" --tls-key "$dir/certs/tls.key" &&
	curl -sS --cacert "$dir/certs/ca.crt" "$webhook_url/metrics" >"$dir/metrics" 2>/dev/null
webhook_stop
missing=""
for name in $(grep -o 'gpumend_[a-z_]*' "$dir/rules.yaml" | sort -u); do
	grep -q "^# TYPE $name " "$dir/metrics" 2>/dev/null && continue
	missing="$missing $name"
done
check "every gpumend_* metric the alerts read is exported${missing:+ (not:$missing)}" \
	[ -s "$dir/metrics" -a -z "$missing" ]

finish monitoring
