package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// maxPayloadFile is the largest -payload-file the CLI sends inline; the API
// holds a spec to its own limits as well.
const maxPayloadFile = 1 << 20

// requestFlags are Fortio's request flags on `barrage run`, so that a Fortio
// command line works with the same flags: they set the inline spec's fields,
// and over a --spec file they win.
type requestFlags struct {
	headers     listFlag
	method      string
	payload     string
	payloadFile string
	contentType string
	percentiles string
	insecure    bool
	h2          bool
	grpc        bool
	ping        bool
	tls         tlsFlags
}

// requestFlagNames returns the flag names register defines.
func requestFlagNames() []string {
	return append([]string{"H", "X", "payload", "payload-file", "content-type", "p", "k", "h2", "grpc", "ping"}, tlsFlagNames()...)
}

func (r *requestFlags) register(fs *flag.FlagSet) {
	fs.Var(&r.headers, "H", "extra request header 'Name: value' (repeatable)")
	fs.StringVar(&r.method, "X", "", "HTTP method (default GET, or POST with a payload)")
	fs.StringVar(&r.payload, "payload", "", "request body (HTTP), message (TCP, UDP, gRPC ping)")
	fs.StringVar(&r.payloadFile, "payload-file", "", "read the request body from this file (sent inline, at most 1 MiB)")
	fs.StringVar(&r.contentType, "content-type", "", "Content-Type of the payload")
	fs.StringVar(&r.percentiles, "p", "", "percentiles to report, comma-separated, e.g. '50,75,90,99,99.9'")
	fs.BoolVar(&r.insecure, "k", false, "do not verify the target's TLS certificate")
	fs.BoolVar(&r.h2, "h2", false, "HTTP/2 over TLS for an https:// URL")
	fs.BoolVar(&r.grpc, "grpc", false, "gRPC: health checks, or pings with -ping")
	fs.BoolVar(&r.ping, "ping", false, "gRPC ping mode (implies -grpc)")
	r.tls.register(fs)
}

// given returns the first request flag in set, or "".
func (r *requestFlags) given(set map[string]bool) string {
	for _, n := range requestFlagNames() {
		if set[n] {
			return n
		}
	}
	return ""
}

// check refuses combinations that have no meaning.
func (r *requestFlags) check(set map[string]bool) error {
	if set["payload"] && set["payload-file"] {
		return errors.New("give -payload or -payload-file, not both")
	}
	if (r.grpc || r.ping) && r.h2 {
		return errors.New("-grpc and -h2 exclude each other (gRPC is always HTTP/2)")
	}
	for _, h := range r.headers {
		if name, _, ok := strings.Cut(h, ":"); !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("-H %q: want 'Name: value'", h)
		}
	}
	if _, err := parsePercentiles(r.percentiles); err != nil {
		return err
	}
	return r.tls.check(set, r.grpc || r.ping, r.h2)
}

// apply sets the fields of sp (a RunSpec as decoded JSON) that the given
// flags name.
func (r *requestFlags) apply(sp map[string]any, set map[string]bool) error {
	if len(r.headers) > 0 {
		var hs []any
		if old, ok := sp["headers"].([]any); ok {
			hs = old
		}
		for _, h := range r.headers {
			hs = append(hs, h)
		}
		sp["headers"] = hs
	}
	if set["X"] {
		sp["method"] = strings.ToUpper(r.method)
	}
	if set["payload"] {
		sp["payload"] = r.payload
	}
	if set["payload-file"] {
		b, err := readPayload(r.payloadFile)
		if err != nil {
			return err
		}
		sp["payload"] = string(b)
		delete(sp, "payload_file")
	}
	if set["content-type"] {
		sp["content_type"] = r.contentType
	}
	if set["p"] {
		ps, _ := parsePercentiles(r.percentiles) // checked by check
		sp["percentiles"] = ps
	}
	if set["k"] || set["https-insecure"] {
		sp["insecure"] = r.insecure || r.tls.httpsInsecure
	}
	if set["h2"] {
		sp["h2"] = r.h2
	}
	if r.grpc || r.ping {
		mode := "health"
		if r.ping {
			mode = "ping"
		}
		g, _ := sp["grpc"].(map[string]any)
		if g == nil {
			g = map[string]any{}
		}
		g["mode"] = mode
		sp["grpc"] = g
	}
	return r.tls.apply(sp, set)
}

// readPayload reads -payload-file, refusing one larger than maxPayloadFile.
func readPayload(name string) ([]byte, error) { return readFlagFile("-payload-file", name) }

// readFlagFile reads the file named by the flag fl (sent inline), refusing one
// larger than maxPayloadFile; errors name fl.
func readFlagFile(fl, name string) ([]byte, error) {
	f, err := os.Open(name) //nolint:gosec // the path is the user's own flag
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fl, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPayloadFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fl, err)
	}
	if len(b) > maxPayloadFile {
		return nil, fmt.Errorf("%s %s: more than the %d bytes sent inline", fl, name, maxPayloadFile)
	}
	return b, nil
}

// parsePercentiles reads Fortio's -p list: numbers in (0, 100).
func parsePercentiles(list string) ([]float64, error) {
	if list == "" {
		return nil, nil
	}
	var out []float64
	for p := range strings.SplitSeq(list, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || v <= 0 || v >= 100 {
			return nil, fmt.Errorf("-p %q: want percentiles between 0 and 100, comma-separated", list)
		}
		out = append(out, v)
	}
	return out, nil
}
