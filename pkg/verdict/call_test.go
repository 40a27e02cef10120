package verdict

import "testing"

func TestCallLatency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		iv   Interval
		want Call
	}{
		{"wholly above 1", Interval{Point: 1.12, Low: 1.07, High: 1.17}, Regression},
		{"just above 1, inside the band", Interval{Point: 1.02, Low: 1.01, High: 1.03}, Regression},
		{"wholly below 1", Interval{Point: 0.8, Low: 0.7, High: 0.9}, Improvement},
		{"holds 1 within the band", Interval{Point: 1.01, Low: 0.97, High: 1.04}, NoChange},
		{"band edges count as inside", Interval{Point: 1, Low: 0.95, High: 1.05}, NoChange},
		{"holds 1, reaches past the band", Interval{Point: 1.02, Low: 0.97, High: 1.07}, Inconclusive},
		{"holds 1, reaches below the band", Interval{Point: 0.99, Low: 0.9, High: 1.01}, Inconclusive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := CallLatency(tt.iv, NoChangeBand); got != tt.want {
				t.Errorf("CallLatency(%+v) = %s, want %s", tt.iv, got, tt.want)
			}
		})
	}
}
