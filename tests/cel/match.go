// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// match.go - evaluates the webhooks of a MutatingWebhookConfiguration for
// AdmissionReviews as the API server does: rules, selectors, then every
// matchCondition within the cost budget.
package main

import (
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
)

// condition is one compiled matchCondition: with the API server's cost
// limit and tracking, and without (fast: the same answer, but for a cost
// over the limit, in a fraction of the time: cel-go 0.18 plans the
// program again for every tracked evaluation).
type condition struct {
	name    string
	program cel.Program
	fast    cel.Program
}

// ruleOfWebhook is one RuleWithOperations of a webhook.
type ruleOfWebhook struct {
	operations, apiGroups, apiVersions, resources []string
}

// webhook is one entry of the configuration, ready to evaluate.
type webhook struct {
	name, policy      string
	equivalent        bool
	rules             []ruleOfWebhook
	objectSelector    *labelSelector
	namespaceSelector *labelSelector
	conditions        []condition
}

// outcome is what the API server does with one object for one webhook.
type outcome struct {
	result string // match, nomatch, unregistered, unselected, reject, skip
	cost   uint64
	detail string
}

// strs reads a JSON array of strings (nothing for anything else).
func strs(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, s := range list {
		if str, ok := s.(string); ok {
			out = append(out, str)
		}
	}
	return out
}

// loadWebhooks reads the webhooks of a MutatingWebhookConfiguration (or of
// the one such object in a List) and compiles their conditions; an
// expression that does not compile is an error naming it.
func loadWebhooks(env *cel.Env, config map[string]any) ([]*webhook, error) {
	if config["kind"] == "List" {
		var found map[string]any
		for _, item := range asList(config["items"]) {
			if m, ok := item.(map[string]any); ok && m["kind"] == "MutatingWebhookConfiguration" {
				found = m
			}
		}
		if found == nil {
			return nil, fmt.Errorf("the List holds no MutatingWebhookConfiguration")
		}
		config = found
	}
	if config["kind"] != "MutatingWebhookConfiguration" {
		return nil, fmt.Errorf("kind is %v, not MutatingWebhookConfiguration", config["kind"])
	}
	var hooks []*webhook
	for i, w := range asList(config["webhooks"]) {
		wm, ok := w.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("/webhooks/%d: not an object", i)
		}
		h := &webhook{policy: "Fail", equivalent: true}
		h.name, _ = wm["name"].(string)
		if p, ok := wm["failurePolicy"].(string); ok {
			h.policy = p
		}
		if p, ok := wm["matchPolicy"].(string); ok && p == "Exact" {
			h.equivalent = false
		}
		for _, r := range asList(wm["rules"]) {
			rm, _ := r.(map[string]any)
			h.rules = append(h.rules, ruleOfWebhook{
				operations: strs(rm["operations"]), apiGroups: strs(rm["apiGroups"]),
				apiVersions: strs(rm["apiVersions"]), resources: strs(rm["resources"]),
			})
		}
		var err error
		if h.objectSelector, err = newLabelSelector(wm["objectSelector"]); err != nil {
			return nil, fmt.Errorf("/webhooks/%d/objectSelector: %v", i, err)
		}
		if h.namespaceSelector, err = newLabelSelector(wm["namespaceSelector"]); err != nil {
			return nil, fmt.Errorf("/webhooks/%d/namespaceSelector: %v", i, err)
		}
		conds := asList(wm["matchConditions"])
		if len(conds) > 64 {
			return nil, fmt.Errorf("/webhooks/%d/matchConditions: %d conditions, the API allows 64", i, len(conds))
		}
		for j, c := range conds {
			cm, _ := c.(map[string]any)
			name, _ := cm["name"].(string)
			expr, _ := cm["expression"].(string)
			prg, fast, err := compileCondition(env, expr)
			if err != nil {
				return nil, fmt.Errorf("/webhooks/%d/matchConditions/%d (%s/%s): %v", i, j, h.name, name, err)
			}
			h.conditions = append(h.conditions, condition{name: name, program: prg, fast: fast})
		}
		hooks = append(hooks, h)
	}
	if len(hooks) == 0 {
		return nil, fmt.Errorf("/webhooks: no webhook")
	}
	return hooks, nil
}

// compileCondition compiles one expression as the API server does: it
// must be bool (or dyn), and `request` is typed, so an unknown field of it
// does not compile. Returns its program with the cost limit, and one
// without.
func compileCondition(env *cel.Env, expr string) (cel.Program, cel.Program, error) {
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return nil, nil, fmt.Errorf("compilation failed: %v", iss.Err())
	}
	if t := ast.OutputType(); !t.IsExactType(cel.BoolType) && !t.IsExactType(cel.DynType) {
		return nil, nil, fmt.Errorf("must evaluate to bool, not %v", t)
	}
	if err := checkRequestFields(ast); err != nil {
		return nil, nil, err
	}
	prg, err := env.Program(ast, programOptions(perCallLimit)...)
	if err != nil {
		return nil, nil, err
	}
	fast, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize))
	return prg, fast, err
}

