// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// gate_object.go - one review of the gate: the object number i of a run,
// made from the run's seed and i alone (so that `celcheck gate -only i`
// makes it again), wrapped in an AdmissionReview as the API server
// sends it.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
)

// gateObject is one review and what the generator knows of it.
type gateObject struct {
	index  int
	review map[string]any
	line   []byte // the review as one line of JSON
	tags   map[string]bool
	shape  *gateShape
	op     string
	huge   bool
	fixed  bool // a Pod or Job UPDATE
}

// objectSeed: the seed of object i of a run.
func objectSeed(seed uint64, i int) (uint64, uint64) {
	return seed, uint64(i)*0x9e3779b97f4a7c15 + 1
}

// shapesOf: the kinds of a config: every row, and its custom resources.
func shapesOf(cfg *gateConfig) []gateShape {
	out := append([]gateShape{}, gateShapes...)
	return append(out, cfg.custom...)
}

// makeObject makes review i of a run under cfg.
func makeObject(seed uint64, i int, cfg *gateConfig) *gateObject {
	s1, s2 := objectSeed(seed, i)
	r := rand.New(rand.NewPCG(s1, s2))
	shapes := shapesOf(cfg)
	shape := &shapes[r.IntN(len(shapes))]
	vp := &shape.versions[r.IntN(len(shape.versions))]
	ns := ""
	if shape.namespaced {
		ns = gateNamespaces[r.IntN(len(gateNamespaces))]
	}
	op := "CREATE"
	if r.IntN(100) < 40 {
		op = "UPDATE"
	}
	oldKind := r.IntN(100)
	huge := r.IntN(2000) == 0
	objSeed := r.Uint64()

	o := &gateObject{index: i, shape: shape, op: op, huge: huge}
	obj, tags := buildObject(objSeed, cfg, shape, vp, ns, false, huge)
	o.tags = tags
	var old map[string]any
	if op == "UPDATE" {
		switch {
		case oldKind < 40 || huge:
			old = obj
		case oldKind < 70:
			// the legacy manifest applied again over what gpumend
			// stored
			old, _ = buildObject(objSeed, cfg, shape, vp, ns, true, false)
		case oldKind < 80:
			// the update that brings the current form
			old = obj
			obj, o.tags = buildObject(objSeed, cfg, shape, vp, ns, true, false)
			o.tags["update-to-current"] = true
		default:
			old, _ = buildObject(objSeed^0x5bd1e995, cfg, shape, vp, ns, false, false)
		}
	}
	o.fixed = op == "UPDATE" && (shape.group == "" && shape.resource == "pods" ||
		shape.group == "batch" && shape.resource == "jobs")
	o.review = gateReview(fmt.Sprintf("gate-%d", i), op, shape, vp, obj, old, ns, r)
	o.line = jsonLine(o.review)
	return o
}

// buildObject makes the object (or its migrated twin) and its tags.
func buildObject(seed uint64, cfg *gateConfig, shape *gateShape, vp *versionPods, ns string,
	modern, huge bool) (map[string]any, map[string]bool) {
	g := &gen{r: rand.New(rand.NewPCG(seed, 7)), cfg: cfg, shape: shape, vp: vp,
		tags: map[string]bool{}, modern: modern, keep: shape.keep, ns: ns}
	obj := g.object()
	meta := obj["metadata"].(map[string]any)
	mode := g.intn(100)
	n := 1 + g.intn(3)
	extra := g.chance(0.15)
	switch {
	case len(g.pods) == 0:
	case mode < 40:
		// plain; a third of them with a current GPU container
		if g.chance(0.3) {
			g.nearMiss("visibility-gpu-requested")
		}
	case mode < 60:
		g.nearMiss(nearMisses[g.intn(len(nearMisses))])
	default:
		for k := 0; k < n; k++ {
			g.construct(webhookRules[g.intn(len(webhookRules))].name)
		}
		if extra {
			g.nearMiss(nearMisses[g.intn(len(nearMisses))])
		}
	}
	if len(cfg.modelNS[ns]) > 0 {
		for _, p := range g.pods {
			for _, c := range p.containers {
				if requestsGPU(c) {
					g.tag("construct:gpu-model-affinity")
				}
			}
		}
	}
	g.optOut(meta)
	g.lifecycle(meta)
	hs := rand.New(rand.NewPCG(seed, 11))
	if shape.keep != keepTyped && hs.IntN(100) < 35 {
		hostile(hs, obj, shape.keep, g.tags)
	}
	if huge {
		g.hugeCount(obj)
	}
	classify(obj, g.tags)
	g.podsWithoutContainers()
	g.classifyPods(obj)
	return obj, g.tags
}

