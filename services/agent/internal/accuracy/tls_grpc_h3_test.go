//go:build accuracy

package accuracy_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/testcert"
	"github.com/barrage-dev/barrage/services/agent/internal/cli"
)

// TestGRPCSAndH3TLSFlagsAgainstEcho: `barrage-agent load` with Fortio's
// TLS flags against the real barrage-echo with -cert/-key, whose gRPC
// listener is then TLS and whose HTTP/3 listener always is. Verification
// is on by default: the self-signed certificate fails every call and
// stderr says why; -cacert (with SNI and a minimum version), -k, and a
// client certificate all run every call.
func TestGRPCSAndH3TLSFlagsAgainstEcho(t *testing.T) {
	cert, key, _ := testcert.Write(t)
	a := startEcho(t, "-cert", cert, "-key", key, "-h3-addr", "127.0.0.1:0")
	if a.h3 == "" {
		t.Fatal("barrage-echo did not log an h3 address")
	}
	const n = 20
	targets := []struct {
		name string
		args []string
		ok   string // the code of a call that worked
	}{
		{"grpcs health", []string{"-grpc", "https://" + a.grpc}, "SERVING"},
		{"grpcs ping", []string{"-grpc", "-ping", "https://" + a.grpc}, "SERVING"},
		{"h3", []string{"-h3", "https://" + a.h3 + "/?size=50"}, "200"},
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			load := func(extra ...string) (int, string, int64, map[string]int64) {
				args := append(append([]string{"-qps", "200", "-c", "2", "-n", "20"}, extra...), tg.args...)
				code, stderr, res := agentLoad(t, args...)
				return code, stderr, res.Count, res.RetCodes
			}
			code, stderr, _, codes := load()
			if code != cli.ExitOK || codes[tg.ok] != 0 || !strings.Contains(stderr, "certificate signed by unknown authority") {
				t.Fatalf("unverified: exit %d codes %v; stderr does not say why: %q", code, codes, stderr)
			}
			for _, trust := range [][]string{
				{"-cacert", cert},
				{"-cacert", cert, "-sni", "localhost", "-tls-min", "1.3"},
				{"-cacert", cert, "-cert", cert, "-key", key, "-no-tls-resumption"},
				{"-k"},
			} {
				code, stderr, count, codes := load(trust...)
				if code != cli.ExitOK || count != n || codes[tg.ok] != n {
					t.Fatalf("%v: exit %d count %d codes %v\n%s", trust, code, count, codes, stderr)
				}
			}
			code, stderr, _, codes = load("-cacert", cert, "-sni", "other.test")
			if code != cli.ExitOK || codes[tg.ok] != 0 || !strings.Contains(stderr, "other.test") {
				t.Fatalf("-sni other.test: exit %d codes %v; stderr %q", code, codes, stderr)
			}
		})
	}
}

// TestTLSFlagErrors: bad TLS input to a grpcs:// or h3 run is a usage
// error naming the flag (and the spec field), before any call: a missing
// CA file, an unreadable key, a key that is not the certificate's, and
// an ALPN the protocol fixes.
func TestTLSFlagErrors(t *testing.T) {
	cert, key, _ := testcert.Write(t)
	other, _, _ := testcert.Write(t)
	missing := filepath.Join(t.TempDir(), "missing.pem")
	dir := t.TempDir() // a directory cannot be read as a file
	for _, target := range [][]string{{"-grpc", "https://127.0.0.1:1"}, {"-h3", "https://127.0.0.1:1/"}} {
		for _, tt := range []struct {
			args []string
			want string
		}{
			{[]string{"-cacert", missing}, "-cacert: open " + missing},
			{[]string{"-cert", cert, "-key", dir}, "-key: read " + dir},
			{[]string{"-cert", other, "-key", key}, "tls.client_key (-key): does not match tls.client_cert"},
			{[]string{"-cert", cert}, "tls.client_key (-key): is required with tls.client_cert"},
			{[]string{"-alpn", "h2"}, "tls.alpn (-alpn): is h"},
		} {
			code, stderr, _ := agentLoad(t, append(append(tt.args, "-n", "1"), target...)...)
			if code != cli.ExitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("%v %v: exit %d, stderr %q; want %d and %q", target, tt.args, code, stderr, cli.ExitUsage, tt.want)
			}
		}
	}
}
