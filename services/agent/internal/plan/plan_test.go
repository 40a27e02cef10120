package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
	"github.com/barrage-dev/barrage/services/agent/internal/httpclient"
)

func TestEngineOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		spec  spec.Spec
		check func(t *testing.T, o engine.Options)
	}{
		{"open rate and duration", spec.Spec{URL: "http://h/", QPS: 50, Connections: 3, Duration: spec.Duration(2 * time.Second)},
			func(t *testing.T, o engine.Options) {
				if o.Pacing != engine.Open || o.QPS != 50 || o.Connections != 3 || o.Duration != 2*time.Second || o.Interval != time.Second {
					t.Fatalf("%+v", o)
				}
			}},
		{"closed count", spec.Spec{URL: "http://h/", Connections: 2, Count: 10},
			func(t *testing.T, o engine.Options) {
				if o.Pacing != engine.Closed || o.Count != 10 || o.Duration != 0 {
					t.Fatalf("%+v", o)
				}
			}},
		{"fortio pacing", spec.Spec{URL: "http://h/", QPS: 10, Connections: 2, Pacing: spec.PacingFortio, NoCatchUp: true, AbortOn: 503},
			func(t *testing.T, o engine.Options) {
				if o.Pacing != engine.Fortio || !o.NoCatchUp || o.AbortOn != 503 {
					t.Fatalf("%+v", o)
				}
			}},
		{"grpc streams multiply the callers", spec.Spec{URL: "grpc://h:1", QPS: 10, Connections: 2, GRPC: &spec.GRPC{Streams: 4}},
			func(t *testing.T, o engine.Options) {
				if o.Connections != 8 {
					t.Fatalf("%d engine connections (callers), want 2 × 4", o.Connections)
				}
			}},
		{"written urls", spec.Spec{URL: "http://u:pw@h:81/post/{seq}", Method: "POST", Connections: 2, Count: 5, RecordWrittenURLs: true},
			func(t *testing.T, o engine.Options) {
				if o.WrittenURLs != spec.MaxWrittenURLs || o.URLPrefix != "http://h:81" || o.MaxURLLength != spec.MaxURLLength || o.URLBytesPerSnapshot != 0 {
					t.Fatalf("written URLs %d, prefix %q, max length %d, bytes per snapshot %d", o.WrittenURLs, o.URLPrefix, o.MaxURLLength, o.URLBytesPerSnapshot)
				}
			}},
		{"no written urls", spec.Spec{URL: "http://h/", Connections: 2, Count: 5},
			func(t *testing.T, o engine.Options) {
				if o.WrittenURLs != 0 || o.URLPrefix != "" {
					t.Fatalf("written URLs %d, prefix %q; want none", o.WrittenURLs, o.URLPrefix)
				}
			}},
		{"ramp", spec.Spec{URL: "http://h/", Connections: 2, Ramp: &spec.Ramp{From: 1, To: 9, Over: spec.Duration(time.Second)}},
			func(t *testing.T, o engine.Options) {
				if o.Ramp == nil || o.Ramp.From != 1 || o.Ramp.To != 9 || o.Ramp.Over != time.Second {
					t.Fatalf("%+v", o.Ramp)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.spec
			s.Normalize()
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			f, err := NewFactory(s, nil, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			o := EngineOptions(s, f)
			if o.Factory != f {
				t.Fatal("factory not passed through")
			}
			tt.check(t, o)
		})
	}
}

func TestNewFactoryRunTypes(t *testing.T) {
	t.Parallel()
	tests := []struct{ url, want string }{
		{"http://127.0.0.1:1/", "HTTP"},
		{"tcp://127.0.0.1:1", "TCP"},
		{"udp://127.0.0.1:1", "UDP"},
		{"grpc://127.0.0.1:1", "GRPC Health for ''"},
	}
	for _, tt := range tests {
		s := spec.Spec{URL: tt.url, QPS: 1, Connections: 1}
		s.Normalize()
		if err := s.Validate(); err != nil {
			t.Fatalf("%s: %v", tt.url, err)
		}
		f, err := NewFactory(s, nil, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.url, err)
		}
		if got := f.RunType(); got != tt.want {
			t.Errorf("%s: run type %q, want %q", tt.url, got, tt.want)
		}
	}
}

// TestOneEntryURLList sends the entry of a list of one fixed URL, not
// url's path: a run read back from a run that wrote one URL.
func TestOneEntryURLList(t *testing.T) {
	t.Parallel()
	for _, s := range []spec.Spec{
		{URL: "http://127.0.0.1:1/", URLs: []string{"http://127.0.0.1:1/post/17?v=2"}, Connections: 1, Count: 1},
		{URL: "http://127.0.0.1:1/", URLs: []string{"http://127.0.0.1:1/post/17?v=2"}, URLsFromRun: "0190b1c2-0000-7000-8000-000000000002", Connections: 1, Count: 1},
	} {
		s.Normalize()
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		f, err := NewFactory(s, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		req := string(f.(*httpclient.Factory).RequestBytes())
		if !strings.HasPrefix(req, "GET /post/17?v=2 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n") {
			t.Errorf("from run %q: request %q, want GET /post/17?v=2 to 127.0.0.1:1", s.URLsFromRun, req)
		}
	}
}
