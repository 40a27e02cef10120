package wire

import "testing"

func TestTraceIDOf(t *testing.T) {
	t.Parallel()
	const id = "4bf92f3577b34da6a3ce929d0e0e4736"
	tests := []struct {
		name, tp, want string
		ok             bool
	}{
		{"version 00", "00-" + id + "-00f067aa0ba902b7-01", id, true},
		{"not sampled", "00-" + id + "-00f067aa0ba902b7-00", id, true},
		{"later version with more fields", "01-" + id + "-00f067aa0ba902b7-01-what-comes", id, true},
		{"version 00 with more", "00-" + id + "-00f067aa0ba902b7-01-x", "", false},
		{"version ff", "ff-" + id + "-00f067aa0ba902b7-01", "", false},
		{"zero trace id", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "", false},
		{"zero parent id", "00-" + id + "-0000000000000000-01", "", false},
		{"upper case", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "", false},
		{"short", "00-" + id[:30] + "-00f067aa0ba902b7-01", "", false},
		{"forged log text", "00-" + id[:31] + " -00f067aa0ba902b7-01", "", false},
		{"empty", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := TraceIDOf(tt.tp)
			if got != tt.want || ok != tt.ok {
				t.Errorf("TraceIDOf(%q) = %q, %v; want %q, %v", tt.tp, got, ok, tt.want, tt.ok)
			}
		})
	}
}
