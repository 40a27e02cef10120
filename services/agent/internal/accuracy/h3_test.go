//go:build accuracy

package accuracy_test

import (
	"testing"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/testcert"
)

// TestHTTP3EndToEnd runs the agent's HTTP/3 client against the real
// barrage-echo's HTTP/3 listener over QUIC on loopback.
func TestHTTP3EndToEnd(t *testing.T) {
	cert, key, _ := testcert.Write(t)
	a := startEcho(t, "-cert", cert, "-key", key, "-h3-addr", "127.0.0.1:0")
	if a.h3 == "" {
		t.Fatal("barrage-echo did not log an h3 address")
	}
	const calls = 50
	final := load(t, spec.Spec{URL: "https://" + a.h3 + "/?size=100", H3: true, Insecure: true,
		QPS: 200, Connections: 2, Count: calls}, nil)
	if final.Count != calls || final.Errors != 0 || final.Codes[200] != calls {
		t.Fatalf("count %d errors %d codes %v, want %d × 200", final.Count, final.Errors, final.Codes, calls)
	}
	if per := final.Received / final.Count; per < 100+17 {
		t.Fatalf("received %d bytes per size=100 reply over HTTP/3", per)
	}
}
