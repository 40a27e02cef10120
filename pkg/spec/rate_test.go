package spec

import (
	"testing"
	"time"
)

func TestTargetQPSAt(t *testing.T) {
	flat := Spec{QPS: 300}
	ramp := Spec{QPS: 1000, Ramp: &Ramp{From: 200, To: 1000, Over: Duration(10 * time.Second)}}
	steps := Spec{Stages: []Stage{{QPS: 100, Duration: Duration(2 * time.Second)}, {QPS: 0, Duration: Duration(time.Second)}, {QPS: 400, Duration: Duration(time.Second)}}}
	for _, c := range []struct {
		s    Spec
		at   time.Duration
		want float64
	}{
		{flat, 0, 300}, {flat, time.Hour, 300},
		{ramp, 0, 200}, {ramp, 5 * time.Second, 600}, {ramp, 10 * time.Second, 1000}, {ramp, time.Minute, 1000},
		{steps, 0, 100}, {steps, 1999 * time.Millisecond, 100}, {steps, 2 * time.Second, 0}, {steps, 3 * time.Second, 400}, {steps, time.Hour, 400},
	} {
		if got := c.s.TargetQPSAt(c.at); got != c.want {
			t.Errorf("TargetQPSAt(%v) of %+v = %v, want %v", c.at, c.s, got, c.want)
		}
	}
	ok := Spec{URL: "http://example.com/", QPS: 100, Duration: Duration(time.Second), AbortIfRateNotHeld: true}
	ok.Normalize()
	if err := ok.Validate(); err != nil {
		t.Errorf("qps 100 with abort_if_rate_not_held: %v", err)
	}
}
