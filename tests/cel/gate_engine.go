// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// gate_engine.go - the two sides the gate compares, for one config: the
// registration `gpumend webhook-config -c CONFIG -o json` makes, its
// conditions compiled for cel-go; and `gpumend review --batch` running
// beside the gate, once for each entry and once whole, a review written
// to it per line and its answer read back.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/google/cel-go/cel"
)

// gateSide is one config's registration and engines.
type gateSide struct {
	cfg     *gateConfig
	dir     string
	path    string // the config file
	hooks   []*webhook
	byEntry map[string]*webhook
	reg     []byte // the registration, as gpumend printed it
}

// newGateSide writes the config into dir and loads its registration.
func newGateSide(env *cel.Env, gpumend, dir string, cfg *gateConfig, doc string) (*gateSide, error) {
	s := &gateSide{cfg: cfg, dir: dir, path: filepath.Join(dir, "config.yaml"), byEntry: map[string]*webhook{}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(s.path, []byte(doc), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(gpumend, "webhook-config", "-c", s.path, "-o", "json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("gpumend webhook-config -c %s: %v: %s", s.path, err, strings.TrimSpace(stderr.String()))
	}
	s.reg = out
	var reg map[string]any
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&reg); err != nil {
		return nil, fmt.Errorf("the registration of %s: %v", s.path, err)
	}
	// judged in every namespace, as the CEL suite judges: the
	// namespaceSelector leaves out kube-system and gpumend-system by
	// design, and must hide no condition that misses
	for _, w := range asList(reg["webhooks"]) {
		if m, ok := w.(map[string]any); ok {
			delete(m, "namespaceSelector")
		}
	}
	hooks := compiled[string(out)]
	if hooks == nil {
		if hooks, err = loadWebhooks(env, numbers(reg).(map[string]any)); err != nil {
			return nil, fmt.Errorf("the registration of %s: %v", s.path, err)
		}
		compiled[string(out)] = hooks
	}
	s.hooks = hooks
	for _, h := range hooks {
		s.byEntry[strings.TrimSuffix(h.name, ".gpumend.io")] = h
	}
	for _, e := range gateEntries {
		if s.byEntry[e] == nil {
			return nil, fmt.Errorf("the registration of %s has no entry %s.gpumend.io", s.path, e)
		}
	}
	return s, nil
}

// compiled: the webhooks of each registration already compiled (a
// config's turn comes again), by its text. A config is compiled in
// seconds: its conditions are long.
var compiled = map[string][]*webhook{}

// gateEntries: the registration's entries, as `review --entry` names them.
var gateEntries = []string{"legacy", "advisory"}

// evaluate: what the API server does with the review for each entry;
// with the cost tracked and limited (track), or not (the same answer for
// an object within the limits).
func (s *gateSide) evaluate(review map[string]any, track bool) map[string]outcome {
	req := review["request"].(map[string]any)
	op := str(req, "operation")
	object, oldObject := req["object"], req["oldObject"]
	if op == "CREATE" {
		oldObject = nil
	}
	kind, _ := req["kind"].(map[string]any)
	resource, _ := req["resource"].(map[string]any)
	gvr := [4]string{str(kind, "group"), str(kind, "version"), str(resource, "resource"), ""}
	vars := map[string]any{"object": object, "oldObject": oldObject,
		"request": requestVar(req, op), "namespaceObject": nil}
	out := map[string]outcome{}
	for e, h := range s.byEntry {
		out[e] = h.evaluateWith(track, op, gvr, labelsOf(object), map[string]string{}, vars)
	}
	return out
}

// engine is one `gpumend review --batch` beside the gate.
type engine struct {
	name string
	cmd  *exec.Cmd
	in   io.WriteCloser
	w    *bufio.Writer
	out  *bufio.Reader
	errb *bytes.Buffer
}

// startEngine starts `gpumend review --batch -c CONFIG [--entry ENTRY]`
// (entry "" for the whole review).
func startEngine(gpumend, config, entry string) (*engine, error) {
	args := []string{"review", "--batch", "-c", config}
	name := "review"
	if entry != "" {
		args = append(args, "--entry", entry)
		name = "review --entry " + entry
	}
	e := &engine{name: name, cmd: exec.Command(gpumend, args...), errb: &bytes.Buffer{}}
	e.cmd.Stderr = e.errb
	in, err := e.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := e.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := e.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %v", gpumend, err)
	}
	e.in, e.w, e.out = in, bufio.NewWriterSize(in, 1<<20), bufio.NewReaderSize(out, 1<<20)
	return e, nil
}

// send writes one review line.
func (e *engine) send(line []byte) error {
	_, err := e.w.Write(line)
	return err
}

func (e *engine) flush() error { return e.w.Flush() }

// recv reads one answer line.
func (e *engine) recv() ([]byte, error) {
	line, err := e.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("%s: no answer (%v): %s", e.name, err, strings.TrimSpace(e.errb.String()))
	}
	return line, nil
}

// stop closes its input and waits for it.
func (e *engine) stop() error {
	e.w.Flush()
	e.in.Close()
	err := e.cmd.Wait()
	if err != nil {
		// exit 1 (a review denied) and 2 (a line with no answer: its
		// error line says so) are answers
		if x, ok := err.(*exec.ExitError); ok && x.ExitCode() <= 2 && x.ExitCode() >= 0 {
			return nil
		}
		return fmt.Errorf("%s: %v: %s", e.name, err, strings.TrimSpace(e.errb.String()))
	}
	return nil
}

// answer is what the engine answered for one review.
type answer struct {
	Error    string `json:"error"`
	Response *struct {
		Allowed  bool     `json:"allowed"`
		Patch    string   `json:"patch"`
		Warnings []string `json:"warnings"`
		Status   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"status"`
	} `json:"response"`
}

func parseAnswer(line []byte) answer {
	var a answer
	if err := json.Unmarshal(line, &a); err != nil {
		a.Error = "unreadable answer: " + err.Error()
	} else if a.Response == nil && a.Error == "" {
		a.Error = "an answer with no response"
	}
	return a
}

// responsible: the answer patches, warns or denies.
func (a answer) responsible() bool {
	r := a.Response
	return r != nil && (r.Patch != "" || len(r.Warnings) > 0 || !r.Allowed)
}

func (a answer) denied() bool { return a.Response != nil && !a.Response.Allowed }

// internal: the engine failed (over its work budget, limits.maxValues):
// nothing is known of what the rules would do.
func (a answer) internal() bool {
	r := a.Response
	if r == nil {
		return false
	}
	if r.Status != nil && r.Status.Code >= 500 {
		return true
	}
	for _, w := range r.Warnings {
		if strings.HasPrefix(w, "gpumend: object admitted unchanged: internal error") {
			return true
		}
	}
	return false
}

// rules: the rules the answer's warnings name ("deny" for a refusal, a
// patch without a warning as "patch"), sorted and unique.
func (a answer) rules() string {
	r := a.Response
	if r == nil {
		return "-"
	}
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, w := range r.Warnings {
		if i := strings.Index(w, ": "); i > 0 && !strings.Contains(w[:i], " ") {
			add(w[:i])
		} else {
			add("other")
		}
	}
	if !r.Allowed {
		add("deny")
	}
	if r.Patch != "" && len(r.Warnings) == 0 {
		add("patch")
	}
	sortStrings(out)
	return strings.Join(out, ",")
}
