// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// gate_features.go - what the gate puts into its objects' pods: the
// legacy constructs of each rule the webhook runs (docs/rules.md), in
// their legacy form or, in an UPDATE's migrated twin, their current one;
// and the near-misses of the over-approximation classes.
//
// Each function draws all its random numbers before it looks at
// g.modern, so that an object and its twin, made from one seed, differ in
// the constructs alone.
package main

import (
	"fmt"
	"strings"
)

// construct puts the legacy construct of `rule` into a pod of the
// object; false when no pod of the object can hold it.
func (g *gen) construct(rule string) bool {
	for try := 0; try < 4; try++ {
		p := g.pods[g.intn(len(g.pods))]
		if g.constructIn(rule, p) {
			g.tag("construct:" + rule)
			return true
		}
	}
	return false
}

// constructs: the function that puts each rule's construct into a pod.
var constructFns = map[string]func(*gen, *podB) bool{
	"legacy-gpu-resource":        (*gen).cLegacyResource,
	"legacy-gpu-node-label":      (*gen).cLegacyLabel,
	"legacy-affinity-annotation": (*gen).cAffinityAnnotation,
	"critical-pod-annotation":    (*gen).cCriticalPod,
	"gpu-model-affinity":         (*gen).cModels,
	"gpu-sharing":                (*gen).cSharing,
	"obsolete-cuda-hostpath":     (*gen).cHostPath,
	"gpu-visibility":             (*gen).cVisibility,
	"removed-gpu-feature-gate":   (*gen).cFeatureGate,
	"obsolete-gpu-component":     (*gen).cComponent,
}

func (g *gen) constructIn(rule string, p *podB) bool {
	return constructFns[rule](g, p)
}

// anyContainer: one of the pod's containers, nil when it has none.
func (g *gen) anyContainer(p *podB) map[string]any {
	if len(p.containers) == 0 {
		return nil
	}
	return p.containers[g.intn(len(p.containers))]
}

// requestGPU makes container c ask for a current GPU.
func (p *podB) requestGPU(c map[string]any, count any) {
	p.setResource(c, "limits", "nvidia.com/gpu", count)
}

func (g *gen) cLegacyResource(p *podB) bool {
	c := g.anyContainer(p)
	name := g.pick([]string{"alpha.kubernetes.io/nvidia-gpu", "alpha.kubernetes.io/nvidia-gpu", "aliyun.com/gpu"})
	values := []any{int64(1), "1", int64(2), "4", int64(0), "0.5", int64(-1), "2", 1.0}
	v := values[g.intn(len(values))]
	where := g.intn(5)
	if c == nil {
		return false
	}
	if g.modern {
		name = "nvidia.com/gpu"
	}
	if v == int64(0) {
		// a count of 0 asks for no GPU; a condition sees the name
		g.tag("class:zero-gpu-request:gpu-model-affinity/core")
		g.tag("class:zero-gpu-request:obsolete-cuda-hostpath/core")
	}
	switch where {
	case 0:
		p.setResource(c, "requests", name, v)
	case 1:
		p.setResource(c, "limits", name, v)
		p.setResource(c, "requests", name, v)
	default:
		p.setResource(c, "limits", name, v)
	}
	return true
}

var legacyModels = []string{"Tesla K80", "Tesla-P100-PCIE-16GB", "A100-SXM4-40GB", "Tesla V100-SXM2-16GB"}

func (g *gen) cLegacyLabel(p *podB) bool {
	model := g.pick(legacyModels)
	where := g.intn(3)
	if p.place == nil {
		return false
	}
	key := "alpha.kubernetes.io/nvidia-gpu-name"
	if g.modern {
		key, model = "nvidia.com/gpu.product", strings.ReplaceAll(model, " ", "-")
	}
	switch where {
	case 0:
		p.selector(key, model)
	case 1:
		p.place["affinity"] = nodeAffinity(key, "In", model)
	default:
		p.place["affinity"] = map[string]any{"nodeAffinity": map[string]any{
			"preferredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{
				"weight": int64(10), "preference": map[string]any{"matchExpressions": []any{
					map[string]any{"key": key, "operator": "In", "values": []any{model}}}}}}}}
	}
	return true
}

