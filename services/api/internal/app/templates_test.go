package app

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// pathRecorder is a loopback HTTP target that records the path of every
// request it answers.
type pathRecorder struct {
	mu    sync.Mutex
	paths []string
}

func startPathRecorder(t *testing.T) (*pathRecorder, string) {
	t.Helper()
	pr := &pathRecorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pr.mu.Lock()
		pr.paths = append(pr.paths, r.URL.Path)
		pr.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return pr, srv.URL
}

func (pr *pathRecorder) snapshot() []string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return append([]string(nil), pr.paths...)
}

// TestDistributedSeqTemplateIsUniqueAcrossShards runs /post/{seq:6} on two
// agents: every request the target sees carries its own number, and
// together the shards count 1..N without a gap.
func TestDistributedSeqTemplateIsUniqueAcrossShards(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	rec, target := startPathRecorder(t)
	startAgents(t, e.NATSURL, 2)
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default",
		"spec":    map[string]any{"url": target + "/post/{seq:6}", "qps": 200, "connections": 4, "duration": "2s"},
	}))
	run := e.waitRun(t, created.Id.String(), 40*time.Second)
	if run.Status != "completed" || run.Summary == nil {
		t.Fatalf("run ended %s (error %q)", run.Status, derefS(run.Error))
	}
	if n := len(e.shardFinals(t, created.Id.String())); n != 2 {
		t.Fatalf("%d shard finals, want 2", n)
	}
	paths := rec.snapshot()
	if int64(len(paths)) != run.Summary.Count || len(paths) < 380 {
		t.Fatalf("target saw %d requests, the run counted %d (want about 400)", len(paths), run.Summary.Count)
	}
	seen := map[int]bool{}
	odd := 0
	for _, p := range paths {
		digits, ok := strings.CutPrefix(p, "/post/")
		n, err := strconv.Atoi(digits)
		if !ok || err != nil || len(digits) != 6 {
			t.Fatalf("path %q, want /post/<6 digits>", p)
		}
		if seen[n] {
			t.Errorf("seq %d sent twice", n)
		}
		seen[n] = true
		odd += n % 2
	}
	// Shard 0 renders 1, 3, 5...; shard 1 renders 2, 4, 6...: both halves
	// are there, and the numbers are 1..N with at most one gap per
	// connection (a request abandoned at the end).
	if odd < len(paths)/2-10 || odd > len(paths)/2+10 {
		t.Errorf("%d odd seqs of %d: the shards did not share the range", odd, len(paths))
	}
	missing := 0
	for n := 1; n <= len(paths); n++ {
		if !seen[n] {
			missing++
		}
	}
	if missing > 4 {
		t.Errorf("%d numbers of 1..%d never sent", missing, len(paths))
	}
}

// TestDistributedRequestMix runs a 3:1 read/write mix on two agents: the
// result's entries follow the weights within 5 %, carry their own codes
// and histograms, and add up to the total.
func TestDistributedRequestMix(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	rec, target := startPathRecorder(t)
	startAgents(t, e.NATSURL, 2)
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default",
		"spec": map[string]any{"url": target + "/", "qps": 400, "connections": 4, "duration": "2s", "requests": []map[string]any{
			{"name": "reads", "url": target + "/read/{rand:100}", "weight": 3},
			{"url": target + "/write/{seq}", "method": "PUT", "body": `{"id":{seq}}`, "weight": 1},
		}},
	}))
	id := created.Id.String()
	run := e.waitRun(t, id, 40*time.Second)
	if run.Status != "completed" {
		t.Fatalf("run ended %s (error %q)", run.Status, derefS(run.Error))
	}
	res := decode[client.RunResult](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/result", e.AdminToken, nil))
	if res.Entries == nil || len(*res.Entries) != 2 {
		t.Fatalf("result entries %+v, want 2", res.Entries)
	}
	entries := *res.Entries
	if entries[0].Name != "reads" || entries[1].Name != "PUT /write/{seq}" || entries[1].Method != "PUT" {
		t.Errorf("entry names %q, %q (%s), want reads and PUT /write/{seq}", entries[0].Name, entries[1].Name, entries[1].Method)
	}
	var sum, sumResp int64
	for i, want := range []float64{0.75, 0.25} {
		en := entries[i]
		share := float64(en.Count) / float64(res.Count)
		if share < want*0.95 || share > want*1.05 {
			t.Errorf("entry %d: %d of %d requests (%.3f), want %.2f ± 5 %%", i, en.Count, res.Count, share, want)
		}
		if en.RetCodes["200"] != en.Count || en.Response.Count != en.Count || en.Service.Count != en.Count {
			t.Errorf("entry %d: codes %v, histograms %d/%d, want all %d 200", i, en.RetCodes, en.Response.Count, en.Service.Count, en.Count)
		}
		sum += en.Count
		sumResp += en.Response.Count
	}
	// 400 qps for 2 s is 800 requests; with -race on a loaded machine the two
	// in-process agents fall behind (640 seen at load average 13), and what
	// matters here is that the entries add up to the total, not the rate.
	if sum != res.Count || sumResp != res.Response.Count || res.Count < 400 || res.Count > 800 {
		t.Errorf("entries add to %d requests (%d in histograms), total %d (want 400..800, all in the entries)", sum, sumResp, res.Count)
	}
	writes := 0
	for _, p := range rec.snapshot() {
		if strings.HasPrefix(p, "/write/") {
			writes++
		}
	}
	if int64(writes) != entries[1].Count {
		t.Errorf("target saw %d writes, the write entry counted %d", writes, entries[1].Count)
	}
}
