// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// gate.go - `celcheck gate`: proves the registration's matchConditions
// against the engine on objects nobody wrote (issue #40, docs/webhook.md
// "How the registration is proven"):
//
//	celcheck gate -gpumend GPUMEND [-seed N] [-count N] [-per-config N]
//	    [-classes CLASSES.tsv] [-out DIR] [-only I] [-q]
//	celcheck gate -gpumend GPUMEND -classes CLASSES.tsv -replay CASE...
//
// For each object of a seeded run (gate_object.go), under a config of
// its turn (default, all deny with denyOptOutNamespaces, random), the
// conditions of the registration `gpumend webhook-config -c CONFIG -o
// json` makes are evaluated as the API server does (match.go, env.go:
// its environment, PerCallLimit and budget), and the review answered by
// `gpumend review --batch --entry E` for each entry and by the whole
// review. Failures:
//
//   - superset: an entry whose review patches, warns or denies does not
//     match; or the whole review acts and no entry's does (unrouted);
//   - error, budget: a condition fails to evaluate or runs out of its
//     cost (a refusal under Fail, no call under Ignore);
//   - selectivity: an entry matches an object its review leaves alone,
//     and the object holds no near-miss of a class CLASSES.tsv lists (an
//     over-approximation CEL cannot avoid: counted by class).
//
// Each failing object is written to DIR as a regression case (review.json,
// config.yaml, case.json), its object made smaller first while it still
// fails alike; -replay judges such cases again. Exit 0 when nothing
// failed, 1 otherwise, 2 on an error of the gate itself.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
)

// failure is one check that did not hold on one object.
type failure struct {
	check, entry, detail string
	// what failures alike share: the check, the entry and what failed
	signature string
}

// gateStats are the run's counts.
type gateStats struct {
	objects, creates, updates, huge, hostile, plain int
	scenarios                                       map[string]int
	shapes                                          map[string]int
	acted                                           map[string]int // (object, entry) pairs an entry acts on
	matched                                         map[string]int
	classes                                         map[string]int
	internal                                        int
	maxCost                                         map[string]uint64
	failures                                        map[string]int // by check
	signatures                                      map[string]*sigInfo
}

type sigInfo struct {
	count int
	first *failedObject
}

// failedObject is what is kept of a failing object for its regression
// case.
type failedObject struct {
	o       *gateObject
	cfg     *gateConfig
	doc     string
	failure failure
}

func newStats() *gateStats {
	return &gateStats{scenarios: map[string]int{}, shapes: map[string]int{}, acted: map[string]int{},
		matched: map[string]int{}, classes: map[string]int{}, maxCost: map[string]uint64{},
		failures: map[string]int{}, signatures: map[string]*sigInfo{}}
}

func sortStrings(s []string) { sort.Strings(s) }

// loadClasses reads CLASSES.tsv: a class per line, its name, a tab, what
// it is.
func loadClasses(path string) (map[string]string, error) {
	out := map[string]string{}
	if path == "" {
		return out, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, what, ok := strings.Cut(line, "\t")
		if !ok || name == "" || what == "" {
			return nil, fmt.Errorf("%s:%d: not NAME<TAB>WHAT", path, n)
		}
		if !knownClass(name) {
			return nil, fmt.Errorf("%s:%d: '%s' is no class the generator makes", path, n, name)
		}
		out[name] = what
	}
	return out, sc.Err()
}

// allClasses: every class the generator tags.
func allClasses() []string {
	return append(append([]string{}, nearMisses...), "skip-on-template", "skip-rules-oversize", "odd-value",
		"pod-without-containers", "skip-with-deny-rule", "zero-gpu-request", "stack-component-volume",
		"tekton-run-annotations")
}

func knownClass(name string) bool {
	for _, c := range allClasses() {
		if c == name {
			return true
		}
	}
	return false
}

