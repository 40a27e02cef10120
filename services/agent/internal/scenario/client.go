package scenario

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"time"

	spec "github.com/barrage-dev/barrage/pkg/scenario"
)

// newClient is one iteration's client: the run's shared transport
// (keep-alive connections), a cookie jar of its own, redirects not followed
// (a step sees the redirect itself).
func newClient(tr http.RoundTripper, timeout time.Duration) *http.Client {
	jar, _ := cookiejar.New(nil) // cannot fail without options
	return &http.Client{
		Transport:     tr,
		Jar:           jar,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// send does one request and reads up to MaxBody of the body.
func send(ctx context.Context, client *http.Client, r *spec.Request) (*spec.Response, error) {
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, r.URL, body)
	if err != nil {
		return nil, err
	}
	req.Header = r.Header
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody))
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body) // keep the connection reusable
	return &spec.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}