func (g *gen) cAffinityAnnotation(p *podB) bool {
	model := g.pick(legacyModels)
	kind := g.intn(4)
	if p.meta == nil || p.place == nil {
		return false
	}
	key := "alpha.kubernetes.io/nvidia-gpu-name"
	if kind == 1 {
		key = "kubernetes.io/hostname"
	}
	aff := nodeAffinity(key, "In", model)
	if g.modern {
		aff = nodeAffinity(strings.Replace(key, "alpha.kubernetes.io/nvidia-gpu-name",
			"nvidia.com/gpu.product", 1), "In", strings.ReplaceAll(model, " ", "-"))
		p.place["affinity"] = aff
		return true
	}
	text := jsonText(aff)
	if kind == 3 {
		text = "{not json"
	}
	p.annotate("scheduler.alpha.kubernetes.io/affinity", text)
	return true
}

func (g *gen) cCriticalPod(p *podB) bool {
	v := g.pick([]string{"", "true"})
	class := g.chance(0.3)
	if p.meta == nil {
		return false
	}
	if g.modern {
		if p.place != nil {
			p.place["priorityClassName"] = "system-cluster-critical"
		}
		return true
	}
	p.annotate("scheduler.alpha.kubernetes.io/critical-pod", v)
	if class && p.place != nil {
		p.place["priorityClassName"] = "high-priority"
	}
	return true
}

func (g *gen) cModels(p *podB) bool {
	c := g.anyContainer(p)
	models := g.pick([]string{"Tesla K80", "Tesla K80, A100-SXM4-80GB", "Tesla-T4", "H100 80GB HBM3"})
	if c == nil || p.meta == nil {
		return false
	}
	p.requestGPU(c, int64(1))
	p.annotate("gpumend.io/gpu-models", models)
	if g.modern && p.place != nil {
		var vals []string
		for _, m := range strings.Split(models, ",") {
			vals = append(vals, strings.ReplaceAll(strings.TrimSpace(m), " ", "-"))
		}
		p.place["affinity"] = nodeAffinity("nvidia.com/gpu.product", "In", vals...)
	}
	return true
}

var sharingResources = []struct {
	name  string
	value any
}{
	{"aliyun.com/gpu-mem", int64(2)}, {"aliyun.com/gpu-mem", "8138"}, {"aliyun.com/gpu-mem", int64(300)},
	{"rancher.io/gpu-mem", int64(4)}, {"volcano.sh/gpu-memory", int64(1024)},
	{"volcano.sh/gpu-number", int64(1)}, {"aliyun.com/gpu-count", int64(1)},
	{"nvidia.com/gpu.shared", int64(1)}, {"tencent.com/vcuda-memory", int64(20)},
	{"tencent.com/vcuda-core", int64(50)}, {"aliyun.com/gpu-core.percentage", int64(30)},
	{"aliyun.com/gpu-mem", "0.5"}, {"aliyun.com/gpu-mem", int64(100000)},
}

func (g *gen) cSharing(p *podB) bool {
	c := g.anyContainer(p)
	kind := g.intn(7)
	res := sharingResources[g.intn(len(sharingResources))]
	sel := g.intn(6)
	sched := g.pick([]string{"rancher-gpushare-scheduler", "gpushare-scheduler"})
	stale := g.pick([]string{"ALIYUN_COM_GPU_MEM_IDX", "ALIYUN_COM_GPU_MEM_POD", "ALIYUN_COM_GPU_MEM_ASSUME_TIME"})
	envVar := g.pick([]string{"ALIYUN_COM_GPU_MEM_CONTAINER", "ALIYUN_COM_GPU_MEM_DEV"})
	if c == nil {
		return false
	}
	switch kind {
	case 0, 1, 2:
		if g.modern {
			p.requestGPU(c, int64(1))
			return true
		}
		p.setResource(c, "limits", res.name, res.value)
		if kind == 2 {
			p.setResource(c, "requests", res.name, res.value)
		}
	case 3:
		if p.place == nil {
			return false
		}
		if g.modern {
			p.place["affinity"] = nodeAffinity("nvidia.com/gpu.sharing-strategy", "In", "time-slicing")
			return true
		}
		var key, value any = "gpushare", "true"
		switch sel {
		case 1:
			key, value = "gpu.cattle.io/type", "share"
		case 2:
			value = "True"
		case 3:
			if g.keep == keepOpen {
				value = true
			}
		case 4:
			value = "false"
		}
		p.selector(key, value)
	case 4:
		if p.place == nil {
			return false
		}
		if !g.modern {
			p.place["schedulerName"] = sched
		}
	case 5:
		if p.meta == nil {
			return false
		}
		if !g.modern {
			p.annotate(stale, "0")
		}
	default:
		if !g.modern {
			if sel%2 == 0 {
				p.setEnv(c, "GPU_MEM", "$("+envVar+")")
			} else {
				c["command"] = []any{"sh", "-c", "echo $" + envVar}
			}
		}
	}
	return true
}

