// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// helm-template - a stand-in for `helm template`, for the tests only: no
// helm binary can be had on the machines the tests run on, so the Helm
// charts the tests hold are rendered by this program, on Go's own
// text/template with sprig's functions (the library Helm uses, from
// Debian's golang-github-masterminds-sprig-dev) and Helm's own functions,
// written from Helm's documentation.
//
//	helm-template render CHART [-f VALUES]... [--set K=V]...
//	                     [--set-string K=V]... [--set-file K=FILE]...
//	                     [-n NAMESPACE] [--kube-version X.Y[.Z]] [VALUES...]
//	    the chart's templates rendered as `helm template` prints them:
//	    "---", "# Source: CHART/templates/FILE", the document;
//	    .Release.Namespace is NAMESPACE (default "default"),
//	    .Capabilities.KubeVersion X.Y.Z (default 1.30.0)
//	helm-template notes CHART [the options of render]
//	    the chart's templates/NOTES.txt rendered as `helm install` prints
//	    it (the other templates parsed, not run); nothing without one
//	helm-template values CHART [the options of render]
//	    the values the templates would see, as one line of JSON
//	helm-template json FILE
//	    each YAML document of FILE as one line of JSON, keys sorted, null
//	    members left out (empty documents too)
//	helm-template actions FILE
//	    each {{ ... }} action of FILE on a line, in order (newlines as \n)
//	helm-template valuesets CHART
//	    the --set arguments of the value sets a chart's conditionals are
//	    tried under, one set a line: each boolean of values.yaml flipped
//	    alone, then all of them true, then all false (sets equal to the
//	    defaults or to an earlier line left out)
//
// Exit status 0, or 2 with a message on stderr.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	yaml "gopkg.in/yaml.v2"
)

func die(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "helm-template: "+format+"\n", args...)
	os.Exit(2)
}

func main() {
	if len(os.Args) < 2 {
		die("usage: helm-template render|notes|values|json|actions|valuesets ...")
	}
	var err error
	switch os.Args[1] {
	case "render":
		err = cmdRender(os.Args[2:], os.Stdout, false)
	case "notes":
		err = cmdRender(os.Args[2:], os.Stdout, true)
	case "values":
		err = cmdValues(os.Args[2:], os.Stdout)
	case "json":
		err = cmdJSON(os.Args[2:], os.Stdout)
	case "actions":
		err = cmdActions(os.Args[2:], os.Stdout)
	case "valuesets":
		err = cmdValueSets(os.Args[2:], os.Stdout)
	default:
		die("usage: helm-template render|notes|values|json|actions|valuesets ...")
	}
	if err != nil {
		die("%v", err)
	}
}

// ---------------------------------------------------------------- values

// plain turns what yaml.v2 reads (maps keyed by interface{}) into what
// Helm's values are: maps keyed by string, all the way down.
func plain(v interface{}) interface{} {
	switch x := v.(type) {
	case map[interface{}]interface{}:
		m := make(map[string]interface{}, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = plain(e)
		}
		return m
	case map[string]interface{}:
		for k, e := range x {
			x[k] = plain(e)
		}
		return x
	case []interface{}:
		for i, e := range x {
			x[i] = plain(e)
		}
		return x
	}
	return v
}

func readValues(file string) (map[string]interface{}, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var v interface{}
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if v == nil {
		return map[string]interface{}{}, nil
	}
	m, ok := plain(v).(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("%s: values must be a mapping", file)
	}
	return m, nil
}

// merge lays `over` onto `base` as Helm coalesces values: mappings merge
// key by key, anything else replaces, and null deletes the key.
func merge(base, over map[string]interface{}) map[string]interface{} {
	for k, v := range over {
		if v == nil {
			delete(base, k)
			continue
		}
		bm, bok := base[k].(map[string]interface{})
		om, ook := v.(map[string]interface{})
		if bok && ook {
			base[k] = merge(bm, om)
		} else {
			base[k] = v
		}
	}
	return base
}

