package echofault

import (
	"fmt"
	"net/url"
	"strings"
)

// ParseDefaults parses a query string meant as the echo's default
// parameters (-default-params, a managed echo profile). Unlike a request's
// own query, nothing malformed is ignored: the error names the first bad
// parameter, and a parameter the echo does not know is refused too.
func ParseDefaults(raw string, lim Limits) (Params, error) {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return Params{}, fmt.Errorf("query: %w", err)
	}
	for name := range q {
		if !known(name) {
			return Params{}, &ParamError{Name: name, Err: fmt.Errorf("unknown parameter: %w", ErrSyntax)}
		}
	}
	p, err := ParseQuery(q, lim)
	if err != nil {
		name, _, _ := strings.Cut(err.Error(), ":")
		return Params{}, &ParamError{Name: name, Err: err}
	}
	if len(p.Ignored) > 0 {
		return Params{}, &ParamError{Name: p.Ignored[0], Err: fmt.Errorf("%s: malformed: %w", p.Ignored[0], ErrSyntax)}
	}
	return p, nil
}

// ParamError is a default parameter that does not parse.
type ParamError struct {
	// Name is the parameter ("status", "delay", ...).
	Name string
	Err  error
}

// Error implements error.
func (e *ParamError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *ParamError) Unwrap() error { return e.Err }

// known tells whether name is a parameter of the echo's query grammar
// (fault parameters and the echo's other knobs, which defaults may carry).
func known(name string) bool {
	switch name {
	case "status", "delay", "size", "close", "gzip", "header", "saturate":
		return true
	}
	return false
}
