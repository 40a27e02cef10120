// Package apperr is the API's domain error: a stable code (invalid,
// not_found, conflict, ...), a detail written for the caller, and, for
// validation, the fields at fault. Domain packages and the store return it;
// the HTTP layer maps each code to a status and an RFC 9457 problem type in
// one table. Any other error reaching the HTTP layer is an internal error,
// whose text is logged and never shown.
//
// It is not the place for HTTP concerns (statuses, problem JSON): httpapi
// owns those.
package apperr

import (
	"errors"
	"fmt"
	"time"
)

// Code classifies an error; the list is stable (docs/architecture.md §6);
// httpapi/problem.go maps each to its status and problem type.
type Code string

// Error codes.
const (
	// BadRequest is input that cannot be read at all (malformed JSON).
	BadRequest Code = "bad_request"
	// Invalid is input that was read but breaks a rule; Fields says where.
	Invalid Code = "invalid"
	// Unauthenticated is a request without valid credentials.
	Unauthenticated Code = "unauthenticated"
	// Forbidden is an action the caller's role does not allow.
	Forbidden Code = "forbidden"
	// NotFound is a resource that does not exist or that the caller cannot see.
	NotFound Code = "not_found"
	// Conflict is a request that clashes with the current state: a duplicate
	// name, a reused idempotency key, a run that can no longer be stopped.
	Conflict Code = "conflict"
	// TooLarge is a request body over the limit.
	TooLarge Code = "too_large"
	// UnsupportedMedia is a request body that is not JSON.
	UnsupportedMedia Code = "unsupported_media"
	// RateLimited is a caller over its request rate.
	RateLimited Code = "rate_limited"
	// QuotaExceeded is a request the project's quota refuses for now (too
	// many runs in progress); it may succeed later.
	QuotaExceeded Code = "quota_exceeded"
	// Unavailable is a dependency (Postgres, NATS) that cannot be reached.
	Unavailable Code = "unavailable"
)

// FieldError is one problem with one field of the input.
type FieldError struct {
	// Field is the JSON path of the field ("spec.qps", "labels.team") or the
	// name of a query parameter.
	Field string
	// Message says what is wrong, for a human.
	Message string
}

// Error is a domain error with a code.
type Error struct {
	// Code classifies the error.
	Code Code
	// Detail is a sentence for the caller; it never holds internals.
	Detail string
	// Fields lists the fields at fault, for Invalid.
	Fields []FieldError
	// RetryAfter, when positive, is how long the caller should wait before
	// trying again (RateLimited, QuotaExceeded).
	RetryAfter time.Duration
}

// Error returns "code: detail".
func (e *Error) Error() string {
	return string(e.Code) + ": " + e.Detail
}

// New returns an *Error with code and a detail formatted from format and args.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// Invalidf returns an Invalid error for one field.
func Invalidf(field, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	return &Error{Code: Invalid, Detail: "the request has invalid fields", Fields: []FieldError{{Field: field, Message: msg}}}
}

// CodeOf returns the code of the *Error in err's chain, or "" when there is
// none (an internal error).
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// Is reports whether err carries code.
func Is(err error, code Code) bool {
	return CodeOf(err) == code
}
