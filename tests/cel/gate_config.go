// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// gate_config.go - the configs the gate runs its objects under: the
// default config, every webhook rule in deny mode with
// annotations.denyOptOutNamespaces, and random ones (per-rule modes,
// sharing strategy, namespace model policies, custom resources); and
// which entry of the registration each rule's part belongs to under a
// config, as docs/webhook.md says (for naming over-approximations only:
// the superset check asks `gpumend review --entry` itself).
package main

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
)

// webhookRules are the rules the webhook runs, each with the entry of
// its core part and of its extra part in mutate mode ("" for none), and
// whether it has a mutate mode.
var webhookRules = []struct {
	name        string
	core, extra string
	mutate      bool
}{
	{"legacy-gpu-resource", "legacy", "", true},
	{"legacy-gpu-node-label", "legacy", "", true},
	{"legacy-affinity-annotation", "legacy", "", true},
	{"critical-pod-annotation", "advisory", "", true},
	{"gpu-model-affinity", "advisory", "", true},
	{"gpu-sharing", "legacy", "advisory", true},
	{"obsolete-cuda-hostpath", "legacy", "advisory", true},
	{"gpu-visibility", "advisory", "", true},
	{"removed-gpu-feature-gate", "advisory", "", false},
	{"obsolete-gpu-component", "advisory", "", false},
}

// offlineRules run in the CLI only: a mode of theirs changes nothing the
// webhook does.
var offlineRules = []string{"deprecated-workload-api", "legacy-scheduler-config", "invalid-resource", "removed-api"}

// defaultModes are the webhook rules' default modes (gpumend config).
var defaultModes = map[string]string{
	"legacy-gpu-resource": "mutate", "legacy-gpu-node-label": "mutate",
	"legacy-affinity-annotation": "mutate", "critical-pod-annotation": "mutate",
	"gpu-model-affinity": "mutate", "gpu-sharing": "mutate",
	"obsolete-cuda-hostpath": "mutate", "gpu-visibility": "warn",
	"removed-gpu-feature-gate": "warn", "obsolete-gpu-component": "warn",
}

// gateConfig is one config: what the generator needs to know of it, and
// the document written for gpumend (doc).
type gateConfig struct {
	scenario      string // default, deny, random
	modes         map[string]string
	denyOptOut    []string
	modelNS       map[string][]string
	custom        []gateShape
	strategy      string
	sharedGPU     string
	doc           map[string]any
	sharedIsPlain bool // sharedGPU is the plain GPU resource
}

// the namespaces of the requests; "sandbox" is the deny config's
// opt-out namespace, "ml-team" a namespace with a model policy
var gateNamespaces = []string{"default", "team-a", "sandbox", "ml-team", "prod-7",
	"kube-system", "gpumend-system", "ci"}

var gateModels = [][]string{{"Tesla K80"}, {"A100-SXM4-80GB", "H100 80GB HBM3"}, {"Tesla T4"}}

