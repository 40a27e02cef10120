package spec

import (
	"maps"
	"testing"
)

func TestParseFortioLabels(t *testing.T) {
	for _, c := range []struct {
		in   string
		want map[string]string
	}{
		{"", nil},
		{"  ", nil},
		{"env=prod,team=perf", map[string]string{"env": "prod", "team": "perf"}},
		{" env=prod , team= ", map[string]string{"env": "prod", "team": ""}},
		{"canary run 7", map[string]string{"title": "canary run 7"}},
		{"env=prod,oops", map[string]string{"title": "env=prod,oops"}},
		{"bad key=x", map[string]string{"title": "bad key=x"}},
	} {
		if got := ParseFortioLabels(c.in); !maps.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("ParseFortioLabels(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}
