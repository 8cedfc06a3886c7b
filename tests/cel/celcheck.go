// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// celcheck.go - evaluates CEL as kube-apiserver does, with cel-go (Debian's
// golang-github-google-cel-go-dev), for the test suites:
//
//	celcheck match -config CONFIG.json [-ops CREATE,UPDATE] REVIEW.json...
//	    for each review (as each operation of -ops; default: as written)
//	    and each webhook of the MutatingWebhookConfiguration, one line:
//	    REVIEW <TAB> OPERATION <TAB> WEBHOOK <TAB> POLICY <TAB> RESULT
//	    <TAB> COST <TAB> DETAIL, RESULT being match, nomatch (DETAIL: the
//	    first false condition), unregistered (no rule covers it),
//	    unselected, reject (an evaluation error or a budget overrun under
//	    Fail) or skip (the same under Ignore); COST is the runtime cost of
//	    the webhook's conditions.
//	celcheck wrap -out DIR [-ops CREATE,UPDATE] FILE...
//	    every object of the YAML or JSON FILEs (each document; each item of
//	    a List; the object of an AdmissionReview) as an AdmissionReview of
//	    each operation (default CREATE; an UPDATE's oldObject is the object
//	    itself), DIR/NNNNN.OPERATION.json; one line per object:
//	    DIR/NNNNN <TAB> FILE#DOCUMENT[.ITEM] <TAB> KIND <TAB> GROUP (the
//	    apiVersion's group, "" for the core group).
//	celcheck selector -expr EXPR [-limit N] DEVICE.json...
//	    a DRA device selector over devices ({"driver", "attributes",
//	    "capacity"}): DEVICE <TAB> true|false|error <TAB> COST <TAB> DETAIL.
//	celcheck budget
//	    the API server's figures: PerCallLimit and the matchConditions
//	    budget, one per line.
//	celcheck gate -gpumend GPUMEND [-seed N] [-count N] ...
//	    `make gate`: generated objects, the registration's conditions
//	    against `gpumend review --batch --entry` (gate.go).
//
// Exit 0, or 2 on an error (unreadable input, a condition that does not
// compile), saying where.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/cel-go/cel"
	"gopkg.in/yaml.v3"
)

func die(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "celcheck: error: "+format+"\n", args...)
	os.Exit(2)
}

// asList: a JSON array, or nothing.
func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// numbers turns json.Number into int64 (integers) or float64, as the API
// server's unstructured objects hold them.
func numbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case map[string]any:
		for k, e := range t {
			t[k] = numbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = numbers(e)
		}
	}
	return v
}

// readJSON reads one JSON value from a file.
func readJSON(path string) (any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("cannot parse '%s': %v", path, err)
	}
	return numbers(v), nil
}

// str: a string member of a JSON object ("" when absent).
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// labelsOf: metadata.labels of an object.
func labelsOf(obj any) map[string]string {
	out := map[string]string{}
	m, _ := obj.(map[string]any)
	meta, _ := m["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	for k, v := range labels {
		out[k], _ = v.(string)
	}
	return out
}

// requestVar is `request` as the API server gives it: every field of its
// AdmissionRequest type present (zero when the review lacks it).
func requestVar(req map[string]any, op string) map[string]any {
	out := map[string]any{}
	for _, f := range requestFields {
		switch f {
		case "kind", "resource", "requestKind", "requestResource", "userInfo", "options":
			if v, ok := req[f].(map[string]any); ok {
				out[f] = v
			} else {
				out[f] = map[string]any{}
			}
		case "dryRun":
			b, _ := req[f].(bool)
			out[f] = b
		default:
			out[f] = str(req, f)
		}
	}
	out["operation"] = op
	return out
}

