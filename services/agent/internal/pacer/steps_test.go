package pacer

import (
	"testing"
	"time"
)

// countBetween returns how many requests s schedules in [from, to).
func countBetween(s Schedule, from, to time.Duration) int64 {
	return countUntil(s, to) - countUntil(s, from)
}

func TestSteps(t *testing.T) {
	t.Parallel()
	sec := time.Second
	tests := []struct {
		name   string
		stages []Stage
		limits Limits
		// want is the count scheduled in each second from 0.
		want []int64
	}{
		{"two steps", []Stage{{100, 2 * sec}, {300, 2 * sec}}, Limits{End: 4 * sec}, []int64{100, 100, 300, 300}},
		{"last stage holds", []Stage{{50, sec}, {20, sec}}, Limits{End: 4 * sec}, []int64{50, 20, 20, 20}},
		{"pause in the middle", []Stage{{10, sec}, {0, 2 * sec}, {10, sec}}, Limits{End: 5 * sec}, []int64{10, 0, 0, 10, 10}},
		{"pause first", []Stage{{0, sec}, {40, sec}}, Limits{End: 3 * sec}, []int64{0, 40, 40}},
		{"trailing pause ends", []Stage{{30, sec}, {0, sec}}, Limits{End: 3 * sec}, []int64{30, 0, 0}},
		{"fractional share", []Stage{{2.5, 2 * sec}, {7.5, 2 * sec}}, Limits{End: 4 * sec}, []int64{3, 2, 8, 7}},
		{"step down", []Stage{{400, sec}, {100, sec}}, Limits{End: 2 * sec}, []int64{400, 100}},
		{"count limit", []Stage{{100, sec}, {200, sec}}, Limits{Count: 150}, []int64{100, 50, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewSteps(tt.stages, tt.limits)
			for k, want := range tt.want {
				from := time.Duration(k) * sec
				if got := countBetween(s, from, from+sec); got != want {
					t.Errorf("second %d: scheduled %d, want %d", k, got, want)
				}
			}
		})
	}
}

func TestStepsMonotonic(t *testing.T) {
	t.Parallel()
	s := NewSteps([]Stage{{7, 300 * time.Millisecond}, {0, time.Second}, {1000, 50 * time.Millisecond}, {3, time.Second}}, Limits{})
	prev := time.Duration(-1)
	for i := range int64(200) {
		at, ok := s.At(i)
		if !ok || at < prev {
			t.Fatalf("request %d at %v (ok %v) after %v", i, at, ok, prev)
		}
		prev = at
	}
	if got := s.RateAt(500 * time.Millisecond); got != 0 {
		t.Errorf("RateAt(0.5s) = %v, want the pause's 0", got)
	}
	if got := s.RateAt(time.Hour); got != 3 {
		t.Errorf("RateAt(1h) = %v, want the last stage's 3", got)
	}
}
