//go:build accuracy

package accuracy_test

import (
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// TestEveryProtocol runs a short load per protocol against the echo and checks
// that only success codes come back with the expected bytes per request.
func TestEveryProtocol(t *testing.T) {
	a := startEcho(t)
	const calls = 50
	tests := []struct {
		name       string
		spec       spec.Spec
		code       int32
		sent, recv int64 // per request; 0 = only check > 0
	}{
		{"http1", spec.Spec{URL: httpURL(a, "size=100")}, 200, 0, 0},
		{"http1 post echo", spec.Spec{URL: httpURL(a, ""), Payload: "0123456789"}, 200, 0, 0},
		{"h2c", spec.Spec{URL: "h2c://" + a.http + "/?size=100"}, 200, 0, 0},
		{"grpc health", spec.Spec{URL: "grpc://" + a.grpc}, 0, 5, 7},
		{"grpc ping", spec.Spec{URL: "grpc://" + a.grpc, GRPC: &spec.GRPC{Mode: spec.GRPCPing}}, 0, 0, 0},
		{"tcp", spec.Spec{URL: "tcp://" + a.tcp}, 0, 24, 24},
		{"tcp payload", spec.Spec{URL: "tcp://" + a.tcp, Payload: "hello barrage"}, 0, 13, 13},
		{"udp", spec.Spec{URL: "udp://" + a.udp}, 0, 24, 24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.spec
			s.QPS, s.Connections, s.Count = 200, 2, calls
			final := load(t, s, nil)
			if final.Count != calls || final.Errors != 0 || final.Codes[tt.code] != calls {
				t.Fatalf("count %d errors %d codes %v, want %d × code %d", final.Count, final.Errors, final.Codes, calls, tt.code)
			}
			if final.Sent <= 0 || final.Received <= 0 {
				t.Fatalf("bytes sent %d received %d", final.Sent, final.Received)
			}
			if tt.sent > 0 && (final.Sent != tt.sent*calls || final.Received != tt.recv*calls) {
				t.Fatalf("bytes sent %d received %d, want %d and %d", final.Sent, final.Received, tt.sent*calls, tt.recv*calls)
			}
			if final.Service.Count() != calls || final.Service.Max() > 2*time.Second {
				t.Fatalf("service histogram: %d values, max %v", final.Service.Count(), final.Service.Max())
			}
		})
	}
	// HTTP bodies: size=100 replies carry 100 body bytes; the POST echo carries the payload back.
	final := load(t, spec.Spec{URL: httpURL(a, "size=100"), QPS: 100, Connections: 1, Count: 10}, nil)
	if per := final.Received / final.Count; per < 100+17 { // status line + at least the body
		t.Fatalf("received %d bytes per size=100 reply", per)
	}
}
