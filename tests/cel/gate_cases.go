// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// gate_cases.go - the gate's regression cases: a failing object made
// smaller while it fails alike, written as a folder (review.json, the
// config.yaml it ran under unless the default, case.json: the seed, the
// object's number, the check, what the generator put in it), and such
// folders judged again (-replay, tests/suites/gate.sh).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	"gopkg.in/yaml.v3"
)

// caseMeta is case.json.
type caseMeta struct {
	Seed      uint64   `json:"seed"`
	Index     int      `json:"index"`
	Check     string   `json:"check"`
	Entry     string   `json:"entry"`
	Signature string   `json:"signature"`
	Detail    string   `json:"detail"`
	Tags      []string `json:"tags"`
	Huge      bool     `json:"huge,omitempty"`
}

// prober judges variants of one object through engines kept running.
type prober struct {
	run     *gateRun
	side    *gateSide
	engines map[string]*engine
	track   bool
}

func newProber(run *gateRun, side *gateSide, track bool) (*prober, error) {
	p := &prober{run: run, side: side, engines: map[string]*engine{}, track: track}
	for _, e := range append([]string{""}, gateEntries...) {
		eng, err := startEngine(run.gpumend, side.path, e)
		if err != nil {
			p.stop()
			return nil, err
		}
		p.engines[e] = eng
	}
	return p, nil
}

func (p *prober) stop() {
	for _, eng := range p.engines {
		eng.stop()
	}
}

// judgement: the outcomes and the answers of one review.
func (p *prober) judgement(review map[string]any) (judgement, error) {
	line := jsonLine(review)
	j := judgement{outcomes: p.side.evaluate(review, p.track), answers: map[string]answer{}}
	for e, eng := range p.engines {
		if err := eng.send(line); err != nil {
			return j, err
		}
		if err := eng.flush(); err != nil {
			return j, err
		}
		a, err := eng.recv()
		if err != nil {
			return j, err
		}
		j.answers[e] = parseAnswer(a)
	}
	return j, nil
}

// judge: the failures of the review (as object o says what it holds).
func (p *prober) judge(o *gateObject, review map[string]any) ([]failure, error) {
	j, err := p.judgement(review)
	if err != nil {
		return nil, err
	}
	return judge(o, p.side.cfg, j, p.run.classes, nil), nil
}

// failsAlike: whether the review still fails with the signature.
func (p *prober) failsAlike(o *gateObject, review map[string]any, sig string) bool {
	fs, err := p.judge(o, review)
	if err != nil {
		return false
	}
	for _, f := range fs {
		if f.signature == sig {
			return true
		}
	}
	return false
}

// deepCopy of a JSON value.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, e := range t {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}

// removal is one way to make a review smaller: a member of a mapping or
// an element of a list, by its path from the review's request.
type removal struct {
	path []any // string keys and int indexes
}

// removals: every member and element under request.object and
// request.oldObject, the deepest last (whole subtrees first).
func removals(review map[string]any) []removal {
	var out []removal
	var walk func(v any, path []any)
	walk = func(v any, path []any) {
		switch t := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(t) {
				if len(path) == 1 && (k == "apiVersion" || k == "kind") {
					continue
				}
				p := append(append([]any{}, path...), k)
				out = append(out, removal{p})
				walk(t[k], p)
			}
		case []any:
			for i := len(t) - 1; i >= 0; i-- {
				p := append(append([]any{}, path...), i)
				out = append(out, removal{p})
				walk(t[i], p)
			}
		}
	}
	req := review["request"].(map[string]any)
	for _, top := range []string{"oldObject", "object"} {
		walk(req[top], []any{top})
	}
	return out
}

// without: a copy of the review with the removal made; nil when the path
// is no longer there.
func without(review map[string]any, r removal) map[string]any {
	c := deepCopy(review).(map[string]any)
	var parent any = c["request"]
	for i, step := range r.path {
		last := i == len(r.path)-1
		switch t := parent.(type) {
		case map[string]any:
			k, ok := step.(string)
			if !ok {
				return nil
			}
			if _, there := t[k]; !there {
				return nil
			}
			if last {
				delete(t, k)
				return c
			}
			parent = t[k]
		case []any:
			idx, ok := step.(int)
			if !ok || idx >= len(t) {
				return nil
			}
			if last {
				l := append(append([]any{}, t[:idx]...), t[idx+1:]...)
				setAt(c, r.path[:i], l)
				return c
			}
			parent = t[idx]
		default:
			return nil
		}
	}
	return nil
}

// setAt sets the value at path (from request) of the review.
func setAt(review map[string]any, path []any, v any) {
	var parent any = review["request"]
	for i, step := range path {
		last := i == len(path)-1
		switch t := parent.(type) {
		case map[string]any:
			if last {
				t[step.(string)] = v
				return
			}
			parent = t[step.(string)]
		case []any:
			if last {
				t[step.(int)] = v
				return
			}
			parent = t[step.(int)]
		}
	}
}

