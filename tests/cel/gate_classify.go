// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// gate_classify.go - names the near-misses an object holds whoever put
// them there (the generator on purpose, or a plain pool by chance): the
// strings that hold the text the conditions test for a rule's patterns
// (a prefix, the runs of a path's segments) but match no pattern as the
// engine matches it (fnmatch(3) on the path the kubelet cleans), or are
// longer than the conditions read; and the pods that hold no container.
// The patterns are the default config's (the gate's configs keep them).
package main

import (
	"path"
	"strings"
)

var (
	obsoleteHostPatterns = []string{"/usr/lib/nvidia-[0-9]*", "/usr/local/nvidia", "/usr/local/nvidia/*",
		"/var/lib/nvidia-docker/volumes/nvidia_driver/*", "/usr/lib64/nvidia", "/usr/lib64/nvidia/*",
		"/opt/nvidia-driver", "/opt/nvidia-driver/*", "*/libcuda.so*", "*/libnvidia-*.so*"}
	vendorDirPatterns  = []string{"/home/kubernetes/bin/nvidia", "/home/kubernetes/bin/nvidia/*"}
	mountPatterns      = []string{"/usr/local/nvidia", "/usr/local/nvidia/*"}
	visibilityPatterns = []string{"nvidia/cuda", "nvidia/cuda:*", "*/nvidia/cuda", "*/nvidia/cuda:*",
		"nvcr.io/*", "*:*-gpu", "*:*-gpu-*"}
	componentPatterns = []string{"nvidia/k8s-device-plugin:1.*", "*/nvidia/k8s-device-plugin:1.*",
		"*device-plugin-recover*", "*k8s-gpushare-plugin*", "*gpushare-device-plugin*",
		"*gpushare-schd-extender*", "*gpushare-scheduler-extender*", "*schd-extender-deployer*",
		"*device-plugin-evict*", "*scheduler-extender-configtool*", "*nvidia-docker-plugin*",
		"*volcano-device-plugin*", "*tkestack/gpu-manager*", "*gputopology-schd-extender*",
		"*gputopology-scheduler-extender*"}
)

// fnmatch: fnmatch(3) with flags 0: '*' matches any run, '/' included.
func fnmatch(pattern, s string) bool {
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for i := 0; i <= len(s); i++ {
				if fnmatch(pattern[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			pattern, s = pattern[1:], s[1:]
		case '[':
			end := strings.IndexByte(pattern[1:], ']')
			if end < 0 || s == "" {
				return false
			}
			set, neg := pattern[1:end+1], false
			if strings.HasPrefix(set, "!") {
				set, neg = set[1:], true
			}
			in := false
			for i := 0; i < len(set); i++ {
				if i+2 < len(set) && set[i+1] == '-' {
					in = in || (s[0] >= set[i] && s[0] <= set[i+2])
					i += 2
				} else {
					in = in || s[0] == set[i]
				}
			}
			if in == neg {
				return false
			}
			pattern, s = pattern[end+2:], s[1:]
		default:
			if s == "" || s[0] != pattern[0] {
				return false
			}
			pattern, s = pattern[1:], s[1:]
		}
	}
	return s == ""
}

func anyMatch(patterns []string, s string) bool {
	for _, p := range patterns {
		if fnmatch(p, s) {
			return true
		}
	}
	return false
}

// segmentRuns: the fixed runs of a pattern within its '/'-separated
// segments (what a path condition tests with contains()).
func segmentRuns(pattern string) []string {
	var runs []string
	cur := ""
	flush := func() {
		if cur != "" {
			runs = append(runs, cur)
		}
		cur = ""
	}
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*', '?', '/':
			flush()
		case '[':
			flush()
			if end := strings.IndexByte(pattern[i:], ']'); end > 0 {
				i += end
			}
		default:
			cur += string(c)
		}
	}
	flush()
	return runs
}

// holdsRuns: the path holds every run of some pattern.
func holdsRuns(patterns []string, s string) bool {
	for _, p := range patterns {
		all := true
		for _, r := range segmentRuns(p) {
			all = all && strings.Contains(s, r)
		}
		if all {
			return true
		}
	}
	return false
}

// imageText: the image holds the text an image condition tests for some
// pattern: its fixed prefix, else its longest run.
func imageText(patterns []string, image string) bool {
	for _, p := range patterns {
		fixed := strings.IndexAny(p, "*?[\\")
		if fixed < 0 {
			fixed = len(p)
		}
		if fixed > 0 {
			if strings.HasPrefix(image, p[:fixed]) {
				return true
			}
			continue
		}
		longest := ""
		for _, part := range strings.FieldsFunc(p, func(r rune) bool { return strings.ContainsRune("*?[]", r) }) {
			if len(part) > len(longest) {
				longest = part
			}
		}
		if strings.Contains(image, longest) {
			return true
		}
	}
	return false
}

