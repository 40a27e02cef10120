package export

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/fortiojson"
	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/scenario"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// mustRender renders a run and decodes the document back.
func mustRender(t *testing.T, run runs.Run, res runs.Result) *fortiojson.Result {
	t.Helper()
	b, err := Render(run, res)
	if err != nil {
		t.Fatal(err)
	}
	var f fortiojson.Result
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("rendered document does not decode: %v\n%s", err, b)
	}
	return &f
}

func TestRender(t *testing.T) {
	t.Parallel()
	h := hist.New()
	for v := int64(1); v <= 1000; v++ {
		h.RecordMicros(v * 100)
	}
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 23, 10, 4, 5, 0, time.UTC)
	run := runs.Run{
		ID: uuid.New(), Spec: spec.Spec{URL: "http://t.test/", QPS: 250, Connections: 4, Duration: spec.Duration(4 * time.Second)},
		Labels: map[string]string{"team": "web", "env": "prod"}, Target: "http://t.test/", QPSRequested: 250, StartedAt: start,
	}
	res := runs.Result{Response: enc, Service: []byte{}, Count: 1000, Errors: 3, RetCodes: map[string]int64{"200": 997, "503": 3}, Duration: 4 * time.Second}
	run.Seq = 42
	f := mustRender(t, run, res)
	if f.RunType != "HTTP" || f.Labels != "env=prod team=web" || f.RequestedQPS != "250" || f.RequestedDuration != "4s" ||
		f.ActualQPS != 250 || f.ActualDuration != int64(4*time.Second) || f.NumThreads != 4 || f.URL != "http://t.test/" ||
		f.ID != "2026-11-23-100405_42_env_prod_team_web" || f.RunID != 42 || f.ErrorsDurationHistogram.Count != 3 {
		t.Errorf("fortio result %+v", f)
	}
	d := f.DurationHistogram
	if d.Count != 1000 || d.Min != 0.0001 || d.Max < 0.0999 || len(d.Percentiles) != 5 || d.Percentiles[0].Percentile != 50 {
		t.Errorf("duration histogram count %d min %v max %v percentiles %v", d.Count, d.Min, d.Max, d.Percentiles)
	}
	// Closed loop: the service histogram, empty here.
	run.Spec.QPS, run.QPSRequested = 0, 0
	run.Spec.Count, run.Spec.Duration = 50, 0
	if f = mustRender(t, run, res); f.DurationHistogram.Count != 0 || f.RequestedQPS != "max" || f.RequestedDuration != "exactly 50 calls" {
		t.Errorf("closed loop: %+v", f)
	}
}

// TestRenderScenario: a scenario run's Fortio calls are its iterations: the
// iteration histogram (not the requests' response times), the iteration
// rate, and the completed and failed iterations as its codes.
func TestRenderScenario(t *testing.T) {
	t.Parallel()
	encode := func(from, n, step int64) []byte {
		h := hist.New()
		for i := range n {
			h.RecordMicros(from + i*step)
		}
		b, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	run := runs.Run{
		ID: uuid.New(), Target: "http://t.test/", QPSRequested: 60, StartedAt: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC),
		Spec: spec.Spec{URL: "http://t.test/", IterationsPerSecond: 20, Count: 40, Connections: 4, Pacing: spec.PacingOpen,
			Scenario: &scenario.Scenario{Name: "login flow"}},
	}
	// 120 requests of 1 ms or so; 40 iterations of 10 to 49 ms, 4 failed.
	res := runs.Result{
		Response: encode(1000, 120, 1), Service: []byte{}, Count: 120, Errors: 4, RetCodes: map[string]int64{"200": 116, "500": 4},
		Duration: 2 * time.Second,
		Scenario: &runs.ScenarioResult{Started: 40, Completed: 36, Failed: 4, Iteration: encode(10000, 40, 1000)},
	}
	f := mustRender(t, run, res)
	d := f.DurationHistogram
	if d.Count != 40 || d.Min != 0.01 || d.Max < 0.0489 || d.Max > 0.0491 {
		t.Errorf("duration histogram count %d min %v max %v: want the 40 iterations, 10 to 49 ms", d.Count, d.Min, d.Max)
	}
	if f.RunType != "Scenario 'login flow'" || f.RequestedQPS != "20" || f.ActualQPS != 20 || f.RequestedDuration != "exactly 40 calls" ||
		f.ErrorsDurationHistogram.Count != 4 || len(f.RetCodes) != 2 || f.RetCodes["OK"] != 36 || f.RetCodes["FAILED"] != 4 || f.URL != "http://t.test/" {
		t.Errorf("scenario as fortio: %+v", f)
	}
	// Closed loop: no requested rate.
	run.Spec.IterationsPerSecond, run.Spec.Pacing = 0, spec.PacingClosed
	if f = mustRender(t, run, res); f.RequestedQPS != "max" || f.DurationHistogram.Count != 40 {
		t.Errorf("closed-loop scenario: requested %q, %d calls", f.RequestedQPS, f.DurationHistogram.Count)
	}
}
