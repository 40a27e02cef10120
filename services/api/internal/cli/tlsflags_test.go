package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/testcert"
)

// TestTLSFlagsToSpec: the agent's TLS flags set the spec's tls object,
// the -cacert, -cert and -key files go inline as PEM, and over a --spec
// file they replace only the fields they name.
func TestTLSFlagsToSpec(t *testing.T) {
	t.Parallel()
	cert, key, _ := testcert.Write(t)
	certPEM, keyPEM := readTestFile(t, cert), readTestFile(t, key)
	f, err := parseRunFlags([]string{"--url", "https://t/", "-cacert", cert, "-cert", cert, "-key", key, "-sni", "example.test",
		"-alpn", "h2", "-tls-min", "1.3", "-no-tls-resumption", "-https-insecure", "-curves", "X25519,P-256"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.body(nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	tl, _ := b.Spec["tls"].(map[string]any)
	want := map[string]any{"ca_cert": certPEM, "client_cert": certPEM, "client_key": keyPEM, "server_name": "example.test",
		"alpn": "h2", "min_version": "1.3", "no_resumption": true}
	if c, _ := tl["curves"].([]string); !slices.Equal(c, []string{"X25519", "P-256"}) {
		t.Errorf("tls.curves = %#v, want X25519, P-256", tl["curves"])
	}
	delete(tl, "curves")
	if len(tl) != len(want) {
		t.Errorf("tls %v, want the %d fields %v", tl, len(want), want)
	}
	for k, v := range want {
		if tl[k] != v {
			t.Errorf("tls.%s = %v, want %v", k, tl[k], v)
		}
	}
	if b.Spec["insecure"] != true {
		t.Errorf("-https-insecure: insecure = %v, want true", b.Spec["insecure"])
	}

	// Over a spec file: -tls-min and -cacert replace the file's, the
	// file's server name stays.
	f, err = parseRunFlags([]string{"--spec", "s.yaml", "-tls-min", "1.2", "-cacert", cert}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	b, err = f.body([]byte("url: https://t/\ntls: {server_name: from.file, min_version: \"1.3\", ca_cert: old}\n"), "s.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	tl, _ = b.Spec["tls"].(map[string]any)
	if len(tl) != 3 || tl["server_name"] != "from.file" || tl["min_version"] != "1.2" || tl["ca_cert"] != certPEM {
		t.Errorf("tls over a spec file: %v, want server_name kept, min_version 1.2 and the CA file's PEM", tl)
	}

	// -k alone sets no tls object.
	f, err = parseRunFlags([]string{"--url", "https://t/", "-k"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if b, err = f.body(nil, "", ""); err != nil || b.Spec["tls"] != nil || b.Spec["insecure"] != true {
		t.Errorf("-k: spec %v err %v, want insecure and no tls", b.Spec, err)
	}
}

// TestTLSFlagsRejected: each bad TLS flag ends `barrage run` with exit 2
// and a message naming the flag, before the API is called (its URL is a
// closed port, which would be exit 1).
func TestTLSFlagsRejected(t *testing.T) {
	t.Parallel()
	cert, key, _ := testcert.Write(t)
	otherCert, _, _ := testcert.Write(t)
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junk, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	unreadable := filepath.Join(dir, "unreadable.pem")
	if err := os.WriteFile(unreadable, []byte(readTestFile(t, cert)), 0o200); err != nil {
		t.Fatal(err)
	}
	grpcSpec := filepath.Join(dir, "grpc.yaml")
	if err := os.WriteFile(grpcSpec, []byte("url: grpcs://127.0.0.1:8079\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-cacert", missing}, "-cacert: open " + missing + ": no such file or directory"},
		{[]string{"-cacert", dir}, "-cacert: read " + dir},
		{[]string{"-cert", cert, "-key", missing}, "-key: open " + missing},
		{[]string{"-cert", missing, "-key", key}, "-cert: open " + missing},
		{[]string{"-cacert", junk}, "-cacert " + junk + ": holds no PEM certificate"},
		{[]string{"-cert", cert}, "-cert needs -key"},
		{[]string{"-key", key}, "-key needs -cert"},
		{[]string{"-cert", otherCert, "-key", key}, "-key " + key + " does not match -cert " + otherCert + ": private key does not match public key"},
		{[]string{"-cert", junk, "-key", key}, "-cert " + junk + ": holds no PEM certificate"},
		{[]string{"-cert", cert, "-key", cert}, "-key " + cert + ": holds no PEM private key"},
		{[]string{"-tls-min", "1.4"}, `-tls-min "1.4": want 1.0, 1.1, 1.2 or 1.3`},
		{[]string{"-curves", "X25519,,P-256"}, `-curves: "" is not a key exchange group: want one of X25519MLKEM768,`},
		{[]string{"-tls-min", ""}, `-tls-min "": want 1.0, 1.1, 1.2 or 1.3`},
		{[]string{"-alpn", "spdy/3"}, `-alpn "spdy/3": want h2 or http/1.1`},
		{[]string{"-alpn", "http/1.1", "-h2"}, "-alpn http/1.1 and -h2 exclude each other"},
		{[]string{"-alpn", "h2", "-grpc"}, "-alpn does not apply to gRPC"},
		{[]string{"-alpn", "h2", "-ping"}, "-alpn does not apply to gRPC"},
	}
	if os.Geteuid() != 0 { // root reads a file without read permission
		tests = append(tests, struct {
			args []string
			want string
		}{[]string{"-cacert", unreadable}, "-cacert: open " + unreadable + ": permission denied"})
	}
	run := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), Options{Args: append([]string{"run"}, args...),
			Environ: []string{"BARRAGE_URL=http://127.0.0.1:1", "BARRAGE_TOKEN=brg_x"}, Stdout: &stdout, Stderr: &stderr})
		return code, stderr.String()
	}
	for _, tt := range tests {
		code, stderr := run(append([]string{"--url", "https://127.0.0.1:1/"}, tt.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, "barrage run: "+tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, stderr, ExitUsage, tt.want)
		}
	}
	// gRPC named by the --spec file's URL or by a grpc:// --url.
	for _, args := range [][]string{{"--spec", grpcSpec, "-alpn", "h2"}, {"--url", "grpc://127.0.0.1:1", "-alpn", "http/1.1"}} {
		if code, stderr := run(args...); code != ExitUsage || !strings.Contains(stderr, "-alpn does not apply to gRPC") {
			t.Errorf("%v: exit %d, stderr %q; want 2 refusing -alpn", args, code, stderr)
		}
	}
	// With --test the TLS flags are refused like the other request flags.
	if code, stderr := run("--test", "checkout", "-cacert", cert); code != ExitUsage || !strings.Contains(stderr, "not to --test") {
		t.Errorf("--test with -cacert: exit %d, stderr %q", code, stderr)
	}
}

func readTestFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
