package netclient

import "testing"

// doCases are the hot-path configurations that must not allocate.
func doCases(tb testing.TB) []struct {
	name string
	opts Options
} {
	tb.Helper()
	fixed := []byte("0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqr") // 64 bytes
	tcp, _ := startTCP(tb, echoTCP)
	udp := startUDP(tb, same)
	return []struct {
		name string
		opts Options
	}{
		{"tcp/fixed", Options{Network: "tcp", Address: tcp, Payload: fixed}},
		{"tcp/generated", Options{Network: "tcp", Address: tcp}},
		{"udp/fixed", Options{Network: "udp", Address: udp, Payload: fixed}},
		{"udp/generated", Options{Network: "udp", Address: udp}},
	}
}

func TestDoDoesNotAllocate(t *testing.T) {
	for _, tc := range doCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			c := mustNew(t, tc.opts, 1)
			if res := c.Do(t.Context()); !res.OK { // connect outside the measurement
				t.Fatalf("first request: code %d", res.Code)
			}
			allocs := testing.AllocsPerRun(200, func() {
				if res := c.Do(t.Context()); !res.OK {
					t.Fatalf("code %d", res.Code)
				}
			})
			if allocs != 0 {
				t.Errorf("%v allocations per request, want 0", allocs)
			}
		})
	}
}

func BenchmarkDo(b *testing.B) {
	for _, tc := range doCases(b) {
		b.Run(tc.name, func(b *testing.B) {
			c := mustNew(b, tc.opts, 1)
			ctx := b.Context()
			if res := c.Do(ctx); !res.OK {
				b.Fatalf("first request: code %d", res.Code)
			}
			b.ReportAllocs()
			for b.Loop() {
				if res := c.Do(ctx); !res.OK {
					b.Fatalf("code %d", res.Code)
				}
			}
		})
	}
}
