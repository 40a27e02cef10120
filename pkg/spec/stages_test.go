package spec

import (
	"encoding/json"
	"slices"
	"testing"
	"time"
)

func TestStagesValidate(t *testing.T) {
	t.Parallel()
	two := []Stage{{QPS: 100, Duration: dur(10 * time.Second)}, {QPS: 200, Duration: dur(5 * time.Second)}}
	tests := []validateCase{
		{name: "steps", spec: Spec{URL: target, Stages: two}},
		{name: "pause stage", spec: Spec{URL: target, Stages: []Stage{{QPS: 0, Duration: dur(time.Second)},
			{QPS: 5, Duration: dur(time.Second)}}}},
		{name: "last stage holds", spec: Spec{URL: target, Stages: two, Duration: dur(time.Minute)}},
		{name: "with count", spec: Spec{URL: target, Stages: two, Count: 10}},
		{name: "stage qps negative", spec: Spec{URL: target, Stages: []Stage{two[0],
			{QPS: -1, Duration: dur(time.Second)}}}, fields: []string{"stages[1].qps"},
			msg: "stages[1].qps: must be at least 0"},
		{name: "stage qps too high", spec: Spec{URL: target, Stages: []Stage{{QPS: 2e6, Duration: dur(time.Second)}}},
			fields: []string{"stages[0].qps"}},
		{name: "stage without duration", spec: Spec{URL: target, Stages: []Stage{two[0], {QPS: 5}}},
			fields: []string{"stages[1].duration"}, msg: "stages[1].duration: must be greater than 0"},
		{name: "no stage sends", spec: Spec{URL: target, Stages: []Stage{{Duration: dur(time.Second)}}},
			fields: []string{"stages"}},
		{name: "longer than duration", spec: Spec{URL: target, Stages: two, Duration: dur(10 * time.Second)},
			fields: []string{"stages"}, msg: "stages: last 15s in total, more than the duration (10s)"},
		{name: "with ramp", spec: Spec{URL: target, Stages: two, Ramp: &Ramp{To: 5, Over: dur(time.Second)}},
			fields: []string{"stages"}},
		{name: "fortio pacing", spec: Spec{URL: target, Stages: two, Pacing: PacingFortio}, fields: []string{"stages"}},
		{name: "with qps", spec: Spec{URL: target, Stages: two, QPS: 100}, fields: []string{"qps"}},
		{name: "too many", spec: Spec{URL: target, Stages: slices.Repeat(two[:1], MaxStages+1)},
			fields: []string{"stages"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := normalized(tt.spec).Validate()
			if got := errorFields(t, err); !slices.Equal(got, tt.fields) {
				t.Fatalf("fields = %q, want %q (error: %v)", got, tt.fields, err)
			}
			if tt.msg != "" {
				if got := err.Error(); got != "invalid spec: "+tt.msg {
					t.Errorf("error = %q, want %q", got, tt.msg)
				}
			}
		})
	}
}

func TestStagesNormalize(t *testing.T) {
	t.Parallel()
	s := normalized(Spec{URL: target, Stages: []Stage{{QPS: 10, Duration: dur(2 * time.Second)},
		{QPS: 30, Duration: dur(3 * time.Second)}}})
	if s.Duration != dur(5*time.Second) || s.Pacing != PacingOpen {
		t.Errorf("duration %v, pacing %q; want the stages' 5s and open", s.Duration.Std(), s.Pacing)
	}
	if got := s.PeakQPS(); got != 30 {
		t.Errorf("PeakQPS() = %v, want 30", got)
	}
	held := normalized(Spec{URL: target, Duration: dur(time.Minute), Stages: s.Stages})
	if held.Duration != dur(time.Minute) {
		t.Errorf("an explicit duration became %v", held.Duration.Std())
	}
	c := s.Clone()
	c.Stages[0].QPS = 99
	if s.Stages[0].QPS != 10 {
		t.Error("Clone shares the stages")
	}
}

func TestStagesParse(t *testing.T) {
	t.Parallel()
	s, err := Parse([]byte(`{"url": "http://e/", "stages": [{"qps": 100, "duration": "10s"}, {"qps": 200, "duration": 5}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Stage{{QPS: 100, Duration: dur(10 * time.Second)}, {QPS: 200, Duration: dur(5 * time.Second)}}
	if !slices.Equal(s.Stages, want) || s.Duration != dur(15*time.Second) {
		t.Fatalf("stages %+v duration %v", s.Stages, s.Duration.Std())
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(b)
	if err != nil || !slices.Equal(back.Stages, want) {
		t.Fatalf("round trip: %+v, %v", back.Stages, err)
	}
}

func TestStagesParseProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		fields   []string
	}{
		{"unknown stage field", `[{"qps": 1, "duration": "1s", "ramp": 2}]`, []string{"stages[0].ramp"}},
		{"stage qps string", `[{"qps": 1, "duration": "1s"}, {"qps": "x", "duration": "1s"}]`, []string{"stages[1].qps"}},
		{"stage not object", `[5]`, []string{"stages[0]"}},
		{"not array", `{"qps": 1}`, []string{"stages"}},
		{"bad duration", `[{"qps": 1, "duration": "soon"}]`, []string{"stages[0].duration"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(`{"url": "http://e/", "stages": ` + tt.in + `}`))
			if got := errorFields(t, err); !slices.Equal(got, tt.fields) {
				t.Errorf("fields %q, want %q (%v)", got, tt.fields, err)
			}
		})
	}
}
