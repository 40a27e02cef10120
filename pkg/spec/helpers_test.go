package spec

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// target is the URL most tests use.
const target = "http://example.com/"

// dur converts a time.Duration for Spec fields.
func dur(d time.Duration) Duration {
	return Duration(d)
}

// normalized returns s after Normalize.
func normalized(s Spec) Spec {
	s.Normalize()
	return s
}

// errorFields returns the Field of each problem in err, which must be nil or
// a *ValidationError.
func errorFields(tb testing.TB, err error) []string {
	tb.Helper()
	if err == nil {
		return nil
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		tb.Fatalf("error %v (%T) is not a *ValidationError", err, err)
	}
	fields := make([]string, len(ve.Errors))
	for i, fe := range ve.Errors {
		fields[i] = fe.Field
	}
	return fields
}

// mustParse parses data or fails the test.
func mustParse(tb testing.TB, data string) Spec {
	tb.Helper()
	s, err := Parse([]byte(data))
	if err != nil {
		tb.Fatalf("Parse(%s): %v", data, err)
	}
	return s
}

// sameFields reports whether got and want hold the same fields in any order.
func sameFields(got, want []string) bool {
	got, want = slices.Clone(got), slices.Clone(want)
	slices.Sort(got)
	slices.Sort(want)
	return slices.Equal(got, want)
}
