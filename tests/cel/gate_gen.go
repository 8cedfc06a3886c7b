// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// gate_gen.go - the gate's objects: one from a seed and its number, of a
// kind of gate_shapes.go, its pods at every path its API puts them, each
// pod plain, or with the legacy constructs of the rules
// (docs/rules.md), or with one near-miss of an over-approximation class
// (gate_classes.go); opt-out annotations, deletionTimestamp, controlling
// owners; nulls, wrong types and empty members where the API server
// keeps them; now and then a huge count.
//
// The generator tags what it puts in: "construct:RULE" for a legacy
// construct, "class:NAME:RULE/PART" for a near-miss. The judge reads the
// tags only to name an over-approximation (an entry sent an object it
// then left alone); whether an entry must be sent an object is always
// `gpumend review --entry`'s answer.
package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// gen makes one object.
type gen struct {
	r      *rand.Rand
	cfg    *gateConfig
	shape  *gateShape
	vp     *versionPods
	tags   map[string]bool
	modern bool // the migrated twin: each construct in its current form
	pods   []*podB
	// the object's kind keeps what the client sent (keepOpen), or
	// empty members (keepSchema)
	keep keep
	// where the run's pods are placed (a Tekton run's podTemplate)
	placement map[string]any
	ns        string
	objMeta   map[string]any
}

// podB is one pod being built.
type podB struct {
	form       podForm
	spec       map[string]any
	meta       map[string]any // its metadata, nil when the form has none
	metaOwn    bool           // the metadata is the pod's own (not the object's)
	containers []map[string]any
	compute    bool // Tekton v1: resources are computeResources
	// the mapping nodeSelector, affinity, schedulerName go in
	place map[string]any
	stray bool // at a path no table names (an open kind's unknown member)
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }
func (g *gen) intn(n int) int        { return g.r.IntN(n) }
func (g *gen) pick(list []string) string {
	return list[g.r.IntN(len(list))]
}
func (g *gen) tag(t string) { g.tags[t] = true }

// ------------------------------------------------------------------
// plain pools: no string of a rule's trigger or a condition's text

var plainImages = []string{"busybox:1.36", "python:3.11-slim", "nginx:1.25.3",
	"registry.k8s.io/pause:3.9", "ghcr.io/example/app:v2", "alpine:3.19",
	"quay.io/prometheus/node-exporter:v1.7.0", "example.com/team/trainer:2024.1",
	"docker.io/library/redis:7", "pytorch/torchserve:0.9.0-cpu"}
var plainHostPaths = []string{"/var/log", "/data", "/etc/ssl/certs", "/mnt/disks/ssd0",
	"/var/run/docker.sock", "/sys/fs/cgroup", "/usr/share/zoneinfo", "/opt/tools",
	"/usr/lib/x86_64-linux-gnu", "/dev/shm", "/usr/bin", "/lib/modules"}
var plainMountPaths = []string{"/var/log", "/cache", "/etc/ssl/certs", "/data",
	"/scratch", "/opt/tools", "/host/sys", "/usr/local/lib/app"}
var plainAnnotations = [][2]string{{"app.kubernetes.io/name", "trainer"},
	{"prometheus.io/scrape", "true"}, {"example.com/owner", "team-a"},
	{"kubectl.kubernetes.io/restartedAt", "2024-05-01T10:00:00Z"},
	{"sidecar.istio.io/inject", "false"}}
var plainSelectors = [][2]string{{"kubernetes.io/os", "linux"},
	{"node.kubernetes.io/instance-type", "p3.2xlarge"}, {"nvidia.com/gpu.product", "Tesla-T4"},
	{"cloud.google.com/gke-accelerator", "nvidia-tesla-t4"}, {"topology.kubernetes.io/zone", "eu-west-1a"},
	{"nvidia.com/gpu.present", "true"}}
var plainEnv = [][2]string{{"LOG_LEVEL", "info"}, {"HOME", "/tmp"}, {"PYTHONUNBUFFERED", "1"},
	{"OMP_NUM_THREADS", "4"}, {"CUDA_CACHE_DISABLE", "1"}, {"NCCL_DEBUG", "WARN"}}
var plainCommands = [][]string{{"sh", "-c", "sleep 3600"}, {"python", "train.py"},
	{"/bin/app", "--feature-gates=TopologyManager=true"}, {"torchrun", "--nproc_per_node=8", "train.py"}}

// modern GPU images: a container with one of these and a GPU request is
// what a current GPU pod is
var modernGPUImages = []string{"nvcr.io/nvidia/pytorch:24.01-py3", "nvidia/cuda:12.2.0-base-ubuntu22.04",
	"tensorflow/tensorflow:2.15.0-gpu", "nvcr.io/nvidia/tritonserver:24.01-py3"}

