// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// Command peer-go is the benchmark's Go peer of gpumend-webhook: the
// mutating admission webhook a team would write by hand with Go's standard
// library only (net/http, crypto/tls, encoding/json into maps). It does two
// of gpumend's fixes and nothing else:
//
//   - the resource rename: alpha.kubernetes.io/nvidia-gpu becomes
//     nvidia.com/gpu in the limits and requests of every container;
//   - the driver-mount removal: hostPath volumes of the NVIDIA driver
//     (gpumend's default `hostPaths.obsolete` patterns) go, with every
//     volumeMount that uses them, except the volumes that a container of
//     the GPU stack itself mounts (gpumend's default `stackImages` and
//     obsolete components' image patterns).
//
// For those it answers the JSON Patch gpumend answers with only the
// legacy-gpu-resource and obsolete-cuda-hostpath rules on: the same
// operations in the same order, written the same way, and the same
// gpumend.io/mutations annotation (tests/bench/instructions.sh compares the
// two). TLS as gpumend-webhook sets it: TLS 1.2 or 1.3, ECDHE key exchange,
// AEAD ciphers only.
//
// usage: peer-go CERT KEY [--until-eof]
// Listens on 127.0.0.1 on a port of its choosing, prints "port N" on
// standard output, serves POST /mutate until SIGTERM or SIGINT, or with
// --until-eof until its standard input ends (callgrind cannot deliver a
// signal to a Go program: it stops on an assertion).
package main

