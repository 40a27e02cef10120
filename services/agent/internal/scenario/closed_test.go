package scenario_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	spec "github.com/barrage-dev/barrage/pkg/scenario"
	"github.com/barrage-dev/barrage/services/agent/internal/scenario"
)

// recorder is a target that records the iteration numbers it is sent and
// the most requests it had in flight at once, and answers after 20 ms.
type recorder struct {
	mu       sync.Mutex
	seen     []int64
	seqs     []int64
	in, most int
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.mu.Lock()
	rc.in++
	rc.most = max(rc.most, rc.in)
	if r.URL.Path == "/first" {
		n, _ := strconv.ParseInt(r.URL.Query().Get("i"), 10, 64)
		rc.seen = append(rc.seen, n)
		if s, err := strconv.ParseInt(r.URL.Query().Get("s"), 10, 64); err == nil {
			rc.seqs = append(rc.seqs, s)
		}
	}
	rc.mu.Unlock()
	time.Sleep(20 * time.Millisecond)
	rc.mu.Lock()
	rc.in--
	rc.mu.Unlock()
}

const twoSteps = `
name: closed
steps:
  - name: first
    url: http://ECHO/first?i={{.iteration}}&s={seq}
    checks: [{name: ok, status: [200]}]
  - name: second
    url: http://ECHO/second
`

// startRecorder serves a recorder until the test ends and returns it with
// the plan of twoSteps against it.
func startRecorder(t *testing.T) (*recorder, *spec.Plan) {
	t.Helper()
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	return rc, mustPlan(t, twoSteps, srv.Listener.Addr().String())
}

// TestClosedLoopRunsVirtualUsersBackToBack runs 3 virtual users for
// exactly 30 iterations numbered as shard 1 of 3 numbers them: each number
// 1, 4, … 88 is sent once, and so is each {seq} 2, 5, … 89 (numbers from 1
// across the shards), and never more than 3 iterations are in flight.
func TestClosedLoopRunsVirtualUsersBackToBack(t *testing.T) {
	t.Parallel()
	rc, plan := startRecorder(t)
	res, err := scenario.Run(runCtx(t), scenario.Options{
		Plan: plan, MaxIterations: 30, Concurrency: 3, IterationStart: 1, IterationStride: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Started != 30 || res.Completed != 30 || res.Failed != 0 || res.IterationsPerSecond != 0 || res.Concurrency != 3 {
		t.Fatalf("started %d completed %d failed %d at %v/s by %d", res.Started, res.Completed, res.Failed, res.IterationsPerSecond, res.Concurrency)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	slices.Sort(rc.seen)
	for i, n := range rc.seen {
		if want := int64(1 + 3*i); n != want {
			t.Fatalf("iteration numbers sent %v: want 1, 4, … 88 once each", rc.seen)
		}
	}
	slices.Sort(rc.seqs)
	for i, n := range rc.seqs {
		if want := int64(2 + 3*i); n != want {
			t.Fatalf("{seq} sent %v: want 2, 5, … 89 once each", rc.seqs)
		}
	}
	if len(rc.seen) != 30 || len(rc.seqs) != 30 || rc.most > 3 {
		t.Fatalf("%d first steps, at most %d in flight: want 30 and 3", len(rc.seen), rc.most)
	}
	for _, st := range res.Steps {
		if st.Count != 30 || st.Errors != 0 || st.Response.Min < 0.020 {
			t.Errorf("step %s: %d requests, %d errors, fastest %v s; want 30, 0, ≥ 20 ms", st.Name, st.Count, st.Errors, st.Response.Min)
		}
	}
	if res.Iteration.Count != 30 || res.Iteration.Min < 0.040 {
		t.Errorf("iterations: %d recorded, shortest %v s; want 30 of at least two 20 ms steps", res.Iteration.Count, res.Iteration.Min)
	}
}

// TestClosedLoopStopsStartingAtTheDuration runs 2 virtual users for 300 ms:
// each iteration takes at least 40 ms, so at most 2 × ⌈300 / 40⌉ = 16
// start, and every one started finishes.
func TestClosedLoopStopsStartingAtTheDuration(t *testing.T) {
	t.Parallel()
	rc, plan := startRecorder(t)
	res, err := scenario.Run(runCtx(t), scenario.Options{Plan: plan, Duration: 300 * time.Millisecond, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if res.Started < 2 || res.Started > 16 || res.Completed != res.Started || int64(len(rc.seen)) != res.Started {
		t.Fatalf("started %d, completed %d, first steps seen %d: want 2 to 16, all completed and seen", res.Started, res.Completed, len(rc.seen))
	}
}
