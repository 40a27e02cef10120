package grpcclient

import "testing"

func BenchmarkDo(b *testing.B) {
	addr, _ := startServer(b, nil)
	tests := []struct {
		name string
		opts Options
	}{
		{"health", Options{Target: addr}},
		{"ping", Options{Target: addr, Mode: ModePing}},
		{"method ping", Options{Target: addr, Mode: ModeMethod, Method: "fgrpc.PingServer/Ping", Payload: `{"seq": 1}`}},
	}
	for i := range tests {
		tt := &tests[i]
		b.Run(tt.name, func(b *testing.B) {
			_, c := mustClient(b, tt.opts)
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
