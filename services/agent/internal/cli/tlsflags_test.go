package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/testcert"
)

func TestTLSFlagsToSpec(t *testing.T) {
	t.Parallel()
	cert, key, _ := testcert.Write(t)
	_, s, _, err := parseLoad([]string{"-cacert", cert, "-cert", cert, "-key", key, "-sni", "example.test",
		"-alpn", "h2", "-tls-min", "1.3", "-no-tls-resumption", "-https-insecure", "-curves", "X25519,P-256", "https://h/"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ts := s.TLSSettings
	pem, _ := os.ReadFile(cert)
	keyPEM, _ := os.ReadFile(key)
	if ts == nil || ts.CACert != string(pem) || ts.ClientCert != string(pem) || ts.ClientKey != string(keyPEM) ||
		ts.ServerName != "example.test" || ts.ALPN != "h2" || ts.MinVersion != "1.3" || !ts.NoResumption ||
		!slices.Equal(ts.Curves, []string{"X25519", "P-256"}) ||
		!s.Insecure || !s.HTTP2() {
		t.Fatalf("%+v insecure %v h2 %v", ts, s.Insecure, s.HTTP2())
	}
	if red := s.Redacted().TLSSettings; red.ClientKey != "REDACTED" || red.ClientCert != "REDACTED" || red.CACert != string(pem) {
		t.Fatalf("redacted tls settings keep the client key or lose the CA: %+v", red)
	}
	_, s, _, err = parseLoad([]string{"-k", "https://h/"}, io.Discard)
	if err != nil || s.TLSSettings != nil || !s.Insecure {
		t.Fatalf("-k alone: tls %+v insecure %v err %v", s.TLSSettings, s.Insecure, err)
	}
}

// TestTLSFlagsRejected: each bad TLS value exits with a usage error whose
// first line names the flag.
func TestTLSFlagsRejected(t *testing.T) {
	t.Parallel()
	cert, key, _ := testcert.Write(t)
	otherCert, _, _ := testcert.Write(t)
	junk := filepath.Join(t.TempDir(), "junk.pem")
	if err := os.WriteFile(junk, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing.pem")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-cacert", missing, "https://h/"}, "-cacert: open " + missing},
		{[]string{"-key", missing, "-cert", cert, "https://h/"}, "-key: open"},
		{[]string{"-cacert", junk, "https://h/"}, "tls.ca_cert (-cacert): holds no PEM certificate"},
		{[]string{"-cert", cert, "https://h/"}, "tls.client_key (-key): is required"},
		{[]string{"-key", key, "https://h/"}, "tls.client_cert (-cert): is required"},
		{[]string{"-cert", otherCert, "-key", key, "https://h/"}, "tls.client_key (-key): does not match tls.client_cert"},
		{[]string{"-cert", junk, "-key", key, "https://h/"}, "tls.client_cert (-cert): holds no PEM certificate"},
		{[]string{"-tls-min", "1.4", "https://h/"}, "tls.min_version (-tls-min): must be 1.0, 1.1, 1.2 or 1.3"},
		{[]string{"-curves", "X25519,x448", "https://h/"}, `tls.curves[1] (-curves): "x448" is not a key exchange group: want one of X25519MLKEM768,`},
		{[]string{"-curves", "P-256,P-256", "https://h/"}, `tls.curves[1] (-curves): "P-256" is listed twice`},
		{[]string{"-alpn", "spdy", "https://h/"}, "tls.alpn (-alpn): must be h2 or http/1.1"},
		{[]string{"-alpn", "http/1.1", "-h2", "https://h/"}, "tls.alpn (-alpn): is http/1.1 but h2 is set"},
		{[]string{"-sni", "a b", "https://h/"}, "tls.server_name (-sni)"},
		{[]string{"-cacert", cert, "http://h/"}, "only applies to https and grpcs URLs"},
		{[]string{"-alpn", "h2", "-h3", "https://h/"}, "tls.alpn (-alpn): is h3 for HTTP/3, set by the protocol"},
		{[]string{"-alpn", "h2", "-grpc", "https://h:1"}, "tls.alpn (-alpn): is h2 for gRPC, set by the protocol"},
		{[]string{"-cacert", cert, "-L", "https://h/"}, "cannot be combined with follow_redirects"},
	} {
		var stderr strings.Builder
		code := Main(context.Background(), append([]string{"barrage-agent", "load"}, tt.args...), nil, io.Discard, &stderr)
		first, _, _ := strings.Cut(stderr.String(), "\n")
		if code != ExitUsage || !strings.Contains(first, tt.want) {
			t.Errorf("%v: exit %d, first line %q; want %d and %q", tt.args, code, first, ExitUsage, tt.want)
		}
	}
}

func TestConnectionReuseFlag(t *testing.T) {
	t.Parallel()
	for arg, want := range map[string]spec.ConnectionReuse{"10:30": {Min: 10, Max: 30}, "1:1": {Min: 1, Max: 1}, "7": {Min: 7, Max: 7}} {
		_, s, _, err := parseLoad([]string{"-connection-reuse", arg, "https://h/"}, io.Discard)
		if err != nil || s.ConnectionReuse == nil || *s.ConnectionReuse != want {
			t.Fatalf("-connection-reuse %s: %+v %v", arg, s.ConnectionReuse, err)
		}
	}
	for _, tt := range []struct{ arg, url, want string }{
		{"a:b", "http://h/", `-connection-reuse "a:b": want min:max`},
		{"5:2", "http://h/", "connection_reuse (-connection-reuse): must be min:max with 1 <= min <= max"},
		{"0:2", "http://h/", "connection_reuse (-connection-reuse): must be min:max"},
		{"2:5", "h2c://h/", "connection_reuse (-connection-reuse): only applies to HTTP/1.1"},
	} {
		var stderr strings.Builder
		code := Main(context.Background(), []string{"barrage-agent", "load", "-connection-reuse", tt.arg, tt.url}, nil, io.Discard, &stderr)
		if first, _, _ := strings.Cut(stderr.String(), "\n"); code != ExitUsage || !strings.Contains(first, tt.want) {
			t.Errorf("%s %s: exit %d %q; want %q", tt.arg, tt.url, code, first, tt.want)
		}
	}
}