func (g *gen) name(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, g.intn(1000))
}

// ------------------------------------------------------------------
// the object

// object makes the object: its metadata, its kind's members and its
// pods, plain; features are added by the caller.
func (g *gen) object() map[string]any {
	s, vp := g.shape, g.vp
	apiVersion := vp.version
	if s.group != "" {
		apiVersion = s.group + "/" + vp.version
	}
	meta := map[string]any{"name": g.name(strings.ToLower(s.kind))}
	if g.chance(0.1) {
		delete(meta, "name")
		meta["generateName"] = strings.ToLower(s.kind) + "-"
	}
	if s.namespaced {
		// the API server sets it to the request's (and refuses another)
		meta["namespace"] = g.ns
	}
	if g.chance(0.5) {
		meta["labels"] = map[string]any{"app": g.name("app")}
	}
	if g.chance(0.3) {
		a := plainAnnotations[g.intn(len(plainAnnotations))]
		meta["annotations"] = map[string]any{a[0]: a[1]}
	}
	obj := map[string]any{"apiVersion": apiVersion, "kind": s.kind, "metadata": meta}
	g.objMeta = meta
	if vp.placement != "" && g.chance(0.6) {
		g.placement = map[string]any{}
		if g.chance(0.5) {
			g.placement["serviceAccountName"] = "runner"
		}
		setPath(obj, vp.placement, g.placement)
	}
	for i, p := range vp.paths {
		if i > 0 && !g.chance(0.6) {
			continue
		}
		g.podsAt(obj, p)
	}
	if len(g.pods) == 0 && len(vp.paths) > 0 {
		g.podsAt(obj, vp.paths[0])
	}
	g.kindMembers(obj)
	// an open kind's pod at a member no table names: the engine may
	// search for it; the API server keeps it
	if g.keep == keepOpen && g.chance(0.03) {
		spec, _ := obj["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
			obj["spec"] = spec
		}
		holder := map[string]any{}
		spec[g.pick([]string{"extra", "sidecarTemplate", "debug"})] = map[string]any{"template": holder}
		p := g.pod(formSpec, holder, nil)
		p.stray = true
		g.tag("stray-pod")
	}
	return obj
}

// kindMembers: the members of the kind besides its pods.
func (g *gen) kindMembers(obj map[string]any) {
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		return
	}
	switch g.shape.kind {
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Rollout":
		spec["selector"] = map[string]any{"matchLabels": map[string]any{"app": "x"}}
		if g.shape.kind != "DaemonSet" {
			spec["replicas"] = int64(1 + g.intn(3))
		}
	case "CronJob":
		spec["schedule"] = "*/5 * * * *"
	case "Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate":
		spec["entrypoint"] = "main"
	case "RayJob":
		spec["entrypoint"] = "python job.py"
	}
}

