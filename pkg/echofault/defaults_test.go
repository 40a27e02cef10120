package echofault

import (
	"errors"
	"testing"
	"time"
)

func TestParseDefaults(t *testing.T) {
	t.Parallel()
	lim := Limits{MaxDelay: time.Second, MaxPayload: 1 << 20}
	tests := []struct {
		name, raw, field string
	}{
		{name: "status share", raw: "status=503:20"},
		{name: "several", raw: "status=503:5&delay=100ms:10&size=1024"},
		{name: "empty", raw: ""},
		{name: "bad status", raw: "status=abc", field: "status"},
		{name: "status over 100", raw: "status=503:80,500:30", field: "status"},
		{name: "bad delay", raw: "delay=fast", field: "delay"},
		{name: "bad saturate", raw: "status=200&saturate=x", field: "saturate"},
		{name: "bad header", raw: "header=nocolon", field: "header"},
		{name: "unknown", raw: "stauts=503", field: "stauts"},
		{name: "bad escape", raw: "status=%zz", field: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := ParseDefaults(tt.raw, lim)
			var pe *ParamError
			switch {
			case tt.field == "" && tt.name == "bad escape":
				if err == nil {
					t.Fatal("malformed escape parsed")
				}
			case tt.field == "":
				if err != nil {
					t.Fatalf("ParseDefaults(%q) = %v", tt.raw, err)
				}
			case !errors.As(err, &pe) || pe.Name != tt.field:
				t.Fatalf("ParseDefaults(%q) = %v, want a ParamError naming %q", tt.raw, err, tt.field)
			}
			if tt.raw == "status=503:20" {
				codes, pcts := p.Status.Chances()
				if len(codes) != 1 || codes[0] != 503 || pcts[0] != 20 {
					t.Fatalf("status chances = %v %v, want [503] [20]", codes, pcts)
				}
			}
		})
	}
}
