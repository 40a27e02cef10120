package policy

import (
	"errors"
	"slices"
	"testing"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// TestNarrowAllowList: a project admin lists only what the organisation's
// policy or the project's grants cover; an org admin lists anything, and
// what lies beyond the policy becomes granted (docs/security.md, "Target
// policy").
func TestNarrowAllowList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		t         Targets
		list      []string
		orgAdmin  bool
		granted   []string
		forbidden []string // fields
		invalid   []string
	}{
		{name: "public entries under *", t: Targets{Org: []string{"*"}},
			list: []string{"api.example.com", "93.184.216.0/24", "*"}, granted: []string{}},
		{name: "docker socket by a project admin", t: Targets{Org: []string{"*"}},
			list: []string{"*", "unix:/var/run/docker.sock"}, forbidden: []string{"target_allow_list[1]"}},
		{name: "private and loopback by a project admin", t: Targets{Org: []string{"*"}},
			list: []string{"10.0.0.0/8", "127.0.0.1"}, forbidden: []string{"target_allow_list[0]", "target_allow_list[1]"}},
		{name: "the same by an org admin is granted", t: Targets{Org: []string{"*"}}, orgAdmin: true,
			list: []string{"10.0.0.0/8", "example.com", "unix:/var/run/docker.sock"}, granted: []string{"10.0.0.0/8", "unix:/var/run/docker.sock"}},
		{name: "inside a private range of the policy", t: Targets{Org: []string{"10.20.0.0/16"}},
			list: []string{"10.20.1.0/24", "10.21.0.0/16"}, forbidden: []string{"target_allow_list[1]"}},
		{name: "a grant kept and narrowed, not widened", t: Targets{Org: []string{"*"}, Granted: []string{"127.0.0.0/8", "unix:/run/a.sock"}},
			list: []string{"127.0.0.1", "unix:/run/a.sock", "::1"}, forbidden: []string{"target_allow_list[2]"}},
		{name: "a grant narrowed", t: Targets{Org: []string{"*"}, Granted: []string{"127.0.0.0/8"}},
			list: []string{"127.0.0.1:8080"}, granted: []string{"127.0.0.1:8080"}},
		{name: "bad entries are invalid", t: Targets{Org: []string{"*"}},
			list: []string{"http://x/", "ok.example"}, invalid: []string{"target_allow_list[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			granted, err := tt.t.NarrowAllowList(tt.list, tt.orgAdmin)
			var fields []string
			var ae *apperr.Error
			if errors.As(err, &ae) {
				for _, f := range ae.Fields {
					fields = append(fields, f.Field)
				}
			}
			switch {
			case tt.forbidden != nil:
				if !apperr.Is(err, apperr.Forbidden) || !slices.Equal(fields, tt.forbidden) {
					t.Errorf("err = %v, fields %q; want forbidden on %q", err, fields, tt.forbidden)
				}
			case tt.invalid != nil:
				if !apperr.Is(err, apperr.Invalid) || !slices.Equal(fields, tt.invalid) {
					t.Errorf("err = %v, fields %q; want invalid on %q", err, fields, tt.invalid)
				}
			case err != nil || !slices.Equal(granted, tt.granted):
				t.Errorf("NarrowAllowList = %q, %v; want granted %q", granted, err, tt.granted)
			}
		})
	}
}