import (
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

const (
	legacyResource = "alpha.kubernetes.io/nvidia-gpu"
	gpuResource    = "nvidia.com/gpu"
	mutationsKey   = "gpumend.io/mutations"
	maxBody        = 7 << 20
)

// The hostPath patterns of nvidia-docker 1 driver volumes (gpumend's
// defaults): fnmatch(3) patterns in which '*' also matches '/'.
var obsoletePaths = []string{
	"/usr/lib/nvidia-[0-9]*",
	"/usr/local/nvidia",
	"/usr/local/nvidia/*",
	"/var/lib/nvidia-docker/volumes/nvidia_driver/*",
	"/usr/lib64/nvidia",
	"/usr/lib64/nvidia/*",
	"*/libcuda.so*",
	"*/libnvidia-*.so*",
}

// The images of the GPU stack's own components (gpumend's defaults: its
// stackImages, then its obsolete components' patterns).
var stackImages = []string{
	"*nvidia/k8s-device-plugin*",
	"*nvidia/gpu-feature-discovery*",
	"*/dcgm-exporter*",
	"*nvidia/k8s/container-toolkit*",
	"*nvidia/gpu-operator*",
	"nvcr.io/nvidia/cloud-native/*",
	"nvcr.io/nvidia/driver:*",
	"*nvidia/k8s-dra-driver*",
	"*nvidia/kubevirt-gpu-device-plugin*",
	"*nvidia-gpu-device-plugin*",
	"*nvidia-driver-installer*",
	"*cos-nvidia-installer*",
	"*cos-gpu-installer*",
	"*projecthami/hami*",
	"nvidia/k8s-device-plugin:1.*",
	"*/nvidia/k8s-device-plugin:1.*",
	"*k8s-gpushare-plugin*",
	"*gpushare-device-plugin*",
	"*gpushare-schd-extender*",
	"*gpushare-scheduler-extender*",
	"*schd-extender-deployer*",
	"*device-plugin-evict*",
	"*nvidia-docker-plugin*",
}

var containerLists = []string{"initContainers", "containers", "ephemeralContainers"}

// op is one JSON Patch operation, its members in gpumend's order.
type op struct {
	Op    string      `json:"op"`
	From  string      `json:"from,omitempty"`
	Path  string      `json:"path"`
	Value interface{} `json:"value,omitempty"`
}

type podSpec struct {
	pointer string
	spec    map[string]interface{}
}

func escapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// match is fnmatch(3) without flags: '*' matches any run, '/' included.
func match(pattern, s string) bool {
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for i := len(s); i >= 0; i-- {
				if match(pattern[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if len(s) == 0 {
				return false
			}
			pattern, s = pattern[1:], s[1:]
		case '[':
			end := strings.IndexByte(pattern[1:], ']')
			if end < 0 || len(s) == 0 {
				return false
			}
			class := pattern[1 : end+1]
			negate := len(class) > 0 && (class[0] == '!' || class[0] == '^')
			if negate {
				class = class[1:]
			}
			found := false
			for i := 0; i < len(class); i++ {
				if i+2 < len(class) && class[i+1] == '-' {
					if s[0] >= class[i] && s[0] <= class[i+2] {
						found = true
					}
					i += 2
				} else if s[0] == class[i] {
					found = true
				}
			}
			if found == negate {
				return false
			}
			pattern, s = pattern[end+2:], s[1:]
		default:
			if len(s) == 0 || s[0] != pattern[0] {
				return false
			}
			pattern, s = pattern[1:], s[1:]
		}
	}
	return len(s) == 0
}

func isPodSpec(m map[string]interface{}) bool {
	list, ok := m["containers"].([]interface{})
	if !ok || len(list) == 0 {
		return false
	}
	for _, c := range list {
		if _, ok := c.(map[string]interface{}); !ok {
			return false
		}
	}
	return true
}

// findPodSpecs collects every mapping that holds a list of containers.
func findPodSpecs(node interface{}, pointer string, out *[]podSpec) {
	switch v := node.(type) {
	case map[string]interface{}:
		if isPodSpec(v) {
			*out = append(*out, podSpec{pointer, v})
			return
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			findPodSpecs(v[k], pointer+"/"+escapeToken(k), out)
		}
	case []interface{}:
		for i, item := range v {
			findPodSpecs(item, pointer+"/"+strconv.Itoa(i), out)
		}
	}
}

// renameResources: the legacy key of limits and requests becomes the new
// one (or goes, when the new one is there already).
func renameResources(pod podSpec) []op {
	var ops []op
	for _, listName := range containerLists {
		list, _ := pod.spec[listName].([]interface{})
		for i, item := range list {
			c, _ := item.(map[string]interface{})
			resources, _ := c["resources"].(map[string]interface{})
			for _, section := range []string{"limits", "requests"} {
				m, _ := resources[section].(map[string]interface{})
				if _, ok := m[legacyResource]; !ok {
					continue
				}
				base := fmt.Sprintf("%s/%s/%d/resources/%s", pod.pointer, listName, i, section)
				from := base + "/" + escapeToken(legacyResource)
				if _, ok := m[gpuResource]; ok {
					ops = append(ops, op{Op: "remove", Path: from})
				} else {
					ops = append(ops, op{Op: "move", From: from, Path: base + "/" + escapeToken(gpuResource)})
				}
			}
		}
	}
	return ops
}

func obsoletePath(path string) bool {
	for len(path) > 1 && strings.HasSuffix(path, "/") {
		path = path[:len(path)-1]
	}
	for _, p := range obsoletePaths {
		if match(p, path) {
			return true
		}
	}
	return false
}

func stackImage(image string) bool {
	for _, p := range stackImages {
		if match(p, image) {
			return true
		}
	}
	return false
}

// stackVolumes: the names of the volumes the GPU stack's own containers
// mount, which stay.
func stackVolumes(pod podSpec) map[string]bool {
	names := map[string]bool{}
	for _, listName := range containerLists {
		list, _ := pod.spec[listName].([]interface{})
		for _, item := range list {
			c, _ := item.(map[string]interface{})
			image, ok := c["image"].(string)
			if !ok || !stackImage(image) {
				continue
			}
			mounts, _ := c["volumeMounts"].([]interface{})
			for _, m := range mounts {
				mount, _ := m.(map[string]interface{})
				if name, ok := mount["name"].(string); ok {
					names[name] = true
				}
			}
		}
	}
	return names
}

// removeDriverMounts: the driver's hostPath volumes and their mounts,
// last first so that the indices hold.
func removeDriverMounts(pod podSpec) []op {
	var ops []op
	volumes, _ := pod.spec["volumes"].([]interface{})
	obsolete := make([]bool, len(volumes))
	names := map[string]bool{}
	stack := stackVolumes(pod)
	count := 0
	for i, item := range volumes {
		v, _ := item.(map[string]interface{})
		if name, ok := v["name"].(string); ok && stack[name] {
			continue
		}
		hostPath, _ := v["hostPath"].(map[string]interface{})
		path, ok := hostPath["path"].(string)
		if !ok || !obsoletePath(path) {
			continue
		}
		obsolete[i] = true
		count++
		if name, ok := v["name"].(string); ok {
			names[name] = true
		}
	}
	if count == 0 {
		return nil
	}
	for _, listName := range containerLists {
		list, _ := pod.spec[listName].([]interface{})
		for i, item := range list {
			c, _ := item.(map[string]interface{})
			mounts, _ := c["volumeMounts"].([]interface{})
			gone := make([]bool, len(mounts))
			n := 0
			for j, m := range mounts {
				mount, _ := m.(map[string]interface{})
				if name, ok := mount["name"].(string); ok && names[name] {
					gone[j] = true
					n++
				}
			}
			if n == 0 {
				continue
			}
			base := fmt.Sprintf("%s/%s/%d/volumeMounts", pod.pointer, listName, i)
			if n == len(mounts) {
				ops = append(ops, op{Op: "remove", Path: base})
				continue
			}
			for j := len(mounts) - 1; j >= 0; j-- {
				if gone[j] {
					ops = append(ops, op{Op: "remove", Path: base + "/" + strconv.Itoa(j)})
				}
			}
		}
	}
	base := pod.pointer + "/volumes"
	if count == len(volumes) {
		return append(ops, op{Op: "remove", Path: base})
	}
	for i := len(volumes) - 1; i >= 0; i-- {
		if obsolete[i] {
			ops = append(ops, op{Op: "remove", Path: base + "/" + strconv.Itoa(i)})
		}
	}
	return ops
}

// mutationsOp records which fixes were made, as gpumend does.
func mutationsOp(object map[string]interface{}, rules []string) (op, bool) {
	value := strings.Join(rules, ",")
	meta, hasMeta := object["metadata"]
	if !hasMeta {
		return op{Op: "add", Path: "/metadata", Value: map[string]interface{}{
			"annotations": map[string]interface{}{mutationsKey: value}}}, true
	}
	metadata, ok := meta.(map[string]interface{})
	if !ok {
		return op{}, false
	}
	annotations, ok := metadata["annotations"].(map[string]interface{})
	if !ok {
		return op{Op: "add", Path: "/metadata/annotations",
			Value: map[string]interface{}{mutationsKey: value}}, true
	}
	kind := "add"
	if _, ok := annotations[mutationsKey]; ok {
		kind = "replace"
	}
	return op{Op: kind, Path: "/metadata/annotations/" + escapeToken(mutationsKey), Value: value}, true
}

func fail(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, message+"\n")
}

func mutate(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		fail(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		fail(w, http.StatusRequestEntityTooLarge, "request body too large")
		return
	}
	var review map[string]interface{}
	if err := json.Unmarshal(body, &review); err != nil {
		fail(w, http.StatusBadRequest, "malformed JSON: "+err.Error())
		return
	}
	apiVersion, _ := review["apiVersion"].(string)
	request, _ := review["request"].(map[string]interface{})
	uid, _ := request["uid"].(string)
	if review["kind"] != "AdmissionReview" || apiVersion == "" || uid == "" {
		fail(w, http.StatusBadRequest, "not an AdmissionReview")
		return
	}
	response := map[string]interface{}{"uid": uid, "allowed": true}
	object, _ := request["object"].(map[string]interface{})
	if request["operation"] == "CREATE" && object != nil {
		var pods []podSpec
		var renames, removals []op
		findPodSpecs(object, "", &pods)
		for _, pod := range pods {
			renames = append(renames, renameResources(pod)...)
		}
		for _, pod := range pods {
			removals = append(removals, removeDriverMounts(pod)...)
		}
		var rules []string
		if len(renames) > 0 {
			rules = append(rules, "legacy-gpu-resource")
		}
		if len(removals) > 0 {
			rules = append(rules, "obsolete-cuda-hostpath")
		}
		if len(rules) > 0 {
			ops := append(renames, removals...)
			if record, ok := mutationsOp(object, rules); ok {
				ops = append(ops, record)
			}
			var patch bytes.Buffer
			encoder := json.NewEncoder(&patch)
			encoder.SetEscapeHTML(false)
			if err := encoder.Encode(ops); err != nil {
				fail(w, http.StatusInternalServerError, "internal error")
				return
			}
			text := bytes.TrimSuffix(patch.Bytes(), []byte("\n"))
			response["patchType"] = "JSONPatch"
			response["patch"] = base64.StdEncoding.EncodeToString(text)
		}
	}
	answer, err := json.Marshal(map[string]interface{}{
		"apiVersion": apiVersion,
		"kind":       "AdmissionReview",
		"response":   response,
	})
	if err != nil {
		fail(w, http.StatusInternalServerError, "internal error")
		return
	}
	answer = append(answer, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(answer)))
	w.Write(answer)
}