// newGateConfig makes config number k of a run: default, deny and random
// in turn.
func newGateConfig(r *rand.Rand, k int) *gateConfig {
	c := &gateConfig{modes: map[string]string{}, modelNS: map[string][]string{},
		strategy: "time-slicing", sharedGPU: "nvidia.com/gpu"}
	for n, m := range defaultModes {
		c.modes[n] = m
	}
	rules := map[string]any{}
	doc := map[string]any{}
	switch k % 3 {
	case 0:
		c.scenario = "default"
	case 1:
		c.scenario = "deny"
		for _, w := range webhookRules {
			c.modes[w.name] = "deny"
			rules[w.name] = map[string]any{"mode": "deny"}
		}
		c.denyOptOut = []string{"sandbox"}
		if r.IntN(2) == 0 {
			c.denyOptOut = append(c.denyOptOut, "ci")
		}
	default:
		c.scenario = "random"
		for _, w := range webhookRules {
			modes := []string{"off", "warn", "deny"}
			if w.mutate {
				modes = append(modes, "mutate", "mutate")
			}
			if r.IntN(3) == 0 {
				continue
			}
			c.modes[w.name] = modes[r.IntN(len(modes))]
			rules[w.name] = map[string]any{"mode": c.modes[w.name]}
		}
		if r.IntN(4) == 0 {
			o := offlineRules[r.IntN(len(offlineRules))]
			rules[o] = map[string]any{"mode": []string{"off", "warn", "deny"}[r.IntN(3)]}
		}
		if r.IntN(2) == 0 {
			c.denyOptOut = []string{"sandbox"}
		}
		if r.IntN(2) == 0 {
			c.modelNS["ml-team"] = gateModels[r.IntN(len(gateModels))]
		}
		c.strategy = []string{"time-slicing", "mps", "hami", "keep"}[r.IntN(4)]
		if r.IntN(4) == 0 {
			c.sharedGPU = "nvidia.com/gpu.shared"
		}
		if r.IntN(2) == 0 {
			c.custom = []gateShape{customShape("example.com", "trainjobs", "TrainJob",
				[]string{"spec.workers.*.template.spec", "spec.launcher.spec"})}
		}
	}
	c.sharedIsPlain = c.sharedGPU == "nvidia.com/gpu"
	if len(rules) > 0 {
		doc["rules"] = rules
	}
	if len(c.denyOptOut) > 0 {
		doc["annotations"] = map[string]any{"denyOptOutNamespaces": toAny(c.denyOptOut)}
	}
	if len(c.modelNS) > 0 {
		ns := map[string]any{}
		for n, m := range c.modelNS {
			ns[n] = toAny(m)
		}
		doc["models"] = map[string]any{"namespaces": ns}
	}
	if c.strategy != "time-slicing" {
		doc["sharing"] = map[string]any{"strategy": c.strategy}
	}
	if c.sharedGPU != "nvidia.com/gpu" {
		doc["resources"] = map[string]any{"sharedGPU": c.sharedGPU}
	}
	if len(c.custom) > 0 {
		var crs []any
		for _, s := range c.custom {
			crs = append(crs, map[string]any{"group": s.group,
				"resources": []any{s.resource}, "podSpecs": toAny(s.versions[0].paths)})
		}
		doc["webhook"] = map[string]any{"customResources": crs}
	}
	c.doc = doc
	return c
}

func toAny(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// entryOf is the entry that rule's part ("core" or "extra") belongs to
// under the config, "" for none; a Pod or Job UPDATE (fixedUpdate) is
// the advisory entry's alone.
func (c *gateConfig) entryOf(rule, part string, fixedUpdate bool) string {
	for _, w := range webhookRules {
		if w.name != rule {
			continue
		}
		e := w.core
		if part == "extra" {
			e = w.extra
		}
		switch c.modes[rule] {
		case "off":
			return ""
		case "deny":
			if e != "" {
				e = "legacy"
			}
		case "warn":
			if e != "" {
				e = "advisory"
			}
		}
		if e != "" && fixedUpdate {
			e = "advisory"
		}
		return e
	}
	return ""
}

// yamlText writes a config document as YAML (block style, every string
// double-quoted: JSON's escapes are YAML's).
func yamlText(v any) string {
	var b strings.Builder
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		return "{}\n"
	}
	writeYAML(&b, v, 0)
	return b.String()
}

func writeYAML(b *strings.Builder, v any, indent int) {
	pad := strings.Repeat("  ", indent)
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(b, "%s%s:", pad, yamlKey(k))
			writeYAMLValue(b, t[k], indent)
		}
	case []any:
		for _, e := range t {
			fmt.Fprintf(b, "%s-", pad)
			writeYAMLValue(b, e, indent)
		}
	}
}

func writeYAMLValue(b *strings.Builder, v any, indent int) {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			b.WriteString(" {}\n")
			return
		}
		b.WriteString("\n")
		writeYAML(b, t, indent+1)
	case []any:
		if len(t) == 0 {
			b.WriteString(" []\n")
			return
		}
		b.WriteString("\n")
		writeYAML(b, t, indent+1)
	default:
		fmt.Fprintf(b, " %s\n", jsonText(t))
	}
}

var plainKey = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9._/-]*$`)

// yamlKey: a mapping key, quoted unless it is a plain word.
func yamlKey(k string) string {
	if plainKey.MatchString(k) {
		return k
	}
	return jsonText(k)
}