// minimize makes the review smaller while it fails alike, until nothing
// more can go or the deadline.
func (p *prober) minimize(o *gateObject, sig string, deadline time.Time) map[string]any {
	review := deepCopy(o.review).(map[string]any)
	if !p.failsAlike(o, review, sig) {
		return review
	}
	req := review["request"].(map[string]any)
	// an UPDATE that fails as a CREATE is the smaller case
	if req["operation"] == "UPDATE" {
		c := deepCopy(review).(map[string]any)
		cr := c["request"].(map[string]any)
		cr["operation"], cr["oldObject"] = "CREATE", nil
		cr["options"] = map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}
		if p.failsAlike(o, c, sig) {
			review = c
		} else if old := req["oldObject"]; old != nil {
			c = deepCopy(review).(map[string]any)
			c["request"].(map[string]any)["oldObject"] = deepCopy(req["object"])
			if p.failsAlike(o, c, sig) {
				review = c
			}
		}
	}
	for changed := true; changed && time.Now().Before(deadline); {
		changed = false
		for _, r := range removals(review) {
			if time.Now().After(deadline) {
				break
			}
			c := without(review, r)
			if c != nil && p.failsAlike(o, c, sig) {
				review, changed = c, true
			}
		}
	}
	return review
}

var slugChars = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	s = slugChars.ReplaceAllString(strings.ToLower(s), "-")
	s = strings.Trim(s, "-")
	if len(s) > 60 {
		s = strings.TrimRight(s[:60], "-")
	}
	return s
}

// writeFailures writes the first object of each failure signature as a
// regression case under run.out, made smaller first (two minutes in all).
func (run *gateRun) writeFailures() error {
	if run.out == "" || len(run.st.signatures) == 0 {
		return nil
	}
	if err := os.MkdirAll(run.out, 0o755); err != nil {
		return err
	}
	var sigs []string
	for s := range run.st.signatures {
		sigs = append(sigs, s)
	}
	sort.Strings(sigs)
	deadline := time.Now().Add(run.minimizeFor)
	sides := map[string]*gateSide{}
	for n, sig := range sigs {
		f := run.st.signatures[sig].first
		side := sides[f.doc]
		if side == nil {
			s, err := newGateSide(run.env, run.gpumend, filepath.Join(run.work, fmt.Sprintf("m%d", n)), f.cfg, f.doc)
			if err != nil {
				return err
			}
			side, sides[f.doc] = s, s
		}
		review, doc := f.o.review, f.doc
		if time.Now().Before(deadline) {
			p, err := newProber(run, side, f.failure.check == "budget" || f.o.huge)
			if err != nil {
				return err
			}
			per := time.Until(deadline) / time.Duration(len(sigs)-n)
			review = p.minimize(f.o, sig, time.Now().Add(per))
			p.stop()
			if run.minimizeConfig {
				o := *f.o
				o.review = review
				doc = run.minimizeDoc(&o, f.cfg.doc, sig, filepath.Join(run.work, fmt.Sprintf("mc%d", n)))
			}
		}
		dir := filepath.Join(run.out, fmt.Sprintf("%s-%d", slug(sig), f.o.index))
		if err := writeCase(dir, review, doc, caseMeta{Seed: run.seed, Index: f.o.index,
			Check: f.failure.check, Entry: f.failure.entry, Signature: sig, Detail: f.failure.detail,
			Tags: tagSlice(f.o.tags), Huge: f.o.huge}); err != nil {
			return err
		}
		if !run.quiet {
			fmt.Printf("gate: wrote %s\n", dir)
		}
	}
	fmt.Printf("gate: %d regression cases in %s (each the first object of its kind of failure, made smaller)\n",
		len(sigs), run.out)
	return nil
}

func tagSlice(tags map[string]bool) []string {
	var l []string
	for t := range tags {
		l = append(l, t)
	}
	sort.Strings(l)
	return l
}

// writeCase writes a regression case folder.
func writeCase(dir string, review map[string]any, doc string, meta caseMeta) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if len(jsonLine(review)) > 1<<20 {
		enc.SetIndent("", "")
	}
	if err := enc.Encode(review); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "review.json"), b.Bytes(), 0o644); err != nil {
		return err
	}
	if doc != "{}\n" {
		if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(doc), 0o644); err != nil {
			return err
		}
	}
	m, _ := json.MarshalIndent(meta, "", "  ")
	return os.WriteFile(filepath.Join(dir, "case.json"), append(m, '\n'), 0o644)
}

// ------------------------------------------------------------------
// replay