// gateReview wraps the object as the API server sends it.
func gateReview(uid, op string, shape *gateShape, vp *versionPods, obj, old map[string]any,
	ns string, r *rand.Rand) map[string]any {
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	gvk := map[string]any{"group": shape.group, "version": vp.version, "kind": shape.kind}
	gvr := map[string]any{"group": shape.group, "version": vp.version, "resource": shape.resource}
	options := map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}
	if op == "UPDATE" {
		options["kind"] = "UpdateOptions"
	}
	req := map[string]any{
		"uid": uid, "kind": gvk, "resource": gvr, "requestKind": gvk, "requestResource": gvr,
		"name": name, "operation": op,
		"userInfo": map[string]any{"username": "system:serviceaccount:ci:deployer"},
		"object":   obj, "oldObject": nil, "dryRun": r.IntN(10) == 0, "options": options,
	}
	if ns != "" {
		req["namespace"] = ns
	}
	if old != nil {
		req["oldObject"] = old
	}
	version := "admission.k8s.io/v1"
	if r.IntN(10) == 0 {
		version = "admission.k8s.io/v1beta1"
	}
	return map[string]any{"apiVersion": version, "kind": "AdmissionReview", "request": req}
}

// jsonLine: v as one line of JSON, '<', '>' and '&' as they are.
func jsonLine(v any) []byte {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		die("cannot write a review: %v", err)
	}
	return []byte(b.String())
}

// jsonText: v as JSON text.
func jsonText(v any) string {
	return strings.TrimSuffix(string(jsonLine(v)), "\n")
}

// ------------------------------------------------------------------
// what the API server keeps: nulls, wrong types, empty members

// the members rules and conditions read, with the type a schema gives
// them ('m' mapping, 'l' list, 's' string)
var hostileKeys = map[string]byte{
	"nodeSelector": 'm', "affinity": 'm', "nodeAffinity": 'm', "tolerations": 'l',
	"volumes": 'l', "hostPath": 'm', "path": 's', "volumeMounts": 'l', "mountPath": 's',
	"containers": 'l', "initContainers": 'l', "ephemeralContainers": 'l', "resources": 'm',
	"computeResources": 'm', "limits": 'm', "requests": 'm', "claims": 'l', "env": 'l',
	"value": 's', "image": 's', "command": 'l', "args": 'l', "metadata": 'm',
	"annotations": 'm', "labels": 'm', "schedulerName": 's', "priorityClassName": 's',
	"template": 'm', "spec": 'm', "container": 'm', "script": 'm', "containerSet": 'm',
	"sidecars": 'l', "steps": 'l', "stepTemplate": 'm', "podTemplate": 'm',
	"templateDefaults": 'm', "model": 'm', "name": 's', "key": 's',
	"requiredDuringSchedulingIgnoredDuringExecution": 'm', "nodeSelectorTerms": 'l',
	"matchExpressions": 'l', "preferredDuringSchedulingIgnoredDuringExecution": 'l',
	"preference": 'm', "taskSpec": 'm', "tasks": 'l', "templates": 'l',
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// slot is a place in the object: a member of a mapping or an element of
// a list.
type slot struct {
	m   map[string]any
	key string
	l   []any
	i   int
}

func (s slot) get() any {
	if s.m != nil {
		return s.m[s.key]
	}
	return s.l[s.i]
}

func (s slot) set(v any) {
	if s.m != nil {
		s.m[s.key] = v
	} else {
		s.l[s.i] = v
	}
}

// slots: every place under v (the object's metadata aside: ObjectMeta is
// typed in every kind).
func slots(v any, top bool, out []slot) []slot {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			if top && (k == "metadata" || k == "apiVersion" || k == "kind") {
				continue
			}
			out = append(out, slot{m: t, key: k})
			out = slots(t[k], false, out)
		}
	case []any:
		for i := range t {
			out = append(out, slot{l: t, i: i})
			out = slots(t[i], false, out)
		}
	}
	return out
}

// hostileValue: a JSON value of any type.
func hostileValue(r *rand.Rand) any {
	switch r.IntN(10) {
	case 0, 1, 2:
		return nil
	case 3:
		return int64(r.IntN(3))
	case 4:
		return 1.5
	case 5:
		return r.IntN(2) == 0
	case 6:
		return []string{"", "x", "true"}[r.IntN(3)]
	case 7:
		return []any{}
	case 8:
		return map[string]any{}
	default:
		return []any{nil}
	}
}

// gpuText: text that may belong to a construct or a near-miss.
var gpuText = []string{"nvidia", "gpu", "aliyun", "rancher", "volcano", "tencent", "cattle",
	"scheduler.alpha", "gpumend.io", "ALIYUN", "Accelerators", "DevicePlugins", "cuda", "nvcr.io"}

func mentionsGPU(key string, v any) bool {
	text := key + jsonText(v)
	for _, t := range gpuText {
		if strings.Contains(text, t) {
			return true
		}
	}
	return false
}