// setPath sets obj's member at the dotted path (no '*') to v, making the
// mappings on the way.
func setPath(obj map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	m := obj
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

// podsAt makes the pods at a path of the table: one, or one per element
// of the list (or value of the mapping) at its '*'.
func (g *gen) podsAt(obj map[string]any, path string) {
	star := strings.Index(path, ".*")
	if star < 0 {
		g.podAtPath(obj, path)
		return
	}
	prefix, suffix := path[:star], strings.TrimPrefix(path[star+2:], ".")
	n := 1 + g.intn(3)
	segs := strings.Split(prefix, ".")
	asMap := strings.HasSuffix(segs[len(segs)-1], "ReplicaSpecs")
	if g.keep == keepOpen && g.chance(0.15) {
		asMap = !asMap
	}
	var holder any
	if asMap {
		m := map[string]any{}
		for i := 0; i < n; i++ {
			e := map[string]any{}
			if strings.HasSuffix(segs[len(segs)-1], "ReplicaSpecs") {
				e["replicas"] = int64(1 + g.intn(4))
			}
			m[replicaKeys[i]] = e
			g.elementPod(e, suffix)
		}
		holder = m
	} else {
		var l []any
		for i := 0; i < n; i++ {
			e := map[string]any{"name": fmt.Sprintf("%s-%d", segs[len(segs)-1], i)}
			l = append(l, e)
			g.elementPod(e, suffix)
		}
		holder = l
	}
	setPath(obj, prefix, holder)
}

func (g *gen) elementPod(e map[string]any, suffix string) {
	if suffix == "" {
		// the element is the pod (an Argo template)
		g.podFill(e, nil, true)
		return
	}
	g.podAtPath(e, suffix)
}

// podAtPath makes the pod at a dotted path of `holder`; its metadata is
// the "metadata" beside a path's last "spec" (a pod template's), the
// object's for a Pod, a Revision and every Tekton task spec (Tekton
// copies the run's onto the pod), else none (a KServe component).
func (g *gen) podAtPath(holder map[string]any, path string) {
	spec := map[string]any{}
	setPath(holder, path, spec)
	var meta map[string]any
	own := false
	switch {
	case g.shape.form == formTekton:
		meta = g.objMeta
	case strings.HasSuffix(path, ".spec"):
		parent := strings.TrimSuffix(path, ".spec")
		meta = map[string]any{}
		if g.chance(0.6) {
			meta["labels"] = map[string]any{"app": "x"}
		}
		setPath(holder, parent+".metadata", meta)
		own = true
	case path == "spec" && g.shape.form == formSpec:
		meta = g.objMeta
	}
	g.podFill(spec, meta, own)
}

// podFill fills the pod spec `spec` of the shape's form.
func (g *gen) podFill(spec map[string]any, meta map[string]any, own bool) {
	if g.shape.form == formArgo {
		if g.chance(0.2) {
			// a template of no pod
			spec["steps"] = []any{[]any{map[string]any{"name": "a", "template": "b"}}}
			return
		}
		m := map[string]any{}
		if g.chance(0.5) {
			m["labels"] = map[string]any{"app": "x"}
		}
		spec["metadata"] = m
		meta, own = m, true
	}
	p := g.pod(g.shape.form, spec, meta)
	p.metaOwn = own
}

// pod fills a pod of form `form` into `spec` and returns its builder.
func (g *gen) pod(form podForm, spec map[string]any, meta map[string]any) *podB {
	p := &podB{form: form, spec: spec, meta: meta, place: spec,
		compute: g.vp.computeResources}
	if form == formTekton {
		p.place = g.placement
	}
	g.pods = append(g.pods, p)
	n := 1 + g.intn(2)
	switch form {
	case formSpec:
		spec["containers"] = g.containers(p, "c", n)
		if g.chance(0.2) {
			spec["initContainers"] = []any{p.add(g.container(p, "init"))}
		}
		if g.shape.kind == "Pod" && g.chance(0.03) {
			spec["ephemeralContainers"] = []any{p.add(g.container(p, "debug"))}
		}
	case formArgo:
		switch g.intn(4) {
		case 0, 1:
			spec["container"] = p.add(g.container(p, ""))
		case 2:
			c := g.container(p, "")
			c["source"] = "print(1)"
			spec["script"] = p.add(c)
		default:
			spec["containerSet"] = map[string]any{"containers": g.containers(p, "c", n)}
		}
		if g.chance(0.15) {
			spec["initContainers"] = []any{p.add(g.container(p, "init"))}
		}
		if g.chance(0.15) {
			spec["sidecars"] = []any{p.add(g.container(p, "side"))}
		}
	case formKServe:
		if g.chance(0.5) {
			m := g.container(p, "")
			delete(m, "name")
			m["modelFormat"] = map[string]any{"name": "pytorch"}
			m["storageUri"] = "s3://models/x"
			member := "model"
			if g.chance(0.3) {
				member = g.pick([]string{"tensorflow", "pytorch", "sklearn", "xgboost", "onnx",
					"triton", "pmml", "lightgbm", "paddle", "huggingface"})
			}
			spec[member] = p.add(m)
		} else {
			spec["containers"] = []any{p.add(g.container(p, "kserve-container"))}
		}
	case formTekton:
		spec["steps"] = g.containers(p, "step", n)
		if g.chance(0.2) {
			spec["sidecars"] = []any{p.add(g.container(p, "side"))}
		}
		if g.chance(0.2) {
			st := g.container(p, "")
			delete(st, "name")
			spec["stepTemplate"] = p.add(st)
		}
	}
	if p.place != nil {
		g.podPlacement(p)
	}
	g.podVolumes(p)
	return p
}

// containers: n plain containers of pod p, named PREFIX0...
func (g *gen) containers(p *podB, prefix string, n int) []any {
	var l []any
	for i := 0; i < n; i++ {
		l = append(l, p.add(g.container(p, fmt.Sprintf("%s%d", prefix, i))))
	}
	return l
}

func (p *podB) add(c map[string]any) map[string]any {
	p.containers = append(p.containers, c)
	return c
}

// resKey: where a container's resources are.
func (p *podB) resKey() string {
	if p.compute {
		return "computeResources"
	}
	return "resources"
}

// container: a plain container of pod p (its resources where p's form
// has them).
func (g *gen) container(p *podB, name string) map[string]any {
	c := map[string]any{"image": g.pick(plainImages)}
	if name != "" {
		c["name"] = name
	}
	if g.chance(0.3) {
		c["command"] = toAny(plainCommands[g.intn(len(plainCommands))])
	}
	if g.chance(0.3) {
		e := plainEnv[g.intn(len(plainEnv))]
		c["env"] = []any{map[string]any{"name": e[0], "value": e[1]}}
	}
	if g.chance(0.6) {
		c[p.resKey()] = map[string]any{
			"limits":   map[string]any{"cpu": "1", "memory": "1Gi"},
			"requests": map[string]any{"cpu": "500m"}}
	}
	return c
}

// podPlacement: plain placement members.
func (g *gen) podPlacement(p *podB) {
	if g.chance(0.3) {
		s := plainSelectors[g.intn(len(plainSelectors))]
		sel, _ := p.place["nodeSelector"].(map[string]any)
		if sel == nil {
			sel = map[string]any{}
			p.place["nodeSelector"] = sel
		}
		sel[s[0]] = s[1]
	}
	if g.chance(0.2) {
		p.place["tolerations"] = []any{map[string]any{"key": "nvidia.com/gpu",
			"operator": "Exists", "effect": "NoSchedule"}}
	}
	if g.chance(0.15) {
		p.place["affinity"] = nodeAffinity("kubernetes.io/arch", "In", "amd64")
	}
	if g.chance(0.1) {
		p.place["schedulerName"] = g.pick([]string{"default-scheduler", "volcano"})
	}
	if g.chance(0.1) {
		p.place["priorityClassName"] = "high-priority"
	}
}

func nodeAffinity(key, op string, values ...string) map[string]any {
	return map[string]any{"nodeAffinity": map[string]any{
		"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
			"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{
				map[string]any{"key": key, "operator": op, "values": toAny(values)}}}}}}}
}