func cmdMatch(args []string) {
	fs := flag.NewFlagSet("match", flag.ExitOnError)
	configPath := fs.String("config", "", "the MutatingWebhookConfiguration (JSON)")
	ops := fs.String("ops", "", "evaluate each review as these operations (comma-separated)")
	fs.Parse(args)
	if *configPath == "" {
		die("match: -config is required")
	}
	config, err := readJSON(*configPath)
	if err != nil {
		die("%v", err)
	}
	cm, ok := config.(map[string]any)
	if !ok {
		die("'%s': not a JSON object", *configPath)
	}
	env, err := admissionEnv()
	if err != nil {
		die("the CEL environment: %v", err)
	}
	hooks, err := loadWebhooks(env, cm)
	if err != nil {
		die("'%s': %v", *configPath, err)
	}
	out := bufferedStdout()
	defer out.Flush()
	for _, path := range fs.Args() {
		v, err := readJSON(path)
		review, _ := v.(map[string]any)
		req, ok := review["request"].(map[string]any)
		if err != nil || !ok {
			/* the API server sends no such body: nothing to match */
			why := "no /request object"
			if err != nil {
				why = err.Error()
			}
			fmt.Fprintf(out, "%s\t-\t-\t-\tunreadable\t0\t%s\n", path, oneLine(why))
			continue
		}
		operations := []string{str(req, "operation")}
		if *ops != "" {
			operations = strings.Split(*ops, ",")
		}
		for _, op := range operations {
			object, oldObject := req["object"], req["oldObject"]
			switch op {
			case "CREATE", "CONNECT":
				oldObject = nil
			case "UPDATE":
				if oldObject == nil {
					oldObject = object
				}
			case "DELETE":
				if oldObject == nil {
					oldObject = object
				}
				object = nil
			}
			kind, _ := req["kind"].(map[string]any)
			resource, _ := req["resource"].(map[string]any)
			res := str(resource, "resource")
			if res == "" {
				res = pluralOf(str(kind, "kind"))
			}
			gvr := [4]string{str(kind, "group"), str(kind, "version"), res, str(req, "subResource")}
			labelSource := object
			if labelSource == nil {
				labelSource = oldObject
			}
			ns := str(req, "namespace")
			nsLabels := map[string]string{"kubernetes.io/metadata.name": ns}
			vars := map[string]any{
				"object": object, "oldObject": oldObject,
				"request": requestVar(req, op), "namespaceObject": nil,
			}
			for _, h := range hooks {
				o := h.evaluate(op, gvr, labelsOf(labelSource), nsLabels, vars)
				fmt.Fprintf(out, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", path, op, h.name, h.policy,
					o.result, o.cost, oneLine(o.detail))
			}
		}
	}
}

// oneLine: text on one line of a TSV field.
func oneLine(s string) string {
	if s == "" {
		return "-"
	}
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}

// pluralOf: the resource name of a kind, as the API server's REST mapper
// names the built-in ones (lowercase, plural).
func pluralOf(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case k == "":
		return ""
	case strings.HasSuffix(k, "y") && !strings.HasSuffix(k, "ey"):
		return k[:len(k)-1] + "ies"
	case strings.HasSuffix(k, "s"), strings.HasSuffix(k, "x"):
		return k + "es"
	}
	return k + "s"
}

// yamlToJSON makes a decoded YAML value JSON-able (mapping keys that are
// not strings are written as strings, as the API server's reader does).
func yamlToJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = yamlToJSON(e)
		}
	case map[any]any:
		m := map[string]any{}
		for k, e := range t {
			m[fmt.Sprint(k)] = yamlToJSON(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = yamlToJSON(e)
		}
	}
	return v
}

// documents: the documents of a YAML (or JSON) file. JSON is read as JSON
// first (a YAML reader is not a full JSON reader: surrogate pairs).
func documents(path string) ([]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	jdec := json.NewDecoder(bytes.NewReader(data))
	jdec.UseNumber()
	var jdocs []any
	for {
		var v any
		if err := jdec.Decode(&v); err == io.EOF && len(jdocs) > 0 {
			return jdocs, nil
		} else if err != nil {
			break
		}
		jdocs = append(jdocs, numbers(v))
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []any
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return docs, fmt.Errorf("cannot parse '%s': %v", path, err)
		}
		docs = append(docs, yamlToJSON(v))
	}
}

// reviewOf: a CREATE AdmissionReview of the object, as the API server
// would send it.
func reviewOf(uid string, obj map[string]any) map[string]any {
	group, version := "", str(obj, "apiVersion")
	if i := strings.Index(version, "/"); i >= 0 {
		group, version = version[:i], version[i+1:]
	}
	kind := str(obj, "kind")
	meta, _ := obj["metadata"].(map[string]any)
	ns := str(meta, "namespace")
	if ns == "" {
		ns = "default"
	}
	gvk := map[string]any{"group": group, "version": version, "kind": kind}
	gvr := map[string]any{"group": group, "version": version, "resource": pluralOf(kind)}
	return map[string]any{
		"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
		"request": map[string]any{
			"uid": uid, "kind": gvk, "resource": gvr, "requestKind": gvk, "requestResource": gvr,
			"name": str(meta, "name"), "namespace": ns, "operation": "CREATE",
			"userInfo": map[string]any{"username": "system:serviceaccount:ci:test"},
			"object":   obj, "oldObject": nil, "dryRun": false,
			"options": map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"},
		},
	}
}

