package searches

import (
	"slices"
	"testing"
)

// simulate runs the strategy against a target that passes every rate up to
// knee and returns the rates tried and the outcome.
func simulate(minQPS, maxQPS, res, knee float64) ([]float64, Outcome, *strategy) {
	s := newStrategy(minQPS, maxQPS, res)
	q := s.first()
	var tried []float64
	for range 100 {
		tried = append(tried, q)
		next, done, out := s.record(q, q <= knee)
		if done {
			return tried, out, s
		}
		q = next
	}
	return tried, "", s
}

func TestStrategy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		min, max, res      float64
		knee               float64
		want               Outcome
		wantTried          []float64
		wantPass, wantFail float64
	}{
		{name: "probe then bisect", min: 50, max: 400, res: 0.02, knee: 180, want: Found,
			wantTried: []float64{50, 100, 200, 150, 175, 187.5, 181.25, 178.13}, wantPass: 178.13, wantFail: 181.25},
		{name: "min fails", min: 50, max: 400, res: 0.02, knee: 10, want: NotMet, wantTried: []float64{50}, wantFail: 50},
		{name: "max passes", min: 50, max: 300, res: 0.02, knee: 1000, want: AboveMax,
			wantTried: []float64{50, 100, 200, 300}, wantPass: 300},
		{name: "fails at max", min: 50, max: 300, res: 0.05, knee: 290, want: Found,
			wantTried: []float64{50, 100, 200, 300, 250, 275, 287.5}, wantPass: 287.5, wantFail: 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tried, out, s := simulate(tt.min, tt.max, tt.res, tt.knee)
			if out != tt.want || !slices.Equal(tried, tt.wantTried) {
				t.Fatalf("tried %v → %q, want %v → %q", tried, out, tt.wantTried, tt.want)
			}
			if s.pass != tt.wantPass || (tt.wantFail != 0 && s.fail != tt.wantFail) {
				t.Errorf("pass %v fail %v, want %v and %v", s.pass, s.fail, tt.wantPass, tt.wantFail)
			}
		})
	}
}

func TestStrategyConvergesWithinResolution(t *testing.T) {
	t.Parallel()
	for _, knee := range []float64{51, 77, 123.4, 999, 4321} {
		_, out, s := simulate(50, 5000, 0.02, knee)
		if out != Found || s.pass > knee || s.fail <= knee || (s.fail-s.pass) > 0.02*s.pass {
			t.Errorf("knee %v: %q, pass %v, fail %v", knee, out, s.pass, s.fail)
		}
	}
}
