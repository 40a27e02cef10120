//go:build accuracy

package accuracy_test

import (
	"context"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/testcert"
	"github.com/barrage-dev/barrage/services/agent/internal/cli"
)

// TestHTTPSAgainstEcho: the agent's HTTP/1.1 client over TLS against the
// real barrage-echo with -cert/-key. Verification is on by default: the
// self-signed certificate fails every request, and stderr says why; with
// -cacert (or -k) every request is a 200 of the same size.
func TestHTTPSAgainstEcho(t *testing.T) {
	cert, key, _ := testcert.Write(t)
	a := startEcho(t, "-cert", cert, "-key", key)
	url := "https://" + a.http + "/?size=100"
	const n = 40
	code, stderr, res := agentLoad(t, "-qps", "200", "-c", "2", "-n", "40", url)
	if code != cli.ExitOK || res.RetCodes["-1"] != n || res.RetCodes["200"] != 0 {
		t.Fatalf("unverified: exit %d codes %v", code, res.RetCodes)
	}
	if !strings.Contains(stderr, "certificate signed by unknown authority") {
		t.Fatalf("stderr does not say why: %q", stderr)
	}
	for _, trust := range [][]string{{"-cacert", cert}, {"-k"}, {"-https-insecure"}} {
		code, stderr, res := agentLoad(t, append(trust, "-qps", "200", "-c", "2", "-n", "40", url)...)
		if code != cli.ExitOK || res.Count != n || res.RetCodes["200"] != n || res.Errors != 0 {
			t.Fatalf("%v: exit %d count %d codes %v\n%s", trust, code, res.Count, res.RetCodes, stderr)
		}
		if per := res.BytesReceived / n; res.BytesReceived%n != 0 || per < 100+38 || per > 100+400 {
			t.Fatalf("%v: received %d bytes for %d size=100 replies", trust, res.BytesReceived, n)
		}
	}
}

// startFortioTLS runs the real `fortio server` serving HTTPS with cert and
// key (and, with mtls, requiring a client certificate signed by cert) and
// returns its address.
func startFortioTLS(t *testing.T, cert, key string, mtls bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	args := []string{"server", "-cert", cert, "-key", key, "-http-port", addr, "-grpc-port", "disabled",
		"-redirect-port", "disabled", "-tcp-port", "disabled", "-udp-port", "disabled", "-data-dir", t.TempDir()}
	if mtls {
		args = append(args, "-mtls", "-cacert", cert)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, fortioBin(t), args...)
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("fortio server did not listen on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestHTTPSAgainstFortioServer: the agent's HTTP/1.1 client against the
// real fortio v1.68.2 serving HTTPS: verified with -cacert, with a new
// connection per request, with h2 by ALPN, and with mTLS (fortio -mtls)
// refused without -cert/-key and served with them.
func TestHTTPSAgainstFortioServer(t *testing.T) {
	cert, key, _ := testcert.Write(t)
	url := "https://" + startFortioTLS(t, cert, key, false) + "/echo?size=200"
	const n = 30
	for _, extra := range [][]string{
		{"-cacert", cert},
		{"-cacert", cert, "-max-requests-per-connection", "1"},
		{"-cacert", cert, "-max-requests-per-connection", "1", "-no-tls-resumption"},
		{"-cacert", cert, "-tls-min", "1.3", "-sni", "localhost"},
		{"-cacert", cert, "-alpn", "h2"},
	} {
		code, stderr, res := agentLoad(t, append(extra, "-qps", "300", "-c", "3", "-n", "30", url)...)
		if code != cli.ExitOK || res.Count != n || res.RetCodes["200"] != n || res.Errors != 0 {
			t.Fatalf("%v: exit %d count %d codes %v\n%s", extra, code, res.Count, res.RetCodes, stderr)
		}
		if res.BytesReceived < n*200 {
			t.Fatalf("%v: received %d bytes for %d size=200 replies", extra, res.BytesReceived, n)
		}
	}
	mtls := "https://" + startFortioTLS(t, cert, key, true) + "/echo"
	_, stderr, res := agentLoad(t, "-cacert", cert, "-qps", "100", "-c", "1", "-n", "5", mtls)
	if res.RetCodes["-1"] != 5 || !strings.Contains(stderr, "certificate required") {
		t.Fatalf("mTLS without a client certificate: codes %v\n%s", res.RetCodes, stderr)
	}
	code, stderr, res := agentLoad(t, "-cacert", cert, "-cert", cert, "-key", key, "-qps", "100", "-c", "1", "-n", "5", mtls)
	if code != cli.ExitOK || res.RetCodes["200"] != 5 {
		t.Fatalf("mTLS with -cert/-key: exit %d codes %v\n%s", code, res.RetCodes, stderr)
	}
}