var obsoletePaths = []string{"/usr/lib/nvidia-384", "/usr/local/nvidia", "/usr/local/nvidia/lib64",
	"/var/lib/nvidia-docker/volumes/nvidia_driver/384.59", "/usr/lib64/nvidia",
	"/opt/nvidia-driver/current", "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
	"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "//usr/local/nvidia", "/usr/local//nvidia",
	"/usr/local/./nvidia", "/usr/local/nvidia/", "/usr/share/../local/nvidia", "/usr/lib//nvidia-390",
	"/var/lib/nvidia-docker//volumes/nvidia_driver/375.26", "/../usr/local/nvidia"}

func (g *gen) cHostPath(p *podB) bool {
	c := g.anyContainer(p)
	kind := g.intn(5)
	path := g.pick(obsoletePaths)
	mount := g.pick([]string{"/usr/local/nvidia", "/usr/lib/nvidia", "/driver", "/usr/local/nvidia/lib64"})
	name := g.name("nv")
	if c == nil {
		return false
	}
	switch kind {
	case 0, 1, 2:
		if !g.modern {
			g.addVolume(p, map[string]any{"name": name, "hostPath": map[string]any{"path": path}}, c, mount)
		}
	case 3:
		// a platform's driver directory, where the driver goes, in a
		// container that asks for a GPU
		p.requestGPU(c, int64(1))
		if !g.modern {
			g.addVolume(p, map[string]any{"name": name, "hostPath": map[string]any{
				"path": "/home/kubernetes/bin/nvidia"}}, c, "/usr/local/nvidia")
		}
	default:
		// another host path where the driver goes: only warned about
		g.addVolume(p, map[string]any{"name": name, "hostPath": map[string]any{
			"path": g.pick([]string{"/usr/bin", "/opt/tools", "/usr/lib64"})}}, c, "/usr/local/nvidia/bin")
	}
	return true
}

func (g *gen) cVisibility(p *podB) bool {
	c := g.anyContainer(p)
	image := g.pick(modernGPUImages)
	env := g.chance(0.4)
	value := g.pick([]string{"0", "0,1", "GPU-8a2c6e5a-5d1a-4f0e-9b8e-2d6f1b3c4d5e"})
	if c == nil || requestsGPU(c) {
		return false
	}
	if env {
		p.setEnv(c, "NVIDIA_VISIBLE_DEVICES", value)
	} else {
		c["image"] = image
	}
	return true
}

func (g *gen) cFeatureGate(p *podB) bool {
	c := g.anyContainer(p)
	gate := g.pick([]string{"Accelerators", "DevicePlugins"})
	form := g.intn(3)
	if c == nil {
		return false
	}
	switch form {
	case 0:
		c["command"] = []any{"kubelet", "--feature-gates=" + gate + "=true"}
	case 1:
		c["args"] = []any{"--v=2", "--feature-gates=Foo=false," + gate + "=true"}
	default:
		c["command"] = []any{"sh", "-c", "exec kube-apiserver --feature-gates=" + gate + "=true"}
	}
	return true
}

var obsoleteComponents = []string{"nvidia/k8s-device-plugin:1.9", "registry.example.com/nvidia/k8s-device-plugin:1.11",
	"registry.cn-hangzhou.aliyuncs.com/acs/k8s-gpushare-plugin:v2-1.11-aff8a23",
	"volcanosh/volcano-device-plugin:v1.0.0", "tkestack/gpu-manager:1.1.5",
	"nvidia/nvidia-docker-plugin:1.0", "registry.cn-hangzhou.aliyuncs.com/acs/k8s-gpushare-schd-extender:1.11"}

func (g *gen) cComponent(p *podB) bool {
	c := g.anyContainer(p)
	image := g.pick(obsoleteComponents)
	if c == nil {
		return false
	}
	c["image"] = image
	return true
}

// requestsGPU: whether container c asks for a GPU by a name the gate
// writes (current, legacy or shared).
func requestsGPU(c map[string]any) bool {
	for _, key := range []string{"resources", "computeResources"} {
		res, _ := c[key].(map[string]any)
		for _, section := range []string{"limits", "requests"} {
			s, _ := res[section].(map[string]any)
			for k := range s {
				if strings.Contains(k, "gpu") || strings.HasPrefix(k, "nvidia.com/") ||
					strings.Contains(k, "vcuda") {
					return true
				}
			}
		}
	}
	return false
}

// ------------------------------------------------------------------
// near-misses: what holds a construct's text but is no construct