// cleaned: the path as the kubelet cleans it.
func cleaned(p string) string { return path.Clean(p) }

// classify tags the near-misses the object holds.
func classify(obj map[string]any, tags map[string]bool) {
	walkValues(obj, "", func(parent, key string, v any) {
		s, ok := v.(string)
		if !ok {
			return
		}
		switch {
		case key == "path" && parent == "hostPath":
			classifyHostPath(s, tags)
		case key == "mountPath":
			if len(s) > 4096 {
				tags["class:path-oversize:obsolete-cuda-hostpath/extra"] = true
			} else if holdsRuns(mountPatterns, s) && !anyMatch(mountPatterns, cleaned(s)) {
				tags["class:mount-text-elsewhere:obsolete-cuda-hostpath/extra"] = true
			}
		case key == "image":
			classifyImage(s, tags)
		case (parent == "command" || parent == "args" || key == "value") && len(s) > 4096:
			tags["class:string-oversize:gpu-sharing/extra"] = true
			tags["class:string-oversize:removed-gpu-feature-gate/core"] = true
		}
	})
}

// classifyHostPath: a hostPath.path (any mapping's "path" member is
// looked at: a condition cannot tell a hostPath's from another's).
func classifyHostPath(s string, tags map[string]bool) {
	all := append(append([]string{}, obsoleteHostPatterns...), vendorDirPatterns...)
	switch {
	case len(s) > 4096:
		tags["class:path-oversize:obsolete-cuda-hostpath/core"] = true
	case !holdsRuns(all, s) || anyMatch(all, cleaned(s)):
	case !strings.HasPrefix(s, "/"):
		tags["class:path-relative:obsolete-cuda-hostpath/core"] = true
	case cleaned(s) != s && !holdsRuns(all, cleaned(s)):
		tags["class:path-normalises-away:obsolete-cuda-hostpath/core"] = true
	default:
		tags["class:path-text-elsewhere:obsolete-cuda-hostpath/core"] = true
	}
}

func classifyImage(s string, tags map[string]bool) {
	if len(s) > 256 {
		tags["class:image-oversize:gpu-visibility/core"] = true
		tags["class:image-oversize:obsolete-gpu-component/core"] = true
		return
	}
	for _, set := range []struct {
		patterns []string
		rule     string
	}{{visibilityPatterns, "gpu-visibility/core"}, {componentPatterns, "obsolete-gpu-component/core"}} {
		if !imageText(set.patterns, s) || anyMatch(set.patterns, s) {
			continue
		}
		if strings.Contains(s, "@") {
			tags["class:image-digest:"+set.rule] = true
		} else {
			tags["class:image-text-elsewhere:"+set.rule] = true
		}
	}
}

// walkValues calls fn for every member of every mapping and every element
// of every list, with the key of the member holding it (parent) and its
// own key ("" for an element).
func walkValues(v any, parent string, fn func(parent, key string, v any)) {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			fn(parent, k, t[k])
			walkValues(t[k], k, fn)
		}
	case []any:
		for _, e := range t {
			fn(parent, "", e)
			walkValues(e, parent, fn)
		}
	}
}

// podsWithoutContainers tags the pods of the object that hold no
// container mapping.
func (g *gen) podsWithoutContainers() {
	for _, p := range g.pods {
		if p.stray {
			continue
		}
		has := false
		for _, m := range containerMembers(p.form) {
			v := p.spec[m]
			switch t := v.(type) {
			case []any:
				for _, e := range t {
					_, ok := e.(map[string]any)
					has = has || ok
				}
			case map[string]any:
				if m == "containerSet" {
					for _, e := range asList(t["containers"]) {
						_, ok := e.(map[string]any)
						has = has || ok
					}
				} else {
					has = true
				}
			}
		}
		if !has {
			g.tag("class:pod-without-containers:*")
		}
	}
}

// containerMembers: the members of a pod of the form that hold its
// containers.
func containerMembers(f podForm) []string {
	switch f {
	case formArgo:
		return []string{"container", "script", "containerSet", "initContainers", "sidecars"}
	case formKServe:
		return []string{"containers", "initContainers", "model", "tensorflow", "pytorch", "sklearn",
			"xgboost", "onnx", "triton", "pmml", "lightgbm", "paddle", "huggingface"}
	case formTekton:
		return []string{"steps", "sidecars", "stepTemplate"}
	}
	// a PodSpec is a mapping that holds a containers list
	return []string{"containers"}
}

