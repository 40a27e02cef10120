package spec

import (
	"fmt"
	"strings"
)

// FieldError is one problem with one field of a spec.
type FieldError struct {
	// Field is the JSON path of the field: "url", "ramp.to", "headers[2]",
	// "labels.team". It is empty for a problem with the spec as a whole.
	Field string `json:"field"`
	// Message says what is wrong in words for a human, e.g.
	// "must be at most 1000000".
	Message string `json:"message"`
}

// Error returns "field: message".
func (e FieldError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// ValidationError lists every problem found in a spec. Parse and Validate
// return it as *ValidationError; use errors.As to get at the fields.
type ValidationError struct {
	// Errors holds one entry per problem, in field order.
	Errors []FieldError
}

// Error joins the problems: "invalid spec: qps: must be at least 0; url: is required".
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		parts[i] = fe.Error()
	}
	return "invalid spec: " + strings.Join(parts, "; ")
}

// problems collects field errors while a spec is checked.
type problems struct {
	errs []FieldError
}

// add records a problem with field; args format the message.
func (p *problems) add(field, format string, args ...any) {
	p.errs = append(p.errs, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// err returns the collected problems as a *ValidationError, or nil.
func (p *problems) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	return &ValidationError{Errors: p.errs}
}

// index returns the JSON path of element i of the array field.
func index(field string, i int) string {
	return fmt.Sprintf("%s[%d]", field, i)
}