// nearMisses: each class, with the rule parts its over-approximation
// is of (gate_classes.go lists the classes).
var nearMisses = []string{"path-text-elsewhere", "path-normalises-away", "path-relative",
	"path-oversize", "mount-text-elsewhere", "image-text-elsewhere", "image-digest", "image-oversize",
	"visibility-gpu-requested", "visibility-stack-image", "visibility-env-decided",
	"vendor-dir-without-gpu", "mount-of-another-volume", "models-already-constrained",
	"gate-text-elsewhere", "string-oversize"}

// nearMiss puts the near-miss of `class` into a pod; false when no pod
// of the object can hold it.
func (g *gen) nearMiss(class string) bool {
	for try := 0; try < 4; try++ {
		p := g.pods[g.intn(len(g.pods))]
		if rules := g.nearMissIn(class, p); rules != "" {
			for _, r := range strings.Split(rules, " ") {
				g.tag("class:" + class + ":" + r)
			}
			return true
		}
	}
	return false
}

// nearMissIn returns the rule parts (RULE/PART, blank-separated) whose
// conditions the near-miss may send the object for; "" when the pod
// cannot hold it.
func (g *gen) nearMissIn(class string, p *podB) string {
	c := g.anyContainer(p)
	name := g.name("v")
	if c == nil {
		return ""
	}
	vol := func(path string) map[string]any {
		return map[string]any{"name": name, "hostPath": map[string]any{"path": path}}
	}
	switch class {
	case "path-text-elsewhere":
		g.addVolume(p, vol(g.pick([]string{"/srv/usr/local/nvidia-data", "/data/mylibcuda.so",
			"/opt/nvidia-drivers-backup", "/usr/lib/nvidia-tools", "/usr/lib64/nvidia-settings",
			"/var/lib/nvidia-docker/volumes/other/1"})), c, g.pick(plainMountPaths))
		return "obsolete-cuda-hostpath/core"
	case "path-normalises-away":
		g.addVolume(p, vol(g.pick([]string{"/usr/local/nvidia/..", "/usr/lib/nvidia-384/../../bin",
			"/var/lib/nvidia-docker/volumes/nvidia_driver/../../../../log", "/usr/lib64/nvidia/../../share"})),
			c, g.pick(plainMountPaths))
		return "obsolete-cuda-hostpath/core"
	case "path-relative":
		g.addVolume(p, vol(g.pick([]string{"usr/local/nvidia", "usr/lib/nvidia-384",
			"var/lib/nvidia-docker/volumes/nvidia_driver/384.59", "./usr/local/nvidia"})),
			c, g.pick(plainMountPaths))
		return "obsolete-cuda-hostpath/core"
	case "path-oversize":
		g.addVolume(p, vol("/data/"+strings.Repeat("d", 4100)), c, g.pick(plainMountPaths))
		return "obsolete-cuda-hostpath/core obsolete-cuda-hostpath/extra"
	case "mount-text-elsewhere":
		g.addVolume(p, vol(g.pick(plainHostPaths)), c,
			g.pick([]string{"/usr/local/nvidia-tools", "/srv/usr/local/nvidia", "/usr/local/lib/nvidia"}))
		return "obsolete-cuda-hostpath/extra"
	case "image-text-elsewhere":
		if requestsGPU(c) {
			return ""
		}
		c["image"] = g.pick([]string{"nvidia/cudagl:11.4.2-base", "mirror.local/nvidia/cudax:1",
			"example.com/app-gpu-tools:1.0", "example.com/tools:1.0-gpux"})
		return "gpu-visibility/core obsolete-gpu-component/core"
	case "image-digest":
		if requestsGPU(c) {
			return ""
		}
		c["image"] = "nvidia/cuda@sha256:" + strings.Repeat("4f", 32)
		return "gpu-visibility/core"
	case "image-oversize":
		c["image"] = "example.com/" + strings.Repeat("a", 300) + ":1"
		return "gpu-visibility/core obsolete-gpu-component/core"
	case "visibility-gpu-requested":
		c["image"] = g.pick(modernGPUImages)
		p.requestGPU(c, int64(1+g.intn(2)))
		return "gpu-visibility/core"
	case "visibility-stack-image":
		if requestsGPU(c) {
			return ""
		}
		c["image"] = g.pick([]string{"nvcr.io/nvidia/k8s-device-plugin:v0.14.5",
			"nvcr.io/nvidia/k8s/dcgm-exporter:3.3.0-3.2.0-ubuntu22.04", "nvcr.io/nvidia/gpu-operator:v23.9.1"})
		return "gpu-visibility/core"
	case "visibility-env-decided":
		if requestsGPU(c) {
			return ""
		}
		p.setEnv(c, "NVIDIA_VISIBLE_DEVICES", g.pick([]string{"all", "void", "none"}))
		return "gpu-visibility/core"
	case "vendor-dir-without-gpu":
		if requestsGPU(c) {
			return ""
		}
		g.addVolume(p, vol("/home/kubernetes/bin/nvidia"), c, "/usr/local/nvidia")
		return "obsolete-cuda-hostpath/extra obsolete-cuda-hostpath/core"
	case "mount-of-another-volume":
		g.addVolume(p, vol(g.pick(plainHostPaths)), nil, "")
		g.addVolume(p, map[string]any{"name": name + "-e", "emptyDir": map[string]any{}}, c, "/usr/local/nvidia")
		return "obsolete-cuda-hostpath/extra obsolete-cuda-hostpath/core"
	case "models-already-constrained":
		if p.meta == nil || p.place == nil {
			return ""
		}
		p.requestGPU(c, int64(1))
		p.annotate("gpumend.io/gpu-models", "Tesla-T4")
		p.place["affinity"] = nodeAffinity("nvidia.com/gpu.product", "In", "Tesla-T4")
		return "gpu-model-affinity/core"
	case "gate-text-elsewhere":
		c["args"] = toAny([]string{g.pick([]string{"--feature-gates=AcceleratorsX=true",
			"--enable=DevicePlugins", "Accelerators"})})
		return "removed-gpu-feature-gate/core"
	case "string-oversize":
		p.setEnv(c, "BLOB", strings.Repeat("b", 4200))
		return "gpu-sharing/extra removed-gpu-feature-gate/core"
	}
	return ""
}