// checkRequestFields fails on a `request.X` whose X the API server's
// AdmissionRequest type does not have.
func checkRequestFields(a *cel.Ast) error {
	selects := celast.MatchDescendants(celast.NavigateAST(a.NativeRep()),
		celast.KindMatcher(celast.SelectKind))
	for _, e := range selects {
		sel := e.AsSelect()
		op := sel.Operand()
		if op.Kind() != celast.IdentKind || op.AsIdent() != "request" {
			continue
		}
		known := false
		for _, f := range requestFields {
			known = known || f == sel.FieldName()
		}
		if !known {
			return fmt.Errorf("compilation failed: request has no field '%s'", sel.FieldName())
		}
	}
	return nil
}

// listHas: whether the rule's list holds the value or "*".
func listHas(list []string, v string) bool {
	for _, s := range list {
		if s == "*" || s == v {
			return true
		}
	}
	return false
}

// groupEquivalents are the groups that serve the same resources (under
// matchPolicy Equivalent the API server sends a request made through one
// to a rule written for the other).
var groupEquivalents = map[string]string{"extensions": "apps"}

// registered: whether a rule of the webhook covers the request.
func (h *webhook) registered(op, group, version, resource, sub string) bool {
	full := resource
	if sub != "" {
		full = resource + "/" + sub
	}
	for _, r := range h.rules {
		if !listHas(r.operations, op) {
			continue
		}
		groupOK := listHas(r.apiGroups, group)
		if !groupOK && h.equivalent {
			if eq, ok := groupEquivalents[group]; ok {
				groupOK = listHas(r.apiGroups, eq)
			}
		}
		if !groupOK || (!h.equivalent && !listHas(r.apiVersions, version)) {
			continue
		}
		for _, res := range r.resources {
			if res == "*" && sub == "" || res == full || res == "*/*" ||
				strings.HasSuffix(res, "/*") && strings.TrimSuffix(res, "/*") == resource && sub != "" ||
				strings.HasPrefix(res, "*/") && strings.TrimPrefix(res, "*/") == sub {
				return true
			}
		}
	}
	return false
}

// evaluate tells what the API server does with the request for this
// webhook. vars are the CEL variables (object, oldObject, request,
// namespaceObject).
func (h *webhook) evaluate(op string, gvr [4]string, labels, nsLabels map[string]string, vars map[string]any) outcome {
	return h.evaluateWith(true, op, gvr, labels, nsLabels, vars)
}

// evaluateWith: evaluate, with the cost tracked and limited (track), or
// not: then the cost is 0, and the answer the API server's for any object
// that stays within the limits.
func (h *webhook) evaluateWith(track bool, op string, gvr [4]string, labels, nsLabels map[string]string, vars map[string]any) outcome {
	if !h.registered(op, gvr[0], gvr[1], gvr[2], gvr[3]) {
		return outcome{result: "unregistered", detail: "no rule covers " + op + " " + gvr[0] + "/" + gvr[1] + " " + gvr[2]}
	}
	if !h.namespaceSelector.matches(nsLabels) {
		return outcome{result: "unselected", detail: "namespaceSelector"}
	}
	if !h.objectSelector.matches(labels) {
		return outcome{result: "unselected", detail: "objectSelector"}
	}
	remaining := uint64(matchConditionsBudget)
	var total uint64
	var errs []string
	falseName := ""
	for _, c := range h.conditions {
		if !track {
			out, _, err := c.fast.Eval(vars)
			if err == nil {
				if b, ok := out.Value().(bool); !ok {
					err = fmt.Errorf("must return bool, got %T", out.Value())
				} else if !b && falseName == "" {
					falseName = c.name
				}
			}
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", c.name, err))
			}
			continue
		}
		out, details, err := c.program.Eval(vars)
		if details != nil && details.ActualCost() != nil {
			cost := *details.ActualCost()
			total += cost
			if cost > remaining {
				return h.failed(total, fmt.Sprintf("cost %d over the budget of %d (condition %s): validation failed due to running out of cost budget", total, matchConditionsBudget, c.name))
			}
			remaining -= cost
		} else if err == nil {
			err = fmt.Errorf("runtime cost could not be calculated")
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", c.name, err))
			continue
		}
		b, ok := out.Value().(bool)
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: must return bool, got %T", c.name, out.Value()))
			continue
		}
		if !b && falseName == "" {
			falseName = c.name
		}
	}
	if falseName != "" {
		return outcome{result: "nomatch", cost: total, detail: falseName}
	}
	if len(errs) > 0 {
		return h.failed(total, strings.Join(errs, "; "))
	}
	return outcome{result: "match", cost: total}
}

// failed: an evaluation error under the webhook's failure policy.
func (h *webhook) failed(cost uint64, why string) outcome {
	if h.policy == "Ignore" {
		return outcome{result: "skip", cost: cost, detail: why}
	}
	return outcome{result: "reject", cost: cost, detail: why}
}