// setValue applies one --set: KEY.PATH=VALUE, typed as Helm types it
// (integers, booleans and null; everything else a string) unless asString.
func setValue(vals map[string]interface{}, expr string, asString bool) error {
	eq := strings.IndexByte(expr, '=')
	if eq <= 0 {
		return fmt.Errorf("--set %q: want KEY=VALUE", expr)
	}
	keys := strings.Split(expr[:eq], ".")
	raw := expr[eq+1:]
	var v interface{} = raw
	if !asString {
		switch {
		case raw == "true":
			v = true
		case raw == "false":
			v = false
		case raw == "null":
			v = nil
		default:
			if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
				v = n
			}
		}
	}
	m := vals
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]interface{})
		if !ok {
			next = map[string]interface{}{}
			m[k] = next
		}
		m = next
	}
	last := keys[len(keys)-1]
	if v == nil {
		delete(m, last)
	} else {
		m[last] = v
	}
	return nil
}

// ------------------------------------------------------------ the chart

// files is .Files: every file of the chart outside templates/.
type files map[string][]byte

func (f files) GetBytes(name string) []byte { return f[name] }
func (f files) Get(name string) string      { return string(f[name]) }

func (f files) Glob(pattern string) files {
	out := files{}
	for name, data := range f {
		if ok, _ := path.Match(pattern, name); ok {
			out[name] = data
		}
	}
	return out
}

func (f files) names() []string {
	var names []string
	for name := range f {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func (f files) Lines(name string) []string {
	s := string(f[name])
	if s == "" {
		return []string{}
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func (f files) AsConfig() string {
	m := map[string]string{}
	for _, name := range f.names() {
		m[path.Base(name)] = string(f[name])
	}
	return toYAML(m)
}

func (f files) AsSecrets() string {
	m := map[string]string{}
	for _, name := range f.names() {
		m[path.Base(name)] = b64(f[name])
	}
	return toYAML(m)
}

func b64(data []byte) string {
	return sprig.TxtFuncMap()["b64enc"].(func(string) string)(string(data))
}

// apiVersions is .Capabilities.APIVersions.
type apiVersions []string

func (a apiVersions) Has(v string) bool {
	for _, x := range a {
		if x == v {
			return true
		}
	}
	return false
}

// kubeVersion is .Capabilities.KubeVersion.
type kubeVersion struct {
	Version, Major, Minor, GitVersion string
}

func (k kubeVersion) String() string { return k.Version }

// parseKubeVersion reads --kube-version as Helm does: "1.27", "v1.27.3".
func parseKubeVersion(v string) (kubeVersion, error) {
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return kubeVersion{}, fmt.Errorf("--kube-version %q: want MAJOR.MINOR[.PATCH]", v)
	}
	for len(parts) < 3 {
		parts = append(parts, "0")
	}
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err != nil {
			return kubeVersion{}, fmt.Errorf("--kube-version %q: want MAJOR.MINOR[.PATCH]", v)
		}
	}
	full := "v" + strings.Join(parts, ".")
	return kubeVersion{Version: full, Major: parts[0], Minor: parts[1], GitVersion: full}, nil
}

var defaultAPIVersions = apiVersions{
	"v1", "apps/v1", "batch/v1", "policy/v1", "autoscaling/v1",
	"autoscaling/v2", "networking.k8s.io/v1", "rbac.authorization.k8s.io/v1",
	"storage.k8s.io/v1", "scheduling.k8s.io/v1", "coordination.k8s.io/v1",
	"admissionregistration.k8s.io/v1", "apiextensions.k8s.io/v1",
	"certificates.k8s.io/v1", "discovery.k8s.io/v1", "node.k8s.io/v1",
	"resource.k8s.io/v1",
}

type chart struct {
	dir       string
	name      string
	meta      map[string]interface{}
	templates map[string]string // "NAME/templates/FILE" -> text
	files     files
}

// capitalised: Chart.yaml's keys as Helm's Chart object spells them
// (.Chart.Name, .Chart.AppVersion).
func capitalised(m map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(m))
	for k, v := range m {
		if k == "" {
			continue
		}
		out[strings.ToUpper(k[:1])+k[1:]] = v
	}
	return out
}

func loadChart(dir string) (*chart, error) {
	meta := map[string]interface{}{}
	if data, err := os.ReadFile(filepath.Join(dir, "Chart.yaml")); err == nil {
		var v interface{}
		if err := yaml.Unmarshal(data, &v); err != nil {
			return nil, fmt.Errorf("%s/Chart.yaml: %v", dir, err)
		}
		if m, ok := plain(v).(map[string]interface{}); ok {
			meta = m
		}
	}
	name, _ := meta["name"].(string)
	if name == "" {
		abs, _ := filepath.Abs(dir)
		name = filepath.Base(abs)
		meta["name"] = name
	}
	c := &chart{dir: dir, name: name, meta: capitalised(meta),
		templates: map[string]string{}, files: files{}}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if info.IsDir() {
			if rel == "charts" {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasPrefix(rel, "templates/") {
			c.templates[name+"/"+rel] = string(data)
		} else if rel != "Chart.yaml" && !strings.HasPrefix(rel, "values") {
			c.files[rel] = data
		}
		return nil
	})
	return c, err
}

// ------------------------------------------------------------ functions

func toYAML(v interface{}) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func fromYAML(s string) map[string]interface{} {
	var v interface{}
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		return map[string]interface{}{"Error": err.Error()}
	}
	m, ok := plain(v).(map[string]interface{})
	if !ok {
		return map[string]interface{}{}
	}
	return m
}

