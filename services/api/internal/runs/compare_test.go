package runs

import (
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
)

func TestIncomparable(t *testing.T) {
	t.Parallel()
	at := func(url string, qps float64) Run {
		return Run{Status: Completed, Spec: spec.Spec{URL: url, QPS: qps}}
	}
	ref := at("http://echo/", 100)
	tests := []struct {
		name    string
		run     Run
		res     Result
		refRes  Result
		want    string // a word of the note; "" when comparable
		changed func(*Run)
	}{
		{name: "same rate and protocol", run: at("http://echo/other", 100)},
		{name: "rates within 1 %", run: at("http://echo/", 100.5)},
		{name: "another rate", run: at("http://echo/", 200), want: "asked for 100 qps, this run 200 qps"},
		{name: "no set rate", run: at("http://echo/", 0), want: "as fast as it can"},
		{name: "another protocol", run: at("grpc://echo:1", 100), want: "same protocol"},
		{name: "stages", run: at("http://echo/", 100), changed: func(r *Run) { r.Spec.Stages = []spec.Stage{{QPS: 100, Duration: spec.Duration(time.Second)}} }, want: "stages"},
		{name: "not completed", run: at("http://echo/", 100), changed: func(r *Run) { r.Status = Failed }, want: "completed"},
		{name: "degraded", run: at("http://echo/", 100), changed: func(r *Run) { r.Degraded = true }, want: "degraded"},
		{name: "seconds dropped", run: at("http://echo/", 100), changed: func(r *Run) { r.IntervalsDroppedAt = time.Now() }, want: "retention"},
		{name: "imported", run: at("http://echo/", 100), res: Result{Imported: &Imported{}}, want: "imported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := tt.run
			if tt.changed != nil {
				tt.changed(&run)
			}
			got := Incomparable(run, tt.res, ref, tt.refRes)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("Incomparable = %q, want a note with %q", got, tt.want)
			}
		})
	}
}

func TestWarmupSeconds(t *testing.T) {
	t.Parallel()
	r := Run{Spec: spec.Spec{Ramp: &spec.Ramp{Over: spec.Duration(2500 * time.Millisecond)}}}
	if got := r.WarmupSeconds(); got != 3 {
		t.Errorf("WarmupSeconds of a 2.5 s ramp = %d, want 3", got)
	}
	if got := (Run{}).WarmupSeconds(); got != 0 {
		t.Errorf("WarmupSeconds without a ramp = %d, want 0", got)
	}
}
