package searches

import (
	"fmt"
	"strings"

	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// maxTerms bounds the terms of an objective.
const maxTerms = 10

// ParseObjective reads an objective: threshold expressions joined by "and",
// all of which must hold. Baselines and aborts make no sense for a step and
// are refused. Errors are Invalid naming the field "objective".
func ParseObjective(src string) ([]threshold.Expr, error) {
	src = strings.TrimSpace(src)
	if src == "" {
		return nil, apperr.Invalidf("objective", "is required, e.g. \"p(99) < 50ms and error_rate < 0.1%%\"")
	}
	terms := splitAnd(src)
	if len(terms) > maxTerms {
		return nil, apperr.Invalidf("objective", "has %d terms; at most %d", len(terms), maxTerms)
	}
	out := make([]threshold.Expr, 0, len(terms))
	for i, term := range terms {
		e, err := threshold.Parse(term)
		if err != nil {
			return nil, apperr.Invalidf("objective", "term %d %q: %v", i+1, term, err)
		}
		switch {
		case e.Baseline:
			return nil, apperr.Invalidf("objective", "term %d %q: a search has no baseline", i+1, term)
		case e.Abort:
			return nil, apperr.Invalidf("objective", "term %d %q: abort does not apply to a search", i+1, term)
		case e.Scoped():
			return nil, apperr.Invalidf("objective", "term %d %q: a search's steps send single requests, without a scenario's steps or checks", i+1, term)
		}
		out = append(out, e)
	}
	return out, nil
}

// splitAnd splits src at each blank-separated word "and".
func splitAnd(src string) []string {
	var terms []string
	var cur []string
	for _, w := range strings.Fields(src) {
		if w == "and" {
			terms = append(terms, strings.Join(cur, " "))
			cur = nil
			continue
		}
		cur = append(cur, w)
	}
	return append(terms, strings.Join(cur, " "))
}

// canonical writes the terms back in canonical form.
func canonical(terms []threshold.Expr) string {
	parts := make([]string, len(terms))
	for i := range terms {
		parts[i] = terms[i].String()
	}
	return strings.Join(parts, " and ")
}

// failedTerms describes the terms that did not hold.
func failedTerms(outcomes []threshold.Outcome) string {
	var parts []string
	for _, o := range outcomes {
		switch {
		case o.Error != "":
			parts = append(parts, fmt.Sprintf("%s: %s", o.Expression, o.Error))
		case !o.Pass:
			parts = append(parts, fmt.Sprintf("%s: was %s", o.Expression, threshold.FormatValue(o.Observed, o.Unit)))
		}
	}
	return strings.Join(parts, "; ")
}
