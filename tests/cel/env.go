// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// env.go - the CEL environments of celcheck: the API server's for webhook
// matchConditions, and one for DRA device selectors.
//
// The figures and the declarations follow kube-apiserver (k8s.io/apiserver):
//
//   - pkg/apis/cel/config.go: PerCallLimit = 1000000 (the cost limit of
//     one expression), RuntimeCELCostBudgetMatchConditions = 2500000 (the
//     budget of all the matchConditions of one webhook, for one object),
//     CheckFrequency = 100;
//   - pkg/admission/plugin/webhook/matchconditions/matcher.go: any false
//     condition means "not sent"; otherwise an error means a rejection
//     under Fail and "not sent" under Ignore; a budget overrun is an error
//     of the whole set;
//   - pkg/admission/plugin/cel/compile.go (createEnvForOpts): object and
//     oldObject are dyn, request is the typed AdmissionRequest,
//     namespaceObject the typed Namespace; authorizer and
//     authorizer.requestResource come with HasAuthorizer;
//   - pkg/cel/environment/base.go: the base options below (UTC time zone,
//     cross-type numeric comparisons, optional types, the strings
//     extension version 2, sets, regex literals checked at compile time,
//     has() costing 1 under the strict cost option).
//
// What is not here: the Kubernetes libraries of k8s.io/apiserver/pkg/cel/library
// (lists, regex find, url, quantity, ip, cidr, format, semver, authz) are not
// packaged in Debian, so an expression that calls one of them, or uses
// authorizer, fails to compile here with "undeclared reference": the harness
// is stricter than the API server, never laxer.
package main

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
)

const (
	// perCallLimit is the API server's PerCallLimit.
	perCallLimit = 1000000
	// matchConditionsBudget is RuntimeCELCostBudgetMatchConditions.
	matchConditionsBudget = 2500000
	// checkFrequency is CheckFrequency: comprehension iterations between
	// two checks of the cost limit.
	checkFrequency = 100
)

// requestFields are the fields of the API server's typed `request`
// (AdmissionRequest as its CEL type declares it: no uid, no object).
var requestFields = []string{
	"kind", "resource", "subResource", "requestKind", "requestResource",
	"requestSubResource", "name", "namespace", "operation", "userInfo",
	"dryRun", "options",
}

// baseOptions are the options every Kubernetes CEL environment has.
func baseOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		cel.ASTValidators(cel.ValidateRegexLiterals()),
		cel.CostEstimatorOptions(checker.PresenceTestHasCost(true)),
	}
}

// programOptions are the options every program is made with: the
// per-expression cost limit, and the cost tracking that reports it.
func programOptions(limit uint64) []cel.ProgramOption {
	return []cel.ProgramOption{
		cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
		cel.CostLimit(limit),
		cel.CostTrackerOptions(interpreter.PresenceTestHasCost(true)),
		cel.InterruptCheckFrequency(checkFrequency),
	}
}

// admissionEnv is the environment of webhook matchConditions.
func admissionEnv() (*cel.Env, error) {
	opts := append(baseOptions(),
		cel.Variable("object", cel.DynType),
		cel.Variable("oldObject", cel.DynType),
		cel.Variable("namespaceObject", cel.DynType),
		cel.Variable("request", cel.MapType(cel.StringType, cel.DynType)))
	return cel.NewEnv(opts...)
}

// selectorEnv is the environment of a DRA device selector: `device`, with
// `driver`, `attributes` (qualified name to map of attribute values) and
// `capacity` (qualified name to map of quantities, as strings here: the
// Kubernetes quantity library is not packaged).
func selectorEnv() (*cel.Env, error) {
	opts := append(baseOptions(),
		cel.Variable("device", cel.MapType(cel.StringType, cel.DynType)))
	return cel.NewEnv(opts...)
}
