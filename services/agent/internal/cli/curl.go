package cli

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/netguard"
	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/services/agent/internal/h2client"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// curlFlags are the flags of `barrage-agent curl`.
type curlFlags struct {
	headers  stringList
	method   string
	payload  string
	insecure bool
	follow   bool
	user     string
	resolve  string
	timeout  time.Duration
}

// maxCurlBody bounds the body curl prints.
const maxCurlBody = 64 << 20

// runCurl is `barrage-agent curl URL`: one request, and the response's
// status line, headers and body on stdout (Fortio's curl). It exits 0 for
// a 2xx answer, 1 for any other answer or a failed request, 2 for bad flags.
func runCurl(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f curlFlags
	fs := flag.NewFlagSet("barrage-agent curl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var(&f.headers, "H", `request header "Name: value" (repeatable)`)
	fs.StringVar(&f.method, "X", "", "HTTP method (default GET, or POST with a payload)")
	fs.StringVar(&f.payload, "payload", "", "request body")
	fs.BoolVar(&f.insecure, "k", false, "do not verify TLS certificates")
	fs.BoolVar(&f.follow, "L", false, fmt.Sprintf("follow redirects (up to %d)", h2client.MaxRedirects))
	fs.StringVar(&f.user, "user", "", `basic auth "user:password"`)
	fs.StringVar(&f.resolve, "resolve", "", "connect to this IP address instead of resolving the URL's host")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Second, "bound on the whole exchange")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, client, err := f.request(ctx, fs.Args())
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent curl: %v\n", err)
		return ExitUsage
	}
	resp, err := client.Do(req)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent curl: %v\n", err)
		return ExitFailure
	}
	defer func() { _ = resp.Body.Close() }()
	if err := writeResponse(stdout, resp); err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent curl: %v\n", err)
		return ExitFailure
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return ExitFailure
	}
	return ExitOK
}

// request builds the request (bounded by ctx) and the client of the flags.
func (f *curlFlags) request(ctx context.Context, args []string) (*http.Request, *http.Client, error) {
	if len(args) != 1 {
		return nil, nil, fmt.Errorf("want exactly one URL, got %d arguments", len(args))
	}
	if f.resolve != "" && net.ParseIP(f.resolve) == nil {
		return nil, nil, fmt.Errorf("-resolve %q: want an IP address", f.resolve)
	}
	method := f.method
	if method == "" {
		method = http.MethodGet
		if f.payload != "" {
			method = http.MethodPost
		}
	}
	var body io.Reader
	if f.payload != "" {
		body = strings.NewReader(f.payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, args[0], body)
	if err != nil {
		return nil, nil, fmt.Errorf("url %q: %w", args[0], err)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return nil, nil, fmt.Errorf("url %q: want http:// or https://", args[0])
	}
	req.Header.Set("User-Agent", "barrage/"+version.String())
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			return nil, nil, fmt.Errorf("-H %q: want \"Name: value\"", h)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Host") {
			req.Host = strings.TrimSpace(value)
			continue
		}
		req.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	if f.user != "" {
		if !strings.Contains(f.user, ":") {
			return nil, nil, errors.New("-user: want user:password")
		}
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(f.user)))
	}
	dial := request.DialFunc(netguard.Unrestricted().DialContext)
	if f.resolve != "" {
		dial = dialResolved(dial, f.resolve)
	}
	client := &http.Client{Transport: &http.Transport{
		DialContext:     dial,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: f.insecure, MinVersion: tls.VersionTLS12}, //nolint:gosec // the user asked for -k
	}}
	client.CheckRedirect = h2client.CheckRedirect(f.follow)
	return req, client, nil
}

// writeResponse prints the status line, the headers in name order and the body.
func writeResponse(w io.Writer, resp *http.Response) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\r\n", resp.Proto, resp.Status)
	names := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		for _, v := range resp.Header[k] {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	b.WriteString("\r\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if _, err := io.Copy(w, io.LimitReader(resp.Body, maxCurlBody)); err != nil {
		return fmt.Errorf("read body: %w", err)
	}
	return nil
}