var stackPatterns = []string{"*nvidia/k8s-device-plugin*", "*nvidia/gpu-feature-discovery*", "*/dcgm-exporter*",
	"*nvidia/k8s/container-toolkit*", "*nvidia/gpu-operator*", "nvcr.io/nvidia/cloud-native/*",
	"nvcr.io/nvidia/driver:*", "*nvidia/k8s-dra-driver*", "*nvidia/kubevirt-gpu-device-plugin*",
	"*nvidia-gpu-device-plugin*", "*nvidia-driver-installer*", "*cos-nvidia-installer*",
	"*cos-gpu-installer*", "*nvidia-partition-gpu*", "*projecthami/hami*", "*/dra-driver-nvidia/*"}

// podAnnotationKeys: the pod annotations rules read.
var podAnnotationKeys = []string{"scheduler.alpha.kubernetes.io/critical-pod",
	"scheduler.alpha.kubernetes.io/affinity", "gpumend.io/gpu-models"}

// classifyPods tags what the pods' containers hold that a condition
// reads as gpu-visibility's, a driver volume's or a model policy's, and
// the engine does not: a GPU image or NVIDIA_VISIBLE_DEVICES in a
// container that asks for a GPU (itself, or the template it starts
// from), of the GPU stack, or that decides what it sees; a driver
// hostPath in a pod of a GPU stack or legacy component; GPU models asked
// for by a pod that constrains the model already; the pod annotations of
// a Tekton kind whose pods have no metadata the engine reads.
func (g *gen) classifyPods(obj map[string]any) {
	for _, p := range g.pods {
		base := false
		if st, ok := p.spec["stepTemplate"].(map[string]any); ok {
			base = requestsGPU(st)
		}
		component := false
		for _, c := range p.containers {
			image, _ := c["image"].(string)
			visible, decided := false, false
			for _, e := range asList(c["env"]) {
				m, _ := e.(map[string]any)
				if m["name"] == "NVIDIA_VISIBLE_DEVICES" {
					visible = true
					v, ok := m["value"].(string)
					decided = !ok || v == "all" || v == "void" || v == "none"
				}
			}
			if anyMatch(visibilityPatterns, image) || imageText(visibilityPatterns, image) {
				visible = true
			}
			stack := anyMatch(stackPatterns, image)
			component = component || stack || anyMatch(componentPatterns, image)
			if !visible {
				continue
			}
			switch {
			case requestsGPU(c) || base || hasClaims(c):
				g.tag("class:visibility-gpu-requested:gpu-visibility/core")
			case stack:
				g.tag("class:visibility-stack-image:gpu-visibility/core")
			case decided:
				g.tag("class:visibility-env-decided:gpu-visibility/core")
			}
		}
		hostVolumes := map[string]bool{}
		for _, v := range asList(p.spec["volumes"]) {
			m, _ := v.(map[string]any)
			hp, _ := m["hostPath"].(map[string]any)
			if s, ok := hp["path"].(string); ok {
				name, _ := m["name"].(string)
				hostVolumes[name] = true
				if component {
					// the stack's and the legacy components' volumes are
					// theirs
					g.tag("class:stack-component-volume:obsolete-cuda-hostpath/core")
					g.tag("class:stack-component-volume:obsolete-cuda-hostpath/extra")
				}
				_ = s
			}
		}
		// a mount where the driver goes of no hostPath volume, beside one
		for _, c := range p.containers {
			for _, vm := range asList(c["volumeMounts"]) {
				m, _ := vm.(map[string]any)
				mp, _ := m["mountPath"].(string)
				name, _ := m["name"].(string)
				if len(hostVolumes) > 0 && holdsRuns(mountPatterns, mp) && !hostVolumes[name] {
					g.tag("class:mount-of-another-volume:obsolete-cuda-hostpath/extra")
					g.tag("class:mount-of-another-volume:obsolete-cuda-hostpath/core")
				}
			}
		}
		if p.meta != nil && p.place != nil {
			a, _ := p.meta["annotations"].(map[string]any)
			if _, ok := a["gpumend.io/gpu-models"]; ok && strings.Contains(jsonText(p.place), "nvidia.com/gpu.product") {
				g.tag("class:models-already-constrained:gpu-model-affinity/core")
			}
		}
	}
	switch g.shape.kind {
	case "TaskRun", "Pipeline", "PipelineRun":
		meta, _ := obj["metadata"].(map[string]any)
		a, _ := meta["annotations"].(map[string]any)
		for _, k := range podAnnotationKeys {
			if _, ok := a[k]; ok {
				g.tag("class:tekton-run-annotations:*")
			}
		}
		for k := range a {
			if strings.HasPrefix(k, "ALIYUN_COM_GPU_MEM_") {
				g.tag("class:tekton-run-annotations:*")
			}
		}
	}
}

// hasClaims: a container's resources name DRA claims.
func hasClaims(c map[string]any) bool {
	for _, key := range []string{"resources", "computeResources"} {
		res, _ := c[key].(map[string]any)
		if _, ok := res["claims"]; ok {
			return true
		}
	}
	return false
}
