package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// BasePath is where barrage-api mounts its REST API; New appends it to the
// base URL it is given.
const BasePath = "/api/v1"

// maxAnswer bounds how much of one answer Decode reads.
const maxAnswer = 64 << 20

// New returns a client of the barrage-api at baseURL (scheme and host, such
// as http://127.0.0.1:8080, without /api/v1) that sends token as its bearer
// token on every request. opts add to it, e.g. WithHTTPClient.
func New(baseURL, token string, opts ...ClientOption) (*ClientWithResponses, error) {
	server := strings.TrimRight(baseURL, "/") + BasePath
	auth := WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return nil
	})
	return NewClientWithResponses(server, append([]ClientOption{auth}, opts...)...)
}

// ProblemError is an answer of status 300 or more, with the RFC 9457
// problem details it carried (zero when its body was not problem+json).
type ProblemError struct {
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// Problem is the decoded problem details.
	Problem Problem
}

// Error names the status, the problem's title and its detail, e.g.
// "the API answered 422 Unprocessable Entity: the spec is invalid".
func (e *ProblemError) Error() string {
	msg := fmt.Sprintf("the API answered %d", e.StatusCode)
	if e.Problem.Title != "" {
		msg += " " + e.Problem.Title
	}
	if d := e.Problem.Detail; d != nil && *d != "" {
		msg += ": " + *d
	}
	return msg
}

// Fields returns the per-field errors of a validation problem as
// "field: message" lines, in the order the API gave them.
func (e *ProblemError) Fields() []string {
	if e.Problem.Errors == nil {
		return nil
	}
	out := make([]string, 0, len(*e.Problem.Errors))
	for _, f := range *e.Problem.Errors {
		out = append(out, f.Field+": "+f.Message)
	}
	return out
}

// CheckStatus returns a *ProblemError when status is 300 or more, decoding
// body as problem details where it is one, and nil otherwise.
func CheckStatus(status int, body []byte) error {
	if status < 300 {
		return nil
	}
	pe := &ProblemError{StatusCode: status}
	_ = json.Unmarshal(body, &pe.Problem) // not problem details: the status says it
	return pe
}

// Decode reads resp's body, which the caller still closes. It returns a
// *ProblemError for a status of 300 or more; otherwise it decodes the JSON
// body into v, unless v is nil. It returns the body it read either way.
func Decode(resp *http.Response, v any) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return nil, fmt.Errorf("%s %s: read answer: %w", resp.Request.Method, resp.Request.URL.Path, err)
	}
	if err := CheckStatus(resp.StatusCode, raw); err != nil {
		return raw, err
	}
	if v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			return raw, fmt.Errorf("%s %s: decode answer: %w", resp.Request.Method, resp.Request.URL.Path, err)
		}
	}
	return raw, nil
}
