package cli

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/barrage-dev/barrage/services/api/client"
)

// unreachableError is a request that got no HTTP answer: exit 1.
type unreachableError struct{ err error }

func (e *unreachableError) Error() string { return "cannot reach the API: " + e.err.Error() }
func (e *unreachableError) Unwrap() error { return e.err }

// jsonBody is the content type of the bodies the CLI sends.
const jsonBody = "application/json"

// call sends one request of the generated client with send and takes its
// answer: a transport failure becomes *unreachableError (or ctx's error,
// naming the request, once ctx ended), a status of 300 or more
// *client.ProblemError; otherwise the JSON body is decoded into v unless v
// is nil. It returns the body, which it always closes.
func call(ctx context.Context, v any, send func() (*http.Response, error)) ([]byte, error) {
	resp, err := send()
	if err != nil {
		var ue *url.Error
		if ctx.Err() != nil && errors.As(err, &ue) {
			return nil, &requestError{op: strings.ToUpper(ue.Op), url: ue.URL, err: ctx.Err()}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &unreachableError{err}
	}
	defer resp.Body.Close()
	return client.Decode(resp, v)
}

// requestError is a request cut short by its context, e.g. "POST /runs:
// context canceled".
type requestError struct {
	op, url string
	err     error
}

func (e *requestError) Error() string {
	path := e.url
	if u, err := url.Parse(e.url); err == nil {
		path = strings.TrimPrefix(u.RequestURI(), client.BasePath)
	}
	return e.op + " " + path + ": " + e.err.Error()
}

func (e *requestError) Unwrap() error { return e.err }

// header returns a request editor that sets one header.
func header(name, value string) client.RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		req.Header.Set(name, value)
		return nil
	}
}

// redact replaces every occurrence of secret in s.
func redact(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}