func cmdWrap(args []string) {
	fs := flag.NewFlagSet("wrap", flag.ExitOnError)
	dir := fs.String("out", "", "the folder to write the reviews to")
	ops := fs.String("ops", "CREATE", "the operations to write a review of (comma-separated)")
	fs.Parse(args)
	if *dir == "" {
		die("wrap: -out is required")
	}
	out := bufferedStdout()
	defer out.Flush()
	n := 0
	emit := func(origin string, v any) {
		obj, ok := v.(map[string]any)
		if !ok || str(obj, "kind") == "" || str(obj, "apiVersion") == "" {
			return
		}
		n++
		base := filepath.Join(*dir, fmt.Sprintf("%05d", n))
		for _, op := range strings.Split(*ops, ",") {
			review := reviewOf(fmt.Sprintf("cel-%05d-%s", n, op), obj)
			req := review["request"].(map[string]any)
			req["operation"] = op
			if op == "UPDATE" {
				req["oldObject"] = obj
				req["options"] = map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "UpdateOptions"}
			}
			data, err := json.Marshal(review)
			if err != nil {
				die("%s: %v", origin, err)
			}
			if err := os.WriteFile(base+"."+op+".json", data, 0o644); err != nil {
				die("cannot write '%s': %v", base+"."+op+".json", err)
			}
		}
		group := str(obj, "apiVersion")
		if slash := strings.IndexByte(group, '/'); slash >= 0 {
			group = group[:slash]
		} else {
			group = ""
		}
		fmt.Fprintf(out, "%s\t%s\t%s\t%s\n", base, origin, str(obj, "kind"), group)
	}
	for _, path := range fs.Args() {
		docs, err := documents(path)
		if err != nil {
			/* the documents before the error still count */
			fmt.Fprintf(os.Stderr, "celcheck: %v\n", err)
		}
		for i, d := range docs {
			origin := fmt.Sprintf("%s#%d", path, i)
			if m, ok := d.(map[string]any); ok && str(m, "kind") == "AdmissionReview" {
				req, _ := m["request"].(map[string]any)
				emit(origin, req["object"])
				continue
			}
			if m, ok := d.(map[string]any); ok && str(m, "kind") == "List" {
				for j, item := range asList(m["items"]) {
					emit(fmt.Sprintf("%s.%d", origin, j), item)
				}
				continue
			}
			emit(origin, d)
		}
	}
}

func cmdSelector(args []string) {
	fs := flag.NewFlagSet("selector", flag.ExitOnError)
	expr := fs.String("expr", "", "the selector expression")
	limit := fs.Uint64("limit", perCallLimit, "the cost limit of one evaluation")
	fs.Parse(args)
	env, err := selectorEnv()
	if err != nil {
		die("the CEL environment: %v", err)
	}
	ast, iss := env.Compile(*expr)
	if iss != nil && iss.Err() != nil {
		die("the selector does not compile: %v", iss.Err())
	}
	if t := ast.OutputType(); !t.IsExactType(cel.BoolType) && !t.IsExactType(cel.DynType) {
		die("the selector must evaluate to bool, not %v", t)
	}
	prg, err := env.Program(ast, programOptions(*limit)...)
	if err != nil {
		die("the selector: %v", err)
	}
	out := bufferedStdout()
	defer out.Flush()
	for _, path := range fs.Args() {
		device, err := readJSON(path)
		if err != nil {
			die("%v", err)
		}
		val, details, err := prg.Eval(map[string]any{"device": device})
		var cost uint64
		if details != nil && details.ActualCost() != nil {
			cost = *details.ActualCost()
		}
		if err != nil {
			fmt.Fprintf(out, "%s\terror\t%d\t%s\n", path, cost, oneLine(err.Error()))
			continue
		}
		b, ok := val.Value().(bool)
		if !ok {
			fmt.Fprintf(out, "%s\terror\t%d\tnot a bool: %T\n", path, cost, val.Value())
			continue
		}
		fmt.Fprintf(out, "%s\t%t\t%d\t-\n", path, b, cost)
	}
}

func cmdBudget(args []string) {
	fmt.Printf("perCallLimit\t%d\nmatchConditionsBudget\t%d\n", perCallLimit, matchConditionsBudget)
}

// commands: the subcommands, by name.
var commands = []struct {
	name string
	run  func([]string)
}{
	{"match", cmdMatch},
	{"wrap", cmdWrap},
	{"selector", cmdSelector},
	{"budget", cmdBudget},
	{"gate", cmdGate},
}

func main() {
	if len(os.Args) >= 2 {
		for _, c := range commands {
			if c.name == os.Args[1] {
				c.run(os.Args[2:])
				return
			}
		}
	}
	die("usage: celcheck match|wrap|selector|budget|gate ... (see tests/cel/celcheck.go)")
}
