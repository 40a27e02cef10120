package spec

// validateStages checks a stepped load shape and how it fits the rest of
// the run: every stage's rate and length, at least one stage that sends,
// open pacing, no ramp, no qps of its own, and a duration that holds every
// stage.
func (s Spec) validateStages(p *problems) {
	if len(s.Stages) == 0 {
		return
	}
	if len(s.Stages) > MaxStages {
		p.add("stages", "must have at most %d stages", MaxStages)
		return
	}
	sends := false
	for i, st := range s.Stages {
		f := index("stages", i)
		checkRate(p, f+".qps", st.QPS, false)
		checkDuration(p, f+".duration", st.Duration, MaxDuration)
		sends = sends || st.QPS > 0
	}
	if !sends {
		p.add("stages", "need at least one stage with qps greater than 0")
	}
	if total := s.StagesLength(); s.Duration > 0 && total > s.Duration.Std() {
		p.add("stages", "last %s in total, more than the duration (%s)", formatDuration(total),
			formatDuration(s.Duration.Std()))
	}
	if s.Ramp != nil {
		p.add("stages", "cannot be combined with ramp")
	}
	if s.Pacing.Valid() && s.Pacing != PacingOpen {
		p.add("stages", "require open pacing")
	}
	if s.QPS != 0 {
		p.add("qps", "must be 0 when stages are set: the stages set the rate")
	}
}