// ------------------------------------------------------------------
// opt-outs, deletion, owners

var skipValues = []string{"true", "true", "false", "True", "yes", ""}

// optOut writes the opt-out annotations some objects carry: on the
// object's metadata, or on a pod template's own.
func (g *gen) optOut(meta map[string]any) {
	kind := g.intn(100)
	rules := g.skipRules()
	value := g.pick(skipValues)
	var p *podB
	if len(g.pods) > 0 {
		p = g.pods[g.intn(len(g.pods))]
	}
	target := func(key, v string) {
		a, _ := meta["annotations"].(map[string]any)
		if a == nil {
			a = map[string]any{}
			meta["annotations"] = a
		}
		a[key] = v
	}
	switch {
	case kind < 6:
		target("gpumend.io/skip", value)
		if value == "true" {
			// the engine skips the rules not in deny mode; the legacy
			// entry, with a rule in deny mode, reads no skip
			g.tag("class:skip-with-deny-rule:*")
		}
	case kind < 16:
		target("gpumend.io/skip-rules", rules)
	case kind < 19:
		if p == nil || !p.metaOwn || p.meta == nil {
			return
		}
		if kind == 16 {
			p.annotate("gpumend.io/skip", "true")
		} else {
			p.annotate("gpumend.io/skip-rules", rules)
		}
		g.tag("class:skip-on-template:*")
	case kind < 20:
		target("gpumend.io/skip-rules", rules+","+strings.Repeat("x", 4100))
		g.tag("class:skip-rules-oversize:*")
	}
}

// skipRules: a gpumend.io/skip-rules value, spelt as users spell it.
func (g *gen) skipRules() string {
	n := 1 + g.intn(4)
	var names []string
	for i := 0; i < n; i++ {
		if g.chance(0.1) {
			names = append(names, "no-such-rule")
			continue
		}
		names = append(names, webhookRules[g.intn(len(webhookRules))].name)
	}
	sep := g.pick([]string{",", ", ", " , ", ",\t"})
	return strings.Join(names, sep)
}

// lifecycle: deletionTimestamp and owners.
func (g *gen) lifecycle(meta map[string]any) {
	if g.chance(0.05) {
		meta["deletionTimestamp"] = "2024-05-01T10:00:00Z"
		g.tag("deleting")
	}
	switch k := g.intn(100); {
	case k < 4:
		meta["ownerReferences"] = []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet",
			"name": "rs-1", "uid": "6c1a", "controller": true}}
		g.tag("controlled")
	case k < 6:
		meta["ownerReferences"] = []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"name": "cm", "uid": "6c1b", "controller": false}}
	}
}

// plainName: a fixed-width name, for huge counts.
func plainName(i int) string { return fmt.Sprintf("n%06d", i) }