// podVolumes: plain volumes, mounted by a container.
func (g *gen) podVolumes(p *podB) {
	if len(p.containers) == 0 || !g.chance(0.4) {
		return
	}
	var v map[string]any
	name := g.name("vol")
	switch g.intn(3) {
	case 0:
		v = map[string]any{"name": name, "emptyDir": map[string]any{}}
	case 1:
		v = map[string]any{"name": name, "configMap": map[string]any{"name": "cfg"}}
	default:
		v = map[string]any{"name": name, "hostPath": map[string]any{"path": g.pick(plainHostPaths)}}
	}
	g.addVolume(p, v, p.containers[g.intn(len(p.containers))], g.pick(plainMountPaths))
}

// addVolume adds the volume to the pod and its mount to container c.
func (g *gen) addVolume(p *podB, v map[string]any, c map[string]any, mountPath string) {
	l, _ := p.spec["volumes"].([]any)
	p.spec["volumes"] = append(l, v)
	if c == nil {
		return
	}
	ml, _ := c["volumeMounts"].([]any)
	c["volumeMounts"] = append(ml, map[string]any{"name": v["name"], "mountPath": mountPath})
}

// annotate sets an annotation of the pod's metadata (making it); false
// when the pod has none.
func (p *podB) annotate(key, value string) bool {
	if p.meta == nil {
		return false
	}
	a, _ := p.meta["annotations"].(map[string]any)
	if a == nil {
		a = map[string]any{}
		p.meta["annotations"] = a
	}
	a[key] = value
	return true
}

// setResource sets a container's limits (and, some times, requests) key.
func (p *podB) setResource(c map[string]any, section, key string, value any) {
	res, _ := c[p.resKey()].(map[string]any)
	if res == nil {
		res = map[string]any{}
		c[p.resKey()] = res
	}
	s, _ := res[section].(map[string]any)
	if s == nil {
		s = map[string]any{}
		res[section] = s
	}
	s[key] = value
}

func (p *podB) setEnv(c map[string]any, name, value string) {
	l, _ := c["env"].([]any)
	c["env"] = append(l, map[string]any{"name": name, "value": value})
}

// selector sets a nodeSelector member of the pod's placement; false when
// it has none.
func (p *podB) selector(key, value any) bool {
	if p.place == nil {
		return false
	}
	sel, _ := p.place["nodeSelector"].(map[string]any)
	if sel == nil {
		sel = map[string]any{}
		p.place["nodeSelector"] = sel
	}
	sel[fmt.Sprint(key)] = value
	return true
}
