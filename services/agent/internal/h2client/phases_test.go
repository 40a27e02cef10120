package h2client

import (
	"context"
	"testing"

	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// TestPhasesOverH2: the request that opens the client's HTTP/2 connection
// carries its connect and TLS phases (h2c: connect only), the next ones
// none; every response has its first byte, after the connection was ready.
func TestPhasesOverH2(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		url  func(testing.TB) string
		opts Options
		tls  bool
	}{
		{"h2", tlsURL(true), Options{Insecure: true}, true},
		{"h2c", h2cURL, Options{H2C: true}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := tt.opts
			opts.URL = tt.url(t) + "/"
			c := mustClient(t, mustFactory(t, opts), 0)
			for i := range 3 {
				res := c.Do(context.Background())
				p := res.Phases
				if !res.OK || p.FirstByte.IsZero() || p.Ready.IsZero() || p.FirstByte.Before(p.Ready) {
					t.Fatalf("request %d: ok %v ready %v first byte %v", i, res.OK, p.Ready, p.FirstByte)
				}
				first := i == 0
				if p.Has(request.PhaseConnect) != first || p.Has(request.PhaseTLS) != (first && tt.tls) || p.Has(request.PhaseDNS) {
					t.Fatalf("request %d: phases %08b, want connect %v, TLS %v, no DNS", i, p.Opened, first, first && tt.tls)
				}
			}
		})
	}
}