func fromYAMLArray(s string) []interface{} {
	var v []interface{}
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		return []interface{}{err.Error()}
	}
	return plain(v).([]interface{})
}

func toJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

func fromJSON(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJSONArray(s string) []interface{} {
	var a []interface{}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return []interface{}{err.Error()}
	}
	return a
}

func required(warn string, v interface{}) (interface{}, error) {
	if v == nil {
		return nil, errors.New(warn)
	}
	if s, ok := v.(string); ok && s == "" {
		return nil, errors.New(warn)
	}
	return v, nil
}

// engine renders one chart: every template parsed into one set, so that
// define, template and include see every partial.
type engine struct {
	set   *template.Template
	depth int
}

const maxIncludeDepth = 1000

func (e *engine) funcs() template.FuncMap {
	f := sprig.TxtFuncMap()
	// Helm leaves these out: a chart must not read the environment.
	delete(f, "env")
	delete(f, "expandenv")
	f["toYaml"] = toYAML
	f["fromYaml"] = fromYAML
	f["fromYamlArray"] = fromYAMLArray
	f["toJson"] = toJSON
	f["fromJson"] = fromJSON
	f["fromJsonArray"] = fromJSONArray
	f["required"] = required
	f["lookup"] = func(string, string, string, string) (map[string]interface{}, error) {
		return map[string]interface{}{}, nil
	}
	f["include"] = func(name string, data interface{}) (string, error) {
		if e.depth >= maxIncludeDepth {
			return "", fmt.Errorf("include %q: nested too deep", name)
		}
		e.depth++
		defer func() { e.depth-- }()
		var b bytes.Buffer
		if err := e.set.ExecuteTemplate(&b, name, data); err != nil {
			return "", err
		}
		return b.String(), nil
	}
	f["tpl"] = func(text string, data interface{}) (string, error) {
		set, err := e.set.Clone()
		if err != nil {
			return "", err
		}
		t, err := set.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		inner := &engine{set: set, depth: e.depth}
		t.Funcs(inner.funcs())
		var b bytes.Buffer
		if err := t.Execute(&b, data); err != nil {
			return "", err
		}
		return strings.ReplaceAll(b.String(), "<no value>", ""), nil
	}
	return f
}

// documents splits a template's output as Helm does, on lines that are
// "---", and drops the empty ones.
var separator = regexp.MustCompile(`(?m)^---[ \t]*$`)

func documents(out string) []string {
	var docs []string
	for _, d := range separator.Split(out, -1) {
		if strings.TrimSpace(d) != "" {
			docs = append(docs, strings.Trim(d, "\n"))
		}
	}
	return docs
}

// invocation is what render and values read from their arguments: the
// chart, its values merged as Helm merges them, the release namespace.
type invocation struct {
	c         *chart
	vals      map[string]interface{}
	namespace string
	kube      kubeVersion
}

