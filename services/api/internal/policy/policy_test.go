package policy

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// small are limits a test can reach.
var small = Limits{MaxQPS: 100, MaxConnections: 10, MaxDuration: time.Minute, MaxAgents: 2, MaxHeaders: 1, MaxPayloadBytes: 4, MaxConcurrentRuns: 3}

// okSpec returns a spec inside small.
func okSpec() spec.Spec {
	return spec.Spec{URL: "http://target.test/", QPS: 10, Connections: 4, Duration: spec.Duration(10 * time.Second)}
}

// fieldsOf returns the sorted fields of an Invalid error, failing t for
// anything else.
func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	var e *apperr.Error
	if !errors.As(err, &e) || e.Code != apperr.Invalid {
		t.Fatalf("error = %v, want an apperr Invalid", err)
	}
	out := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		out[i] = f.Field
	}
	slices.Sort(out)
	return out
}

func TestCheckReportsEachLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		edit   func(*spec.Spec)
		prefix string
		want   []string // nil: accepted
	}{
		{"inside every limit", func(*spec.Spec) {}, "spec", nil},
		{"at every limit", func(s *spec.Spec) {
			s.QPS, s.Connections, s.Duration = 100, 10, spec.Duration(time.Minute)
			s.Agents, s.Headers, s.Payload = &spec.Agents{Count: 2}, []string{"X-A: 1"}, "abcd"
		}, "spec", nil},
		{"qps", func(s *spec.Spec) { s.QPS = 100.5 }, "spec", []string{"spec.qps"}},
		{"ramp peak", func(s *spec.Spec) { s.QPS, s.Ramp = 0, &spec.Ramp{To: 150, Over: spec.Duration(time.Second)} }, "spec", []string{"spec.qps"}},
		{"connections", func(s *spec.Spec) { s.Connections = 11 }, "spec", []string{"spec.connections"}},
		{"duration", func(s *spec.Spec) { s.Duration = spec.Duration(time.Minute + time.Second) }, "spec", []string{"spec.duration"}},
		{"agents", func(s *spec.Spec) { s.Agents = &spec.Agents{Count: 3} }, "spec", []string{"spec.agents.count"}},
		{"headers", func(s *spec.Spec) { s.Headers = []string{"X-A: 1", "X-B: 2"} }, "spec", []string{"spec.headers"}},
		{"payload", func(s *spec.Spec) { s.Payload = "abcde" }, "spec", []string{"spec.payload"}},
		{"payload file", func(s *spec.Spec) { s.PayloadFile = "/tmp/body.json" }, "spec", []string{"spec.payload_file"}},
		{"all at once", func(s *spec.Spec) {
			s.QPS, s.Connections, s.Duration = 1000, 20, spec.Duration(time.Hour)
			s.Agents, s.Headers, s.Payload = &spec.Agents{Count: 5}, []string{"X-A: 1", "X-B: 2"}, "abcdefgh"
		}, "spec", []string{"spec.agents.count", "spec.connections", "spec.duration", "spec.headers", "spec.payload", "spec.qps"}},
		{"no prefix", func(s *spec.Spec) { s.QPS, s.Connections = 101, 11 }, "", []string{"connections", "qps"}},
		{"another prefix", func(s *spec.Spec) { s.Agents = &spec.Agents{Count: 3} }, "test.spec", []string{"test.spec.agents.count"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := okSpec()
			tt.edit(&s)
			err := small.Check(&s, tt.prefix)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			if got := fieldsOf(t, err); !slices.Equal(got, tt.want) {
				t.Errorf("fields = %q, want %q", got, tt.want)
			}
			var e *apperr.Error
			errors.As(err, &e)
			if e.Detail != "the spec asks for more than this server allows" {
				t.Errorf("detail = %q", e.Detail)
			}
			for _, f := range e.Fields {
				if !strings.Contains(f.Message, "on this server") && f.Field != tt.prefix+".payload_file" {
					t.Errorf("message of %s = %q, want it to say it is this server's limit", f.Field, f.Message)
				}
			}
		})
	}
}

func TestCheckReportsSpecRulesFirst(t *testing.T) {
	t.Parallel()
	s := okSpec()
	s.URL, s.QPS, s.Connections = "ftp://files.test/", 1000, 0
	err := small.Check(&s, "spec")
	if got := fieldsOf(t, err); !slices.Equal(got, []string{"spec.url"}) {
		t.Errorf("fields = %q, want only the spec rule [spec.url], not the limits", got)
	}
	var e *apperr.Error
	errors.As(err, &e)
	if e.Detail != "the spec has invalid fields" {
		t.Errorf("detail = %q, want the spec's", e.Detail)
	}
}

func TestCheckNormalizes(t *testing.T) {
	t.Parallel()
	s := spec.Spec{URL: "http://target.test/", QPS: 10, Duration: spec.Duration(time.Second)}
	if err := small.Check(&s, "spec"); err != nil {
		t.Fatal(err)
	}
	if s.Connections != 8 || s.Pacing != spec.PacingOpen || s.Method != "GET" {
		t.Errorf("after Check: connections %d, pacing %q, method %q; want the defaults 8, open, GET", s.Connections, s.Pacing, s.Method)
	}
}