// hostile replaces or adds one to three members of the object's spec
// with what the API server keeps for its kind: any JSON value for an
// open kind; for a kind with a schema, an empty mapping or list where
// one may be.
func hostile(r *rand.Rand, obj map[string]any, k keep, tags map[string]bool) {
	n := 1 + r.IntN(3)
	for j := 0; j < n; j++ {
		all := slots(obj, true, nil)
		if len(all) == 0 {
			return
		}
		s := all[r.IntN(len(all))]
		var v any
		if k == keepOpen {
			v = hostileValue(r)
		} else {
			switch s.get().(type) {
			case map[string]any:
				v = map[string]any{}
			case []any:
				v = []any{}
			default:
				continue
			}
		}
		add := r.IntN(2) == 0
		if m, ok := s.get().(map[string]any); ok && add {
			// a member a rule reads, added to the mapping
			keys := make([]string, 0, len(hostileKeys))
			for key := range hostileKeys {
				keys = append(keys, key)
			}
			sort.Strings(keys)
			key := keys[r.IntN(len(keys))]
			if k != keepOpen {
				switch hostileKeys[key] {
				case 'm':
					v = map[string]any{}
				case 'l':
					v = []any{}
				default:
					continue
				}
				if _, there := m[key]; there {
					continue
				}
			}
			if mentionsGPU(key, m[key]) {
				tags["class:odd-value:*"] = true
			}
			m[key] = v
			tags["hostile"] = true
			continue
		}
		if mentionsGPU(s.key, s.get()) {
			tags["class:odd-value:*"] = true
		}
		if holdsPod(s.get()) {
			// a pod whose containers went: its other members stay
			tags["class:pod-without-containers:*"] = true
		}
		s.set(v)
		tags["hostile"] = true
	}
}

// ------------------------------------------------------------------
// huge counts

// hugeCount blows one list or string of a pod up, towards the API
// server's 3 MiB.
func (g *gen) hugeCount(obj map[string]any) {
	if len(g.pods) == 0 {
		return
	}
	p := g.pods[g.intn(len(g.pods))]
	// log-uniform between 1,000 and the most the dimension takes
	scale := func(max int) int {
		f := float64(max) / 1000
		n := int(1000 * math.Pow(f, g.r.Float64()))
		if n > max {
			n = max
		}
		return n
	}
	g.tag("huge")
	switch g.intn(7) {
	case 0:
		// bare containers
		n := scale(30000)
		var l []any
		for i := 0; i < n; i++ {
			l = append(l, map[string]any{"name": plainName(i), "image": "busybox:1.36"})
		}
		g.setContainers(p, l)
	case 1:
		// host paths of 3 KB
		n := scale(1000)
		var l []any
		for i := 0; i < n; i++ {
			l = append(l, map[string]any{"name": plainName(i), "hostPath": map[string]any{
				"path": "/data/" + plainName(i) + "/" + strings.Repeat("p", 3000)}})
		}
		p.spec["volumes"] = l
	case 2:
		// env entries
		n := scale(40000)
		if c := g.anyContainer(p); c != nil {
			var l []any
			for i := 0; i < n; i++ {
				l = append(l, map[string]any{"name": "V" + plainName(i), "value": "x"})
			}
			c["env"] = l
		}
	case 3:
		// an image of up to 3 MB
		if c := g.anyContainer(p); c != nil {
			c["image"] = "example.com/" + strings.Repeat("i", scale(3000)*1000) + ":1"
		}
	case 4:
		// annotations
		n := scale(40000)
		if p.meta != nil {
			a := map[string]any{}
			for i := 0; i < n; i++ {
				a["example.com/"+plainName(i)] = "v"
			}
			p.meta["annotations"] = a
		}
	case 5:
		// args
		n := scale(100000)
		if c := g.anyContainer(p); c != nil {
			var l []any
			for i := 0; i < n; i++ {
				l = append(l, "--a"+plainName(i))
			}
			c["args"] = l
		}
	default:
		// tolerations
		n := scale(40000)
		if p.place != nil {
			var l []any
			for i := 0; i < n; i++ {
				l = append(l, map[string]any{"key": "k" + plainName(i), "operator": "Exists"})
			}
			p.place["tolerations"] = l
		}
	}
}

// setContainers replaces the pod's containers by l.
func (g *gen) setContainers(p *podB, l []any) {
	switch p.form {
	case formTekton:
		p.spec["steps"] = l
	case formArgo:
		p.spec["containerSet"] = map[string]any{"containers": l}
		delete(p.spec, "container")
		delete(p.spec, "script")
	default:
		p.spec["containers"] = l
	}
}

// holdsPod: v holds a member that holds containers.
func holdsPod(v any) bool {
	found := false
	walkValues(v, "", func(parent, key string, e any) {
		switch key {
		case "containers", "steps", "container", "script", "containerSet", "model":
			found = true
		}
	})
	if m, ok := v.(map[string]any); ok {
		for _, k := range []string{"containers", "steps", "container", "script"} {
			if _, there := m[k]; there {
				found = true
			}
		}
	}
	return found
}
