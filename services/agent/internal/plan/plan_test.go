package plan

import (
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
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
			f, err := NewFactory(s, nil, nil)
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
	}
	for _, tt := range tests {
		s := spec.Spec{URL: tt.url, QPS: 1, Connections: 1}
		s.Normalize()
		if err := s.Validate(); err != nil {
			t.Fatalf("%s: %v", tt.url, err)
		}
		f, err := NewFactory(s, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.url, err)
		}
		if got := f.RunType(); got != tt.want {
			t.Errorf("%s: run type %q, want %q", tt.url, got, tt.want)
		}
	}
}
