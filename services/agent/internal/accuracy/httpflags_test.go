//go:build accuracy

package accuracy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// TestHTTPFlagsAgainstEcho runs the HTTP options of issue #14 against the
// real barrage-echo: gzip replies counted compressed, redirects followed to
// the final 200, HTTP/1.0 and a per-connection request limit answered.
func TestHTTPFlagsAgainstEcho(t *testing.T) {
	a := startEcho(t)
	const calls = 20
	body := strings.Repeat("barrage ", 1024) // 8 KiB, compressible
	tests := []struct {
		name string
		spec spec.Spec
		code int32
	}{
		{"gzip not asked", spec.Spec{URL: httpURL(a, "gzip=true"), Payload: body}, 200},
		{"compression", spec.Spec{URL: httpURL(a, "gzip=true"), Payload: body, Compression: true}, 200},
		{"redirect not followed", spec.Spec{URL: httpURL(a, "status=302&header=Location:/final")}, 302},
		{"redirect followed", spec.Spec{URL: httpURL(a, "status=302&header=Location:/final"), FollowRedirects: true}, 200},
		{"http1.0", spec.Spec{URL: httpURL(a, "size=64"), HTTP10: true}, 200},
		{"max 3 per connection", spec.Spec{URL: httpURL(a, "size=64"), MaxRequestsPerConnection: 3, Prefetch: true}, 200},
	}
	received := map[string]int64{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.spec
			s.QPS, s.Connections, s.Count = 200, 2, calls
			final := load(t, s, nil)
			if final.Count != calls || final.Codes[tt.code] != calls {
				t.Fatalf("count %d codes %v, want %d × %d", final.Count, final.Codes, calls, tt.code)
			}
			received[tt.name] = final.Received
		})
	}
	plain, zipped := received["gzip not asked"], received["compression"]
	if plain < calls*int64(len(body)) || zipped*10 > plain {
		t.Fatalf("received %d bytes gzipped, %d plain: want a tenth at most", zipped, plain)
	}
}

// TestUnixSocketEcho: the echo listening on a Unix socket answers a run
// whose URL host does not resolve.
func TestUnixSocketEcho(t *testing.T) {
	dir, err := os.MkdirTemp("", "brg") // short: sun_path is ~104 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "echo.sock")
	startEcho(t, "-http-addr", "unix:"+sock)
	final := load(t, spec.Spec{URL: "http://echo.invalid/?size=100", UnixSocket: sock, QPS: 200, Connections: 2, Count: 20}, nil)
	if final.Count != 20 || final.Codes[200] != 20 || final.Received < 20*100 {
		t.Fatalf("count %d codes %v received %d, want 20 × 200 with 100-byte bodies", final.Count, final.Codes, final.Received)
	}
}