func readInvocation(args []string) (*invocation, error) {
	var dir string
	var valueFiles, sets, setStrings, setFiles []string
	namespace := "default"
	kube := kubeVersion{Version: "v1.30.0", Major: "1", Minor: "30", GitVersion: "v1.30.0"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", a)
			}
			i++
			return args[i], nil
		}
		var err error
		var v string
		switch a {
		case "-f", "--values":
			v, err = next()
			valueFiles = append(valueFiles, v)
		case "--set":
			v, err = next()
			sets = append(sets, v)
		case "--set-string":
			v, err = next()
			setStrings = append(setStrings, v)
		case "--set-file":
			v, err = next()
			setFiles = append(setFiles, v)
		case "-n", "--namespace":
			namespace, err = next()
		case "--kube-version":
			if v, err = next(); err == nil {
				kube, err = parseKubeVersion(v)
			}
		default:
			if dir == "" {
				dir = a
			} else {
				valueFiles = append(valueFiles, a)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if dir == "" {
		return nil, errors.New("usage: helm-template render|values CHART [-f VALUES]... [--set K=V]...")
	}
	c, err := loadChart(dir)
	if err != nil {
		return nil, err
	}
	vals := map[string]interface{}{}
	if _, err := os.Stat(filepath.Join(dir, "values.yaml")); err == nil {
		if vals, err = readValues(filepath.Join(dir, "values.yaml")); err != nil {
			return nil, err
		}
	}
	for _, f := range valueFiles {
		over, err := readValues(f)
		if err != nil {
			return nil, err
		}
		vals = merge(vals, over)
	}
	for _, s := range sets {
		if err := setValue(vals, s, false); err != nil {
			return nil, err
		}
	}
	for _, s := range setStrings {
		if err := setValue(vals, s, true); err != nil {
			return nil, err
		}
	}
	// --set-file KEY=FILE: the file's text, as a string
	for _, s := range setFiles {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("--set-file %q: want KEY=FILE", s)
		}
		data, err := os.ReadFile(s[eq+1:])
		if err != nil {
			return nil, err
		}
		if err := setValue(vals, s[:eq+1]+string(data), true); err != nil {
			return nil, err
		}
	}

	return &invocation{c: c, vals: vals, namespace: namespace, kube: kube}, nil
}

// cmdValues prints the values a render would see, as JSON (what Helm
// validates against a chart's values.schema.json).
func cmdValues(args []string, w io.Writer) error {
	inv, err := readInvocation(args)
	if err != nil {
		return err
	}
	data, err := json.Marshal(inv.vals)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s\n", data)
	return nil
}

// cmdRender prints the rendered templates, or with notes NOTES.txt alone.
func cmdRender(args []string, w io.Writer, notes bool) error {
	inv, err := readInvocation(args)
	if err != nil {
		return err
	}
	c, vals, namespace := inv.c, inv.vals, inv.namespace
	e := &engine{}
	e.set = template.New("gotpl").Option("missingkey=zero")
	e.set.Funcs(e.funcs())
	var names []string
	for name := range c.templates {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, err := e.set.New(name).Parse(c.templates[name]); err != nil {
			return err
		}
	}
	top := map[string]interface{}{
		"Values": vals,
		"Release": map[string]interface{}{
			"Name": "release-name", "Namespace": namespace,
			"Service": "Helm", "Revision": 1,
			"IsInstall": true, "IsUpgrade": false,
		},
		"Chart": c.meta,
		"Capabilities": map[string]interface{}{
			"KubeVersion": inv.kube,
			"APIVersions": defaultAPIVersions,
			"HelmVersion": map[string]interface{}{"Version": "v3.15.0"},
		},
		"Files": c.files,
	}
	for _, name := range names {
		base := path.Base(name)
		if strings.HasPrefix(base, "_") || (base == "NOTES.txt") != notes {
			continue
		}
		top["Template"] = map[string]interface{}{
			"Name": name, "BasePath": c.name + "/templates",
		}
		var b bytes.Buffer
		if err := e.set.ExecuteTemplate(&b, name, top); err != nil {
			return err
		}
		out := strings.ReplaceAll(b.String(), "<no value>", "")
		if notes {
			fmt.Fprint(w, out)
			continue
		}
		for _, doc := range documents(out) {
			fmt.Fprintf(w, "---\n# Source: %s\n%s\n", name, doc)
		}
	}
	return nil
}

