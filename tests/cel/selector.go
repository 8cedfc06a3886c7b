// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// selector.go - Kubernetes label selectors (matchLabels, matchExpressions),
// for the webhooks' objectSelector and namespaceSelector.
package main

import "fmt"

// requirement is one matchExpressions entry (or one matchLabels pair, as
// In with one value).
type requirement struct {
	key, operator string
	values        []string
}

// labelSelector: nil matches everything.
type labelSelector struct {
	requirements []requirement
}

// newLabelSelector reads a LabelSelector; nil (absent or empty) matches
// everything.
func newLabelSelector(v any) (*labelSelector, error) {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil, nil
	}
	s := &labelSelector{}
	if ml, ok := m["matchLabels"].(map[string]any); ok {
		for k, val := range ml {
			str, _ := val.(string)
			s.requirements = append(s.requirements, requirement{k, "In", []string{str}})
		}
	}
	for _, e := range asList(m["matchExpressions"]) {
		em, _ := e.(map[string]any)
		key, _ := em["key"].(string)
		op, _ := em["operator"].(string)
		switch op {
		case "In", "NotIn", "Exists", "DoesNotExist":
		default:
			return nil, fmt.Errorf("unknown operator '%s'", op)
		}
		s.requirements = append(s.requirements, requirement{key, op, strs(em["values"])})
	}
	return s, nil
}

// matches: whether labels satisfy every requirement.
func (s *labelSelector) matches(labels map[string]string) bool {
	if s == nil {
		return true
	}
	for _, r := range s.requirements {
		v, has := labels[r.key]
		in := false
		for _, want := range r.values {
			in = in || (has && v == want)
		}
		switch r.operator {
		case "In":
			if !in {
				return false
			}
		case "NotIn":
			if in {
				return false
			}
		case "Exists":
			if !has {
				return false
			}
		case "DoesNotExist":
			if has {
				return false
			}
		}
	}
	return true
}
