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

func TestCallQPSAndErrorRate(t *testing.T) {
	t.Parallel()
	qps := []struct {
		iv   Interval
		want Call
	}{
		{Interval{Point: 0.8, Low: 0.75, High: 0.85}, Regression},
		{Interval{Point: 1.2, Low: 1.1, High: 1.3}, Improvement},
		{Interval{Point: 1, Low: 0.98, High: 1.02}, NoChange},
		{Interval{Point: 1, Low: 0.9, High: 1.1}, Inconclusive},
		{Interval{Point: 0.5, Low: 0, High: 0.9}, Regression},
	}
	for _, tt := range qps {
		if got := CallQPS(tt.iv, NoChangeBand); got != tt.want {
			t.Errorf("CallQPS(%+v) = %s, want %s", tt.iv, got, tt.want)
		}
	}
	errs := []struct {
		iv   Interval
		want Call
	}{
		{Interval{Point: 0.02, Low: 0.01, High: 0.03}, Regression},
		{Interval{Point: -0.02, Low: -0.03, High: -0.01}, Improvement},
		{Interval{}, NoChange},
		{Interval{Point: 0.0005, Low: -0.0005, High: 0.001}, NoChange},
		{Interval{Point: 0.001, Low: -0.001, High: 0.004}, Inconclusive},
	}
	for _, tt := range errs {
		if got := CallErrorRate(tt.iv, ErrorRateBand); got != tt.want {
			t.Errorf("CallErrorRate(%+v) = %s, want %s", tt.iv, got, tt.want)
		}
	}
}