func TestLimitsValidate(t *testing.T) {
	t.Parallel()
	var defaults Limits
	defaults.Normalize()
	want := Limits{
		MaxQPS: DefaultMaxQPS, MaxConnections: DefaultMaxConnections, MaxDuration: DefaultMaxDuration,
		MaxAgents: DefaultMaxAgents, MaxHeaders: DefaultMaxHeaders, MaxPayloadBytes: DefaultMaxPayloadBytes,
		MaxConcurrentRuns: DefaultMaxConcurrentRuns,
	}
	if defaults != want {
		t.Errorf("Normalize() of zero limits = %+v, want the defaults %+v", defaults, want)
	}
	if err := defaults.Validate(); err != nil {
		t.Errorf("the default limits are invalid: %v", err)
	}
	kept := small
	kept.Normalize()
	if kept != small {
		t.Errorf("Normalize changed set limits: %+v", kept)
	}
	tests := []struct {
		name string
		edit func(*Limits)
		want string
	}{
		{"qps zero", func(l *Limits) { l.MaxQPS = 0 }, "max qps 0"},
		{"qps over spec", func(l *Limits) { l.MaxQPS = spec.MaxQPS + 1 }, "max qps"},
		{"connections negative", func(l *Limits) { l.MaxConnections = -1 }, "max connections -1"},
		{"connections over spec", func(l *Limits) { l.MaxConnections = spec.MaxConnections + 1 }, "max connections"},
		{"duration zero", func(l *Limits) { l.MaxDuration = 0 }, "max duration 0s"},
		{"duration over spec", func(l *Limits) { l.MaxDuration = spec.MaxDuration + time.Second }, "max duration"},
		{"agents zero", func(l *Limits) { l.MaxAgents = 0 }, "max agents 0"},
		{"agents over spec", func(l *Limits) { l.MaxAgents = spec.MaxAgents + 1 }, "max agents"},
		{"headers over spec", func(l *Limits) { l.MaxHeaders = spec.MaxHeaders + 1 }, "max headers"},
		{"payload zero", func(l *Limits) { l.MaxPayloadBytes = 0 }, "max payload 0"},
		{"payload over spec", func(l *Limits) { l.MaxPayloadBytes = spec.MaxPayloadBytes + 1 }, "max payload"},
		{"concurrent runs zero", func(l *Limits) { l.MaxConcurrentRuns = 0 }, "max concurrent runs 0"},
		{"concurrent runs over cap", func(l *Limits) { l.MaxConcurrentRuns = CapConcurrentRuns + 1 }, "max concurrent runs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := small
			tt.edit(&l)
			err := l.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %v, want an error naming %q", err, tt.want)
			}
			if err != nil && strings.Count(err.Error(), "\n") != 0 {
				t.Errorf("Validate() reported more than the one bad limit: %v", err)
			}
		})
	}
	if err := (Limits{}).Validate(); err == nil || strings.Count(err.Error(), "\n") != 6 {
		t.Errorf("Validate() of zero limits = %v, want seven errors", err)
	}
}

// FuzzCheck decodes arbitrary JSON as a spec, as the API does, and checks
// that Check never panics, that what it accepts is a valid spec inside the
// limits, and that what it refuses is an Invalid error on prefixed fields.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"url":"http://t.test/","qps":10,"duration":"10s"}`,
		`{"url":"http://t.test/","qps":1000,"connections":50,"duration":"1h","headers":["A: 1","B: 2"],"payload":"hello"}`,
		`{"url":"http://t.test/","ramp":{"to":500,"over":"5s"},"duration":"10s"}`,
		`{"url":"udp://t.test:53","count":5,"agents":{"count":3,"selector":{"zone":"a"}}}`,
		`{"url":"grpc://t.test:9000","until_stopped":true,"grpc":{"mode":"ping","ping_delay":"1s"}}`,
		`{"url":"http://t.test/","payload_file":"/x","duration":1e300}`,
		`{"url":"ftp://t.test/","qps":-1,"pacing":"closed"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s spec.Spec
		if json.Unmarshal(data, &s) != nil {
			return
		}
		err := small.Check(&s, "spec")
		if err != nil {
			var e *apperr.Error
			if !errors.As(err, &e) || e.Code != apperr.Invalid || len(e.Fields) == 0 {
				t.Fatalf("Check refused %s with %v, want Invalid with fields", data, err)
			}
			for _, fe := range e.Fields {
				if fe.Field != "spec" && !strings.HasPrefix(fe.Field, "spec.") {
					t.Fatalf("Check reported field %q without the prefix", fe.Field)
				}
			}
			return
		}
		if verr := s.Validate(); verr != nil {
			t.Fatalf("Check accepted %s, which is not a valid spec: %v", data, verr)
		}
		switch {
		case s.PeakQPS() > small.MaxQPS, s.Connections > small.MaxConnections, s.RunFor() > small.MaxDuration,
			s.Agents != nil && s.Agents.Count > small.MaxAgents, len(s.Headers) > small.MaxHeaders,
			len(s.Payload) > small.MaxPayloadBytes, s.PayloadFile != "":
			t.Fatalf("Check accepted %s, which is over the limits", data)
		}
	})
}