// gateConfigOf reads a config document into what the judge needs of it:
// the rules' modes and the custom resources.
func gateConfigOf(text []byte) (*gateConfig, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, err
	}
	c := &gateConfig{scenario: "case", modes: map[string]string{}, modelNS: map[string][]string{}, doc: doc}
	for n, m := range defaultModes {
		c.modes[n] = m
	}
	rules, _ := doc["rules"].(map[string]any)
	for n, v := range rules {
		if m, ok := v.(map[string]any); ok {
			if mode, ok := m["mode"].(string); ok {
				c.modes[n] = mode
			}
		}
	}
	wh, _ := doc["webhook"].(map[string]any)
	for _, cr := range asList(wh["customResources"]) {
		m, _ := cr.(map[string]any)
		group, _ := m["group"].(string)
		var paths []string
		for _, p := range asList(m["podSpecs"]) {
			s, _ := p.(string)
			paths = append(paths, s)
		}
		for _, r := range asList(m["resources"]) {
			res, _ := r.(string)
			c.custom = append(c.custom, customShape(group, res, res, paths))
		}
	}
	return c, nil
}

// replayCases judges each case folder again; 0 when every one passes.
func replayCases(gpumend string, env *cel.Env, classes map[string]string, work string, dirs []string) int {
	run := &gateRun{gpumend: gpumend, env: env, classes: classes, work: work, sides: map[string]*gateSide{}}
	failed := 0
	for n, dir := range dirs {
		fs, err := replayCase(run, filepath.Join(work, fmt.Sprintf("r%d", n)), dir)
		switch {
		case err != nil:
			fmt.Printf("gate: ERROR %s: %v\n", dir, err)
			failed++
		case len(fs) > 0:
			for _, f := range fs {
				fmt.Printf("gate: FAIL %s: %s %s: %s\n", dir, f.check, f.entry, f.detail)
			}
			failed++
		default:
			fmt.Printf("gate: ok %s\n", dir)
		}
	}
	if failed > 0 {
		return 1
	}
	return 0
}

func replayCase(run *gateRun, work, dir string) ([]failure, error) {
	text, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
	if os.IsNotExist(err) {
		text, err = []byte("{}\n"), nil
	}
	if err != nil {
		return nil, err
	}
	cfg, err := gateConfigOf(text)
	if err != nil {
		return nil, fmt.Errorf("config.yaml: %v", err)
	}
	var meta caseMeta
	mt, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(mt, &meta); err != nil {
		return nil, fmt.Errorf("case.json: %v", err)
	}
	v, err := readJSON(filepath.Join(dir, "review.json"))
	if err != nil {
		return nil, err
	}
	review, _ := v.(map[string]any)
	req, _ := review["request"].(map[string]any)
	if req == nil {
		return nil, fmt.Errorf("review.json: no /request")
	}
	o := &gateObject{index: meta.Index, review: review, tags: map[string]bool{}, huge: meta.Huge}
	for _, t := range meta.Tags {
		o.tags[t] = true
	}
	o.op = str(req, "operation")
	res, _ := req["resource"].(map[string]any)
	for _, s := range shapesOf(cfg) {
		if s.group == str(res, "group") && s.resource == str(res, "resource") {
			s := s
			o.shape = &s
		}
	}
	if o.shape == nil {
		return nil, fmt.Errorf("review.json: %s/%s is no kind the gate knows", str(res, "group"), str(res, "resource"))
	}
	o.fixed = o.op == "UPDATE" && (o.shape.group == "" && o.shape.resource == "pods" ||
		o.shape.group == "batch" && o.shape.resource == "jobs")
	// a registration per config: the cases of one run share a few
	side := run.sides[string(text)]
	if side == nil {
		if side, err = newGateSide(run.env, run.gpumend, work, cfg, string(text)); err != nil {
			return nil, err
		}
		run.sides[string(text)] = side
	}
	// tracked as the run was: the cost of a huge object, or of a budget
	// failure
	p, err := newProber(run, side, meta.Check == "budget" || meta.Huge)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	return p.judge(o, review)
}

// minimizeDoc drops the config's members, one at a time, while the
// object still fails alike under it: the smallest config found, as YAML.
func (run *gateRun) minimizeDoc(o *gateObject, doc map[string]any, sig, work string) string {
	cur := deepCopy(doc).(map[string]any)
	try := func(cand map[string]any, n int) bool {
		text := yamlText(cand)
		cfg, err := gateConfigOf([]byte(text))
		if err != nil {
			return false
		}
		side, err := newGateSide(run.env, run.gpumend, fmt.Sprintf("%s-%d", work, n), cfg, text)
		if err != nil {
			return false
		}
		p, err := newProber(run, side, false)
		if err != nil {
			return false
		}
		defer p.stop()
		return p.failsAlike(o, o.review, sig)
	}
	n := 0
	if try(map[string]any{}, n) {
		return "{}\n"
	}
	// the members of the sections, then the sections
	for _, section := range sortedKeys(cur) {
		inner, ok := cur[section].(map[string]any)
		if !ok {
			continue
		}
		for _, k := range sortedKeys(inner) {
			n++
			cand := deepCopy(cur).(map[string]any)
			ci := cand[section].(map[string]any)
			delete(ci, k)
			if len(ci) == 0 {
				delete(cand, section)
			}
			if try(cand, n) {
				cur = cand
			}
		}
	}
	return yamlText(cur)
}
