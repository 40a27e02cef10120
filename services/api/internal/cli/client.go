package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/barrage-dev/barrage/services/api/internal/httpapi"
)

// client talks to barrage-api's REST API with a bearer token.
type client struct {
	base  string // e.g. http://127.0.0.1:8080, no trailing slash
	token string
	http  *http.Client
}

// unreachableError is a request that got no HTTP answer: exit 1.
type unreachableError struct{ err error }

func (e *unreachableError) Error() string { return "cannot reach the API: " + e.err.Error() }
func (e *unreachableError) Unwrap() error { return e.err }

// problemError is an API answer of status 400 or more, with its problem
// details when it carried some.
type problemError struct {
	status  int
	problem httpapi.Problem
}

func (e *problemError) Error() string {
	msg := fmt.Sprintf("the API answered %d", e.status)
	if e.problem.Title != "" {
		msg += " " + e.problem.Title
	}
	if d := e.problem.Detail; d != nil && *d != "" {
		msg += ": " + *d
	}
	return msg
}

// fields returns the per-field errors of a validation problem as
// "field: message" lines.
func (e *problemError) fields() []string {
	if e.problem.Errors == nil {
		return nil
	}
	out := make([]string, 0, len(*e.problem.Errors))
	for _, f := range *e.problem.Errors {
		out = append(out, f.Field+": "+f.Message)
	}
	return out
}

// request is one API call.
type request struct {
	method, path string // path under /api/v1, with its query
	body         any    // sent as JSON when not nil
	raw          []byte // sent as is, as JSON, when not nil (and body is nil)
	header       map[string]string
}

// do sends req and returns the status and body. Transport failures are
// *unreachableError, statuses of 300 and more *problemError.
func (c *client) do(ctx context.Context, req request) (int, []byte, error) {
	resp, err := c.open(ctx, req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return 0, nil, &unreachableError{fmt.Errorf("%s %s: read answer: %w", req.method, req.path, err)}
	}
	if resp.StatusCode >= 300 {
		pe := &problemError{status: resp.StatusCode}
		_ = json.Unmarshal(raw, &pe.problem) // not problem details: the status says it
		return resp.StatusCode, raw, pe
	}
	return resp.StatusCode, raw, nil
}

// open sends req and returns the response with its body unread.
func (c *client) open(ctx context.Context, req request) (*http.Response, error) {
	var body io.Reader = http.NoBody
	if req.raw != nil {
		body = bytes.NewReader(req.raw)
	}
	if req.body != nil {
		b, err := json.Marshal(req.body)
		if err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, c.base+httpapi.BasePath+req.path, body)
	if err != nil {
		return nil, &unreachableError{err}
	}
	if req.body != nil || req.raw != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	hr.Header.Set("Authorization", "Bearer "+c.token)
	for k, v := range req.header {
		hr.Header.Set(k, v)
	}
	resp, err := c.http.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s %s: %w", req.method, req.path, ctx.Err())
		}
		return nil, &unreachableError{err}
	}
	return resp, nil
}

// getJSON reads path into v.
func (c *client) getJSON(ctx context.Context, path string, v any) error {
	_, raw, err := c.do(ctx, request{method: http.MethodGet, path: path})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("GET %s: decode answer: %w", path, err)
	}
	return nil
}

// redact replaces every occurrence of secret in s.
func redact(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}
