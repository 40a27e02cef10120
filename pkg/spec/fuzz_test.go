package spec

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzParse checks that Parse never panics and that whatever it accepts
// survives Marshal and Parse unchanged, normalizes to itself and redacts
// without panicking.
func FuzzParse(f *testing.F) {
	seeds := []string{
		`{"url": "http://example.com/"}`,
		fullSpec,
		`{"url": "grpc://echo:8079", "count": 10, "grpc": {"mode": "ping", "ping_delay": 0.01}, "payload": "x"}`,
		`{"url": "grpc://echo:8079", "grpc": {"method": "/fgrpc.PingServer/Ping", "streams": 4}, "payload": "{\"seq\": 1}"}`,
		`{"url": "udp://echo:8078", "until_stopped": true, "qps": 5, "labels": {"a": "b"}}`,
		`{"url": "h2c://echo/", "pacing": "fortio", "no_catchup": true, "percentiles": [99.9]}`,
		`{"url": "tcp://echo:1", "ramp": {"from": 0, "to": 10, "over": "2s"}}`,
		`{"url": "http://e/", "stages": [{"qps": 10, "duration": "1s"}, {"qps": 0, "duration": 2}, 3, {"x": 1}]}`,
		`{"url": "https://u:p@e/?token=1", "headers": ["Authorization: x"], "labels": {}, "headers": []}`,
		`{"url": "", "qps": -1, "bogus": true}`,
		`{"url": "http://e/", "duration": "soon", "ramp": {"x": 1}}`,
		`{"url": "http://e/", "count": 1e30, "connections": 1.5}`,
		`[]`, `null`, `{`, `{"url":"http://e/"} {}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		first, err := Parse(data)
		if err != nil {
			return
		}
		b, err := json.Marshal(first)
		if err != nil {
			t.Fatalf("Marshal of a parsed spec: %v", err)
		}
		second, err := Parse(b)
		if err != nil {
			t.Fatalf("Parse of marshaled spec %s: %v", b, err)
		}
		if !reflect.DeepEqual(first, second) {
			t.Fatalf("round trip changed the spec:\nfirst  %#v\nsecond %#v", first, second)
		}
		again := first.Clone()
		again.Normalize()
		if !reflect.DeepEqual(again, first) {
			t.Fatalf("Normalize is not idempotent:\nonce  %#v\ntwice %#v", first, again)
		}
		red := first.Redacted()
		if !reflect.DeepEqual(red.Redacted(), red) {
			t.Fatalf("Redacted is not idempotent: %#v", red)
		}
		_ = first.HeaderPairs()
		_ = first.Target()
	})
}
