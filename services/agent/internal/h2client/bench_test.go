package h2client

import "testing"

func BenchmarkDo(b *testing.B) {
	tests := []struct {
		name string
		url  func(testing.TB) string
		opts Options
	}{
		{"h2", tlsURL(true), Options{Insecure: true}},
		{"h2c", h2cURL, Options{H2C: true}},
	}
	for i := range tests {
		tt := &tests[i]
		b.Run(tt.name, func(b *testing.B) {
			opts := tt.opts
			opts.URL = tt.url(b) + "/"
			c := mustClient(b, mustFactory(b, opts), 0)
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
