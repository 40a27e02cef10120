//go:build accuracy

package accuracy_test

import (
	"context"
	"net"
	"testing"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/testcert"
)

// TestRedirectorFollowed: barrage-echo's HTTP→HTTPS redirector answers 301
// to a GET and 308 to a POST, and a run with follow_redirects (-L) ends on
// the echo's TLS listener with its 200s. The Location names https on the
// same host without a port (443, as Fortio's redirector), so the run's
// dialer sends 127.0.0.1:443 to the TLS listener's port; the rest (the
// redirect, the Location, TLS, the final reply) is the real path.
func TestRedirectorFollowed(t *testing.T) {
	cert, key, _ := testcert.Write(t)
	a := startEcho(t, "-cert", cert, "-key", key, "-redirect-addr", "127.0.0.1:0")
	if a.redirect == "" {
		t.Fatal("barrage-echo did not log its redirect address")
	}
	var toTLS int
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == "127.0.0.1:443" {
			addr = a.http
			toTLS++
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	const calls = 10
	url := "http://" + a.redirect + "/echo?size=64"
	tests := []struct {
		name string
		spec spec.Spec
		code int32
	}{
		{"GET not followed", spec.Spec{URL: url}, 301},
		{"POST not followed", spec.Spec{URL: url, Payload: "x"}, 308},
		{"GET followed", spec.Spec{URL: url, FollowRedirects: true, Insecure: true}, 200},
		{"POST followed", spec.Spec{URL: url, Payload: "x", FollowRedirects: true, Insecure: true}, 200},
	}
	for _, tt := range tests {
		s := tt.spec
		s.QPS, s.Connections, s.Count = 100, 1, calls
		final := loadDialing(t, s, dial, nil)
		if final.Count != calls || final.Codes[tt.code] != calls {
			t.Errorf("%s: count %d codes %v, want %d × %d", tt.name, final.Count, final.Codes, calls, tt.code)
		}
	}
	if toTLS == 0 {
		t.Error("no connection went to the https Location")
	}
}
