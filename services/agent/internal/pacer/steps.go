package pacer

import (
	"sort"
	"time"
)

// Stage is one step of a Steps schedule: QPS requests per second (0 is a
// pause) for Length.
type Stage struct {
	QPS    float64
	Length time.Duration
}

// Steps schedules requests at a rate that changes in steps: each stage holds
// its rate for its length, one after the other from offset 0, and the last
// stage's rate holds after the stages end. Every agent of a distributed run
// builds the same stage boundaries from the shared start instant, so they all
// change rate together.
type Steps struct {
	stages []Stage
	startN []float64 // requests scheduled before stage k
	startT []float64 // start of stage k, seconds
	last   float64   // rate after the stages end
	endN   float64   // requests scheduled by the end of the stages
	endT   float64   // end of the stages, seconds
	limits Limits
}

// NewSteps returns a stepped schedule. At least one stage must have a rate
// > 0, and the last stage's rate must be > 0 unless the limits end the
// schedule by the end of the stages.
func NewSteps(stages []Stage, limits Limits) *Steps {
	s := &Steps{stages: stages, limits: limits}
	var n, t float64
	for _, st := range stages {
		s.startN = append(s.startN, n)
		s.startT = append(s.startT, t)
		n += st.QPS * st.Length.Seconds()
		t += st.Length.Seconds()
	}
	s.endN, s.endT = n, t
	if len(stages) > 0 {
		s.last = stages[len(stages)-1].QPS
	}
	return s
}

// At implements Schedule: request i is sent where the integral of the rate
// reaches i.
func (s *Steps) At(i int64) (time.Duration, bool) {
	n := float64(i)
	var t float64
	if n >= s.endN {
		if s.last <= 0 {
			return time.Duration(s.endT * 1e9), false
		}
		t = s.endT + (n-s.endN)/s.last
	} else {
		// The last stage that starts at or before request n. It sends: the
		// next stage starts after n (or the stages end after n), so stage k
		// adds requests. A pause adds none, so the stage after it, which
		// starts at the same count, is the one found.
		k := sort.Search(len(s.startN), func(k int) bool { return s.startN[k] > n }) - 1
		t = s.startT[k] + (n-s.startN[k])/s.stages[k].QPS
	}
	at := time.Duration(t * 1e9)
	return at, s.limits.within(i, at)
}

// RateAt returns the scheduled rate at offset t, for reports.
func (s *Steps) RateAt(t time.Duration) float64 {
	sec := t.Seconds()
	for k := len(s.stages) - 1; k >= 0; k-- {
		if sec >= s.startT[k] {
			return s.stages[k].QPS
		}
	}
	return 0
}