func main() {
	untilEOF := len(os.Args) == 4 && os.Args[3] == "--until-eof"
	if len(os.Args) != 3 && !untilEOF {
		fmt.Fprintln(os.Stderr, "usage: peer-go CERT KEY [--until-eof]")
		os.Exit(2)
	}
	cert, err := tls.LoadX509KeyPair(os.Args[1], os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "peer-go:", err)
		os.Exit(1)
	}
	config := &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS12,
		// TLS 1.2: ECDHE and AEAD only (TLS 1.3 suites are all AEAD)
		CipherSuites: []uint16{
			tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
			tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
		},
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "peer-go:", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/mutate", mutate)
	server := &http.Server{Handler: mux, TLSConfig: config}
	done := make(chan struct{})
	stop := make(chan struct{}, 2)
	go func() {
		signals := make(chan os.Signal, 1)
		signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
		<-signals
		stop <- struct{}{}
	}()
	if untilEOF {
		go func() {
			io.Copy(io.Discard, os.Stdin)
			stop <- struct{}{}
		}()
	}
	go func() {
		<-stop
		server.Close()
		close(done)
	}()
	fmt.Printf("port %d\n", listener.Addr().(*net.TCPAddr).Port)
	os.Stdout.Sync()
	if err := server.ServeTLS(listener, "", ""); err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, "peer-go:", err)
		os.Exit(1)
	}
	<-done
}
