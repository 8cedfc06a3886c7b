# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/chart/references.jq - what the chart's objects call each other by
# agrees, whatever fullnameOverride, nameOverride and the namespace are,
# for tests/suites/chart.sh:
#
#   jq -r -s --arg full FULLNAME --arg ns NAMESPACE -f references.jq OBJECTS
#
# OBJECTS are the objects rendered with certificates.source cert-manager
# (the ServiceMonitor, PrometheusRule and NetworkPolicy when there are).
# Prints one line for each reference that does not hold; nothing when all
# do.

def one(k): map(select(.kind == k)) |
	if length == 1 then .[0] else error("not one \(k) but \(length)") end;
def cert(ca): map(select(.kind == "Certificate" and ((.spec.isCA // false) == ca))) |
	if length == 1 then .[0] else error("not one Certificate with isCA \(ca)") end;
# every label of $sel is one of $labels
def selects($sel; $labels): $sel | to_entries | length > 0 and
	all(.[]; $labels[.key] == .value);
def check(cond; what): if cond then empty else what end;

. as $all
| one("Deployment") as $deploy
| $deploy.spec.template as $pod
| one("Service") as $svc
| $svc.metadata.name as $s
| cert(false) as $serving
| cert(true) as $ca
| ($pod.spec.volumes | map({key: .name, value: .}) | from_entries) as $volumes
| "\($s).\($ns).svc" as $host
| one("MutatingWebhookConfiguration") as $reg
| [
	check($all | map(select(.kind != "Namespace")) |
		all(.metadata.name == $full or (.metadata.name | startswith("\($full)-")));
		"an object is not named \($full) or \($full)-*"),
	check($all | map(select(.kind != "Namespace" and .kind != "MutatingWebhookConfiguration")) |
		all(.metadata.namespace == $ns);
		"a namespaced object is not in \($ns)"),
	check(selects($deploy.spec.selector.matchLabels; $pod.metadata.labels);
		"the Deployment does not select its own pods"),
	check(selects($svc.spec.selector; $pod.metadata.labels);
		"the Service does not select the pods"),
	check(selects(one("PodDisruptionBudget").spec.selector.matchLabels; $pod.metadata.labels);
		"the PodDisruptionBudget does not select the pods"),
	check($pod.spec.serviceAccountName == one("ServiceAccount").metadata.name;
		"the pods' ServiceAccount is not the chart's"),
	check($volumes.config.configMap.name == one("ConfigMap").metadata.name;
		"the pods do not mount the chart's ConfigMap"),
	check($volumes.tls.secret.secretName == $serving.spec.secretName;
		"the pods do not mount the serving certificate's Secret"),
	check($pod.spec.topologySpreadConstraints | all(.[];
		selects(.labelSelector.matchLabels; $pod.metadata.labels));
		"a topology spread constraint does not count the pods"),
	check($serving.spec.dnsNames == [$s, "\($s).\($ns)", $host, "\($host).cluster.local"];
		"the serving certificate is not for the Service \($s) in \($ns)"),
	check($serving.spec.issuerRef.name as $i |
		any($all[]; .kind == "Issuer" and .metadata.name == $i and .spec.ca.secretName == $ca.spec.secretName);
		"the serving certificate's Issuer does not sign with the CA's Secret"),
	check($ca.spec.issuerRef.name as $i |
		any($all[]; .kind == "Issuer" and .metadata.name == $i and .spec.selfSigned != null);
		"the CA certificate's Issuer is not the self-signed one"),
	check($reg.metadata.name == $full;
		"the registration is not named \($full)"),
	check($reg.metadata.annotations["cert-manager.io/inject-ca-from"] == "\($ns)/\($serving.metadata.name)";
		"inject-ca-from does not name the serving certificate"),
	check($reg.webhooks | length > 0 and all(.[]; .clientConfig.service.name == $s and
		.clientConfig.service.namespace == $ns and .clientConfig.service.port == 443);
		"an entry does not call the Service \($s) in \($ns) on 443"),
	check($reg.webhooks | all(.[]; [.namespaceSelector.matchExpressions[] |
		select(.key == "kubernetes.io/metadata.name") | .values[]] | index([$ns]) != null);
		"an entry does not leave \($ns) out"),
	(map(select(.kind == "NetworkPolicy"))[] |
		check(selects(.spec.podSelector.matchLabels; $pod.metadata.labels) and
			(.spec.ingress[0].ports[0].port as $p |
			 any($pod.spec.containers[0].ports[]; .name == $p));
			"the NetworkPolicy does not open the pods' port")),
	(map(select(.kind == "ServiceMonitor"))[] |
		check(selects(.spec.selector.matchLabels; $svc.metadata.labels) and
			(.spec.endpoints | all(.[]; .tlsConfig.serverName == $host and
				.tlsConfig.ca.secret.name == $serving.spec.secretName and
				(.port as $p | any($svc.spec.ports[]; .name == $p))));
			"the ServiceMonitor does not scrape the Service \($s) as \($host)")),
	(map(select(.kind == "PrometheusRule"))[] |
		[.spec.groups[].rules[].expr | scan("job=\"[^\"]*\"")] as $jobs |
		check(($jobs | length) > 0 and all($jobs[]; . == "job=\"\($s)\"");
			"an alert reads another job than \($s), the Service's: \($jobs | unique)"))
  ]
| .[]
