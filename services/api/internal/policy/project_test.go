package policy

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

func TestCheckProjectNamesTheProjectsLimit(t *testing.T) {
	t.Parallel()
	o := Overrides{MaxQPS: ptr(50.0), MaxConnections: ptr(5), MaxDuration: ptr(20 * time.Second), MaxAgents: ptr(1)}
	tests := []struct {
		name    string
		edit    func(*spec.Spec)
		field   string
		message string // "" with field "": accepted
	}{
		{"at every project limit", func(s *spec.Spec) {
			s.QPS, s.Connections, s.Duration, s.Agents = 50, 5, spec.Duration(20*time.Second), &spec.Agents{Count: 1}
		}, "", ""},
		{"qps", func(s *spec.Spec) { s.QPS = 60 }, "spec.qps", "must be at most 50, this project's limit"},
		{"connections", func(s *spec.Spec) { s.Connections = 6 }, "spec.connections", "must be at most 5, this project's limit"},
		{"duration", func(s *spec.Spec) { s.Duration = spec.Duration(21 * time.Second) }, "spec.duration", "must be at most 20s, this project's limit"},
		{"agents", func(s *spec.Spec) { s.Agents = &spec.Agents{Count: 2} }, "spec.agents.count", "must be at most 1, this project's limit"},
		{"over the server's too", func(s *spec.Spec) { s.QPS = 150 }, "spec.qps", "must be at most 50, this project's limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := okSpec()
			tt.edit(&s)
			err := small.CheckProject(&s, o, "spec")
			if tt.field == "" {
				if err != nil {
					t.Fatalf("CheckProject() = %v, want nil", err)
				}
				return
			}
			var e *apperr.Error
			if !errors.As(err, &e) || e.Code != apperr.Invalid || len(e.Fields) != 1 {
				t.Fatalf("CheckProject() = %#v, want one Invalid field", err)
			}
			if e.Fields[0].Field != tt.field || e.Fields[0].Message != tt.message {
				t.Errorf("field = %+v, want %s %q", e.Fields[0], tt.field, tt.message)
			}
			if e.Detail != "the spec asks for more than this project allows" {
				t.Errorf("detail = %q", e.Detail)
			}
		})
	}
}

func TestCheckProjectWithoutOverridesIsTheServers(t *testing.T) {
	t.Parallel()
	s := okSpec()
	s.Connections = 11
	err := small.CheckProject(&s, Overrides{}, "spec")
	var e *apperr.Error
	if !errors.As(err, &e) || len(e.Fields) != 1 || e.Fields[0].Message != "must be at most 10 on this server" ||
		e.Detail != "the spec asks for more than this server allows" {
		t.Fatalf("CheckProject() = %#v, want the server's connections limit", err)
	}
	// An override above a since-lowered server limit does not loosen it.
	s = okSpec()
	s.QPS = 150
	err = small.CheckProject(&s, Overrides{MaxQPS: ptr(200.0)}, "spec")
	if !errors.As(err, &e) || len(e.Fields) != 1 || e.Fields[0].Message != "must be at most 100 on this server" {
		t.Fatalf("CheckProject() = %#v, want the server's qps limit", err)
	}
}

func TestOverridesValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    Overrides
		want []string // fields at fault
	}{
		{"none", Overrides{}, nil},
		{"all at the server's", Overrides{
			MaxQPS: ptr(100.0), MaxConnections: ptr(10), MaxDuration: ptr(time.Minute), MaxAgents: ptr(2), MaxConcurrentRuns: ptr(3),
		}, nil},
		{"all above", Overrides{
			MaxQPS: ptr(100.5), MaxConnections: ptr(11), MaxDuration: ptr(time.Minute + time.Second), MaxAgents: ptr(3), MaxConcurrentRuns: ptr(4),
		}, []string{"limits.max_agents", "limits.max_concurrent_runs", "limits.max_connections", "limits.max_duration", "limits.max_qps"}},
		{"all zero", Overrides{
			MaxQPS: ptr(0.0), MaxConnections: ptr(0), MaxDuration: ptr(time.Duration(0)), MaxAgents: ptr(0), MaxConcurrentRuns: ptr(0),
		}, []string{"limits.max_agents", "limits.max_concurrent_runs", "limits.max_connections", "limits.max_duration", "limits.max_qps"}},
		{"negative", Overrides{MaxQPS: ptr(-1.0), MaxConcurrentRuns: ptr(-1)}, []string{"limits.max_concurrent_runs", "limits.max_qps"}},
		{"fraction of a second", Overrides{MaxDuration: ptr(1500 * time.Millisecond)}, []string{"limits.max_duration"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, f := range tt.o.Validate(small, "limits") {
				got = append(got, f.Field)
				if f.Message == "" {
					t.Errorf("field %s has no message", f.Field)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Validate() fields = %v, want %v", got, tt.want)
			}
		})
	}
	fe := Overrides{MaxConnections: ptr(11)}.Validate(small, "limits")
	if len(fe) != 1 || !strings.Contains(fe[0].Message, "10") {
		t.Errorf("Validate() = %+v, want a message naming the server's 10", fe)
	}
}

func TestApplyAndSet(t *testing.T) {
	t.Parallel()
	o := Overrides{MaxConnections: ptr(4), MaxConcurrentRuns: ptr(1)}
	got := small.Apply(o)
	want := small
	want.MaxConnections, want.MaxConcurrentRuns = 4, 1
	if got != want {
		t.Errorf("Apply() = %+v, want %+v", got, want)
	}
	if set := o.Set(); !slices.Equal(set, []string{FieldMaxConnections, FieldMaxConcurrentRuns}) {
		t.Errorf("Set() = %v", set)
	}
	if set := (Overrides{}).Set(); set == nil || len(set) != 0 {
		t.Errorf("Set() of none = %#v, want an empty list", set)
	}
}