// relevantClasses: the classes of the object's near-misses that may send
// it to entry e under cfg, sorted.
func relevantClasses(o *gateObject, cfg *gateConfig, e string) []string {
	seen := map[string]bool{}
	for t := range o.tags {
		if !strings.HasPrefix(t, "class:") {
			continue
		}
		parts := strings.SplitN(strings.TrimPrefix(t, "class:"), ":", 2)
		class, rp := parts[0], parts[1]
		if rp != "*" {
			rule, part, _ := strings.Cut(rp, "/")
			if cfg.entryOf(rule, part, o.fixed) != e {
				continue
			}
		}
		seen[class] = true
	}
	var out []string
	for c := range seen {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// constructs: the rules of the object's legacy constructs, sorted.
func constructs(o *gateObject) []string {
	var out []string
	for t := range o.tags {
		if strings.HasPrefix(t, "construct:") {
			out = append(out, strings.TrimPrefix(t, "construct:"))
		}
	}
	sort.Strings(out)
	return out
}

// judgement: one object's outcomes and answers, and what they say.
type judgement struct {
	outcomes map[string]outcome
	answers  map[string]answer // by entry, "" for the whole review
}

// judge checks one object; it fills the stats (when not nil) and returns
// the failures.
func judge(o *gateObject, cfg *gateConfig, j judgement, classes map[string]string, st *gateStats) []failure {
	var fs []failure
	kind := o.shape.kind
	if o.shape.group != "" {
		kind += "." + o.shape.group
	}
	// failures alike share a signature: the check, the entry and what
	// failed (the false condition, the error, the class), and the kind
	// where that depends on it (a pod the conditions do not find)
	fail := func(check, entry, detail, key string) {
		sig := strings.Join([]string{check, entry, key}, " ")
		if check == "superset" && strings.HasSuffix(key, "may-act") || check == "engine" {
			sig += " " + kind
		}
		fs = append(fs, failure{check, entry, detail, sig})
	}
	whole := j.answers[""]
	anyActs, anyDenies := false, false
	for _, e := range gateEntries {
		out, a := j.outcomes[e], j.answers[e]
		if st != nil && out.cost > st.maxCost[e] {
			st.maxCost[e] = out.cost
		}
		if a.Error != "" {
			fail("engine", e, a.Error, "no answer")
			continue
		}
		if a.internal() {
			if st != nil {
				st.internal++
			}
			if !o.huge {
				fail("engine", e, "internal failure: "+a.rules(), "internal failure")
			}
			continue
		}
		acts := a.responsible()
		anyActs = anyActs || acts
		anyDenies = anyDenies || a.denied()
		if st != nil && acts {
			st.acted[e]++
		}
		if st != nil && out.result == "match" {
			st.matched[e]++
		}
		switch out.result {
		case "reject", "skip":
			check := "error"
			if strings.Contains(out.detail, "cost") || strings.Contains(out.detail, "budget") {
				check = "budget"
			}
			cond, _, _ := strings.Cut(out.detail, ":")
			fail(check, e, out.detail, cond+": "+errorKey(out.detail))
			continue
		}
		if acts && out.result != "match" {
			fail("superset", e, fmt.Sprintf("review --entry %s acts (%s); the entry is %s (%s)",
				e, a.rules(), out.result, out.detail), out.result+" "+out.detail)
		}
		if !acts && out.result == "match" {
			rel := relevantClasses(o, cfg, e)
			var listed, unlisted []string
			for _, c := range rel {
				if _, ok := classes[c]; ok {
					listed = append(listed, c)
				} else {
					unlisted = append(unlisted, c)
				}
			}
			switch {
			case len(listed) > 0:
				if st != nil {
					for _, c := range listed {
						st.classes[c+" ("+e+")"]++
					}
				}
			case len(unlisted) > 0:
				fail("selectivity", e, "sent for nothing; near-miss of class "+strings.Join(unlisted, ", ")+
					", not listed", "class "+strings.Join(unlisted, ","))
			default:
				key := "constructs " + strings.Join(constructs(o), ",")
				if len(constructs(o)) == 0 {
					key = "no construct"
				}
				fail("selectivity", e, "sent for nothing; "+key, key)
			}
		}
	}
	if !o.shape.registered {
		// the API server never sends it: no entry's review acts on it
		return fs
	}
	if whole.Error == "" && !whole.internal() && whole.responsible() && !anyActs {
		fail("unrouted", "-", "the whole review acts ("+whole.rules()+"); no entry's review does",
			whole.rules())
	}
	if whole.Error == "" && whole.denied() && !whole.internal() && !anyDenies {
		fail("unrouted", "-", "the whole review denies; no entry's review does", "deny")
	}
	return fs
}

// errorKey: an evaluation error without its numbers, for grouping.
func errorKey(detail string) string {
	var b strings.Builder
	for _, r := range detail {
		if r >= '0' && r <= '9' {
			continue
		}
		b.WriteRune(r)
	}
	s := b.String()
	if len(s) > 160 {
		s = s[:160]
	}
	return s
}

// gateRun is one run.
type gateRun struct {
	gpumend        string
	seed           uint64
	count          int
	perConfig      int
	classes        map[string]string
	out            string
	quiet          bool
	env            *cel.Env
	work           string
	st             *gateStats
	failed         []*failedObject
	workers        int
	trackOver      int
	trackEvery     int
	minimizeFor    time.Duration
	minimizeConfig bool
	sides          map[string]*gateSide // replay: by config text
}

func cmdGate(args []string) {
	fs := flag.NewFlagSet("gate", flag.ExitOnError)
	gpumend := fs.String("gpumend", "", "the gpumend binary")
	seedArg := fs.String("seed", "", "the seed (default: from the clock)")
	count := fs.Int("count", 100000, "how many objects")
	perConfig := fs.Int("per-config", 2500, "objects under each config")
	classesPath := fs.String("classes", "", "the over-approximation classes (tests/gate/classes.tsv)")
	out := fs.String("out", "", "where to write the failing objects as regression cases")
	only := fs.Int("only", -1, "make and judge object I alone (printing it)")
	replay := fs.Bool("replay", false, "judge the regression cases named instead")
	quiet := fs.Bool("q", false, "print the summary only")
	trackOver := fs.Int("track-over", 16384, "evaluate with the cost tracked the objects over this many bytes")
	trackEvery := fs.Int("track-every", 512, "and one in this many of the others")
	minimizeFor := fs.Duration("minimize-for", 2*time.Minute, "how long to spend making the failing objects smaller, in all")
	minimizeConfig := fs.Bool("minimize-config", false, "make each failing object's config smaller too (seconds a try)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile")
	kinds := fs.Bool("kinds", false, "list the kinds the generator makes objects of, and exit")
	fs.Parse(args)
	if *kinds {
		for _, sh := range shapesOf(newGateConfig(rand.New(rand.NewPCG(1, 2)), 2)) {
			fmt.Printf("%s\t%s\t%s\n", sh.group, sh.resource, sh.kind)
		}
		for _, sh := range []gateShape{customShape("example.com", "trainjobs", "TrainJob", nil)} {
			fmt.Printf("%s\t%s\t%s\n", sh.group, sh.resource, sh.kind)
		}
		return
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			die("gate: %v", err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if *gpumend == "" {
		die("gate: -gpumend is required")
	}
	classes, err := loadClasses(*classesPath)
	if err != nil {
		die("gate: %v", err)
	}
	env, err := admissionEnv()
	if err != nil {
		die("the CEL environment: %v", err)
	}
	work, err := os.MkdirTemp("", "gpumend-gate.")
	if err != nil {
		die("gate: %v", err)
	}
	defer os.RemoveAll(work)
	if *replay {
		os.Exit(replayCases(*gpumend, env, classes, work, fs.Args()))
	}
	seed := uint64(time.Now().UnixNano()) % 1000000000
	if *seedArg != "" {
		if seed, err = strconv.ParseUint(*seedArg, 10, 64); err != nil {
			die("gate: -seed: '%s' is not a number", *seedArg)
		}
	}
	run := &gateRun{gpumend: *gpumend, seed: seed, count: *count, perConfig: *perConfig,
		classes: classes, out: *out, quiet: *quiet, env: env, work: work, st: newStats(),
		workers: runtime.NumCPU(), trackOver: *trackOver, trackEvery: *trackEvery,
		minimizeFor: *minimizeFor, minimizeConfig: *minimizeConfig}
	if *only >= 0 {
		os.Exit(run.one(*only))
	}
	rc := run.all()
	pprof.StopCPUProfile()
	os.Exit(rc)
}

// configOf: config k of the run.
func (run *gateRun) configOf(k int) *gateConfig {
	return newGateConfig(rand.New(rand.NewPCG(run.seed, uint64(k)<<32|0xc0f1)), k)
}

// one makes object i, prints it and its judgement.
func (run *gateRun) one(i int) int {
	k := i / run.perConfig
	cfg := run.configOf(k)
	doc := yamlText(cfg.doc)
	side, err := newGateSide(run.env, run.gpumend, filepath.Join(run.work, "c"), cfg, doc)
	if err != nil {
		die("gate: %v", err)
	}
	o := makeObject(run.seed, i, cfg)
	fmt.Printf("# config %d (%s):\n%s", k, cfg.scenario, doc)
	fmt.Printf("# object %d (%s %s), tags %s:\n%s", i, o.op, o.shape.kind, tagList(o.tags), o.line)
	p, err := newProber(run, side, true)
	if err != nil {
		die("gate: %v", err)
	}
	j, err := p.judgement(o.review)
	p.stop()
	if err != nil {
		die("gate: %v", err)
	}
	for _, e := range gateEntries {
		fmt.Printf("# %s: conditions %s (%s, cost %d); review --entry: %s\n", e, j.outcomes[e].result,
			j.outcomes[e].detail, j.outcomes[e].cost, j.answers[e].rules())
	}
	fmt.Printf("# whole review: %s\n", j.answers[""].rules())
	fs := judge(o, cfg, j, run.classes, nil)
	for _, f := range fs {
		fmt.Printf("FAIL %s %s: %s\n", f.check, f.entry, f.detail)
		if run.st.signatures[f.signature] == nil {
			run.st.signatures[f.signature] = &sigInfo{count: 1,
				first: &failedObject{o: o, cfg: cfg, doc: doc, failure: f}}
		}
	}
	if err := run.writeFailures(); err != nil {
		die("gate: %v", err)
	}
	if len(fs) > 0 {
		return 1
	}
	return 0
}

func tagList(tags map[string]bool) string {
	var l []string
	for t := range tags {
		l = append(l, t)
	}
	sort.Strings(l)
	if len(l) == 0 {
		return "(none)"
	}
	return strings.Join(l, " ")
}

// all runs every object, config by config, and prints the summary.
func (run *gateRun) all() int {
	start := time.Now()
	covered := map[string]bool{}
	for k := 0; k*run.perConfig < run.count; k++ {
		first, last := k*run.perConfig, (k+1)*run.perConfig
		if last > run.count {
			last = run.count
		}
		cfg := run.configOf(k)
		doc := yamlText(cfg.doc)
		side, err := newGateSide(run.env, run.gpumend, filepath.Join(run.work, fmt.Sprintf("c%d", k)), cfg, doc)
		if err != nil {
			die("gate: %v", err)
		}
		if err := checkCoverage(side, cfg); err != nil {
			die("gate: %v", err)
		}
		run.st.scenarios[cfg.scenario]++
		if err := run.chunk(side, cfg, doc, first, last, covered); err != nil {
			die("gate: %v", err)
		}
	}
	elapsed := time.Since(start)
	run.summary(elapsed)
	if err := run.writeFailures(); err != nil {
		die("gate: %v", err)
	}
	if len(run.st.failures) > 0 {
		return 1
	}
	return 0
}

// tracked: whether object o is evaluated with the cost tracked: every
// object over trackOver bytes, and one in 16 of the others (their
// highest cost is printed: far below the limits).
func (run *gateRun) tracked(o *gateObject) bool {
	return len(o.line) > run.trackOver || o.index%run.trackEvery == 0
}

// checkCoverage: every resource the registration registers is a kind the
// generator makes.
func checkCoverage(side *gateSide, cfg *gateConfig) error {
	shapes := shapesOf(cfg)
	for _, h := range side.hooks {
		for _, r := range h.rules {
			for _, g := range r.apiGroups {
				for _, res := range r.resources {
					found := false
					for _, s := range shapes {
						found = found || (s.group == g && s.resource == res)
					}
					if !found {
						return fmt.Errorf("the registration of %s names %s/%s, a resource the gate makes no object of (tests/cel/gate_shapes.go)",
							side.path, g, res)
					}
				}
			}
		}
	}
	return nil
}

// chunk runs objects [first, last) under one config: three engines fed
// as the objects are made, the conditions evaluated by workers meanwhile.
func (run *gateRun) chunk(side *gateSide, cfg *gateConfig, doc string, first, last int, covered map[string]bool) error {
	n := last - first
	names := append([]string{""}, gateEntries...)
	engines := make([]*engine, len(names))
	for i, e := range names {
		eng, err := startEngine(run.gpumend, side.path, e)
		if err != nil {
			return err
		}
		engines[i] = eng
	}
	objs := make([]*gateObject, n)
	outcomes := make([]map[string]outcome, n)
	answers := make([][][]byte, len(names))
	for i := range answers {
		answers[i] = make([][]byte, n)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	feeds := make([]chan []byte, len(names))
	for i, eng := range engines {
		feeds[i] = make(chan []byte, 256)
		wg.Add(2)
		go func(eng *engine, feed chan []byte) {
			defer wg.Done()
			for line := range feed {
				if err := eng.send(line); err != nil {
					errs <- fmt.Errorf("%s: %v", eng.name, err)
					for range feed {
					}
					return
				}
				if len(feed) == 0 {
					eng.flush()
				}
			}
			eng.flush()
		}(eng, feeds[i])
		go func(i int, eng *engine) {
			defer wg.Done()
			for k := 0; k < n; k++ {
				line, err := eng.recv()
				if err != nil {
					errs <- err
					return
				}
				answers[i][k] = line
			}
		}(i, eng)
	}
	work := make(chan *gateObject, 256)
	for w := 0; w < run.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range work {
				t0 := time.Now()
				outcomes[o.index-first] = side.evaluate(o.review, run.tracked(o))
				if d := time.Since(t0); d > 200*time.Millisecond && os.Getenv("GATE_DEBUG") != "" {
					fmt.Fprintf(os.Stderr, "slow: object %d (%s, %d bytes, huge %v, tracked %v): %v\n", o.index, o.shape.kind, len(o.line), o.huge, run.tracked(o), d)
				}
			}
		}()
	}
	for i := first; i < last; i++ {
		o := makeObject(run.seed, i, cfg)
		objs[i-first] = o
		for _, feed := range feeds {
			feed <- o.line
		}
		work <- o
	}
	for _, feed := range feeds {
		close(feed)
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	for _, eng := range engines {
		if err := eng.stop(); err != nil {
			return err
		}
	}
	for k, o := range objs {
		j := judgement{outcomes: outcomes[k], answers: map[string]answer{}}
		for i, e := range names {
			j.answers[e] = parseAnswer(answers[i][k])
		}
		run.count1(o, cfg, doc, j, covered)
		objs[k] = nil
	}
	return nil
}

// count1 judges one object of a run and counts it.
func (run *gateRun) count1(o *gateObject, cfg *gateConfig, doc string, j judgement, covered map[string]bool) {
	st := run.st
	st.objects++
	if o.op == "CREATE" {
		st.creates++
	} else {
		st.updates++
	}
	if o.huge {
		st.huge++
	}
	if o.tags["hostile"] {
		st.hostile++
	}
	plain := true
	for t := range o.tags {
		if strings.HasPrefix(t, "construct:") || strings.HasPrefix(t, "class:") {
			plain = false
		}
	}
	if plain {
		st.plain++
	}
	st.shapes[o.shape.kind+"."+o.shape.group+"/"+o.shape.resource]++
	fs := judge(o, cfg, j, run.classes, st)
	for _, f := range fs {
		st.failures[f.check]++
		si := st.signatures[f.signature]
		if si == nil {
			si = &sigInfo{first: &failedObject{o: o, cfg: cfg, doc: doc, failure: f}}
			st.signatures[f.signature] = si
			if !run.quiet {
				fmt.Printf("gate: FAIL %s %s: object %d (%s %s): %s\n", f.check, f.entry, o.index,
					o.op, o.shape.kind, f.detail)
			}
		}
		si.count++
	}
}

// summary prints what the run did.
func (run *gateRun) summary(elapsed time.Duration) {
	st := run.st
	fmt.Printf("gate: seed %d: %d objects (%d CREATE, %d UPDATE; %d kinds; %d with nulls, wrong types or empty members; %d huge) in %.1f s\n",
		run.seed, st.objects, st.creates, st.updates, len(st.shapes), st.hostile, st.huge, elapsed.Seconds())
	fmt.Printf("gate: configs: %d default, %d all deny, %d random\n",
		st.scenarios["default"], st.scenarios["deny"], st.scenarios["random"])
	for _, e := range gateEntries {
		fmt.Printf("gate: %s.gpumend.io: acts on %d, matched %d, highest cost %d\n", e, st.acted[e], st.matched[e], st.maxCost[e])
	}
	fmt.Printf("gate: %d objects with no legacy construct and no near-miss; %d internal failures of the engine on huge objects\n",
		st.plain, st.internal)
	var cl []string
	for c := range st.classes {
		cl = append(cl, c)
	}
	sort.Strings(cl)
	for _, c := range cl {
		fmt.Printf("gate: over-approximation %s: %d\n", c, st.classes[c])
	}
	checks := []string{"superset", "unrouted", "error", "budget", "selectivity", "engine"}
	var parts []string
	for _, c := range checks {
		parts = append(parts, fmt.Sprintf("%s %d", c, st.failures[c]))
	}
	fmt.Printf("gate: failures: %s\n", strings.Join(parts, ", "))
	var sigs []string
	for s := range st.signatures {
		sigs = append(sigs, s)
	}
	sort.Slice(sigs, func(a, b int) bool {
		if st.signatures[sigs[a]].count != st.signatures[sigs[b]].count {
			return st.signatures[sigs[a]].count > st.signatures[sigs[b]].count
		}
		return sigs[a] < sigs[b]
	})
	for _, s := range sigs {
		si := st.signatures[s]
		fmt.Printf("gate: %6d  %s  (first: object %d)\n", si.count, s, si.first.o.index)
	}
	fmt.Printf("gate: reproduce with GATE_SEED=%d GATE_COUNT=%d make gate\n", run.seed, run.count)
}