// ------------------------------------------------------------ json, actions

// pruned drops null members and null items' members, all the way down.
func pruned(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		for k, e := range x {
			if e == nil {
				delete(x, k)
			} else {
				x[k] = pruned(e)
			}
		}
	case []interface{}:
		for i, e := range x {
			x[i] = pruned(e)
		}
	}
	return v
}

func cmdJSON(args []string, w io.Writer) error {
	if len(args) != 1 {
		return errors.New("usage: helm-template json FILE")
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for n := 1; ; n++ {
		var v interface{}
		err := dec.Decode(&v)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: document %d: %v", args[0], n, err)
		}
		if v == nil {
			continue
		}
		if err := enc.Encode(pruned(plain(v))); err != nil {
			return err
		}
	}
}

// actionEnd is the offset just past the "}}" closing the action that
// opens at `start`: quoted strings, raw strings, characters and comments
// may hold "}}" without closing it.
func actionEnd(text string, start int) (int, error) {
	i := start + 2
	for i < len(text) {
		switch c := text[i]; {
		case strings.HasPrefix(text[i:], "/*"):
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				return 0, errors.New("unclosed comment")
			}
			i += end + 4
		case c == '"' || c == '\'':
			i++
			for i < len(text) && text[i] != c {
				if text[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case c == '`':
			end := strings.IndexByte(text[i+1:], '`')
			if end < 0 {
				return 0, errors.New("unclosed raw string")
			}
			i += end + 2
		case strings.HasPrefix(text[i:], "}}"):
			return i + 2, nil
		default:
			i++
		}
	}
	return 0, errors.New("unclosed action")
}

func cmdActions(args []string, w io.Writer) error {
	if len(args) != 1 {
		return errors.New("usage: helm-template actions FILE")
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	text := string(data)
	for pos := 0; ; {
		open := strings.Index(text[pos:], "{{")
		if open < 0 {
			return nil
		}
		start := pos + open
		end, err := actionEnd(text, start)
		if err != nil {
			line := strings.Count(text[:start], "\n") + 1
			return fmt.Errorf("%s:%d: %v", args[0], line, err)
		}
		fmt.Fprintln(w, strings.ReplaceAll(text[start:end], "\n", `\n`))
		pos = end
	}
}

// ------------------------------------------------------------ valuesets

// booleans collects the dotted paths of the boolean leaves of `m`, through
// mappings only (a list item cannot be --set by path).
func booleans(m map[string]interface{}, prefix string, out map[string]bool) {
	for k, v := range m {
		if strings.ContainsAny(k, ".=,[") {
			continue
		}
		switch x := v.(type) {
		case bool:
			out[prefix+k] = x
		case map[string]interface{}:
			booleans(x, prefix+k+".", out)
		}
	}
}

func cmdValueSets(args []string, w io.Writer) error {
	if len(args) != 1 {
		return errors.New("usage: helm-template valuesets CHART")
	}
	vals := map[string]interface{}{}
	file := filepath.Join(args[0], "values.yaml")
	if _, err := os.Stat(file); err == nil {
		var err error
		if vals, err = readValues(file); err != nil {
			return err
		}
	}
	found := map[string]bool{}
	booleans(vals, "", found)
	var paths []string
	for p := range found {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	seen := map[string]bool{"": true}
	emit := func(set func(p string) bool) {
		var b strings.Builder
		for _, p := range paths {
			if v := set(p); v != found[p] {
				fmt.Fprintf(&b, "--set %s=%t ", p, v)
			}
		}
		line := strings.TrimSpace(b.String())
		if !seen[line] {
			seen[line] = true
			fmt.Fprintln(w, line)
		}
	}
	for _, flip := range paths {
		flip := flip
		emit(func(p string) bool { return found[p] != (p == flip) })
	}
	emit(func(string) bool { return true })
	emit(func(string) bool { return false })
	return nil
}
