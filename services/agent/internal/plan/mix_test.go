package plan

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
)

// mixTarget answers reads 200 and writes 201, 503 for /fail, and records
// what it received.
type mixTarget struct {
	mu        sync.Mutex
	byMethod  map[string]int
	bodyBytes map[string][]int // sizes of the bodies received, by path prefix
}

func startMixTarget(t *testing.T) (*mixTarget, string) {
	t.Helper()
	mt := &mixTarget{byMethod: map[string]int{}, bodyBytes: map[string][]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		mt.mu.Lock()
		mt.byMethod[r.Method]++
		mt.bodyBytes[first] = append(mt.bodyBytes[first], len(b))
		mt.mu.Unlock()
		switch {
		case first == "fail":
			w.WriteHeader(http.StatusServiceUnavailable)
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
		}
	}))
	t.Cleanup(srv.Close)
	return mt, srv.URL
}

// runMix runs a normalized, validated spec with the real engine and client.
func runMix(t *testing.T, s spec.Spec) *engine.Snapshot {
	t.Helper()
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	f, err := NewFactory(s, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	final, err := engine.Run(context.Background(), EngineOptions(s, f))
	if err != nil {
		t.Fatal(err)
	}
	return final
}

// TestWeightedMix sends 4000 requests of a 70/20/10 mix: each entry's
// count is within 5 % of its weight, its codes are its own, and the
// entries add up to the total.
func TestWeightedMix(t *testing.T) {
	t.Parallel()
	mt, base := startMixTarget(t)
	final := runMix(t, spec.Spec{URL: base + "/", Connections: 4, Count: 4000, Requests: []spec.Request{
		{URL: base + "/read/{rand:100}", Weight: 7},
		{URL: base + "/write/{seq}", Body: `{"id":{seq}}`, Weight: 2},
		{URL: base + "/fail", Method: "DELETE", Weight: 1},
	}})
	if final.Count != 4000 || len(final.Entries) != 3 {
		t.Fatalf("count %d, %d entries; want 4000 and 3", final.Count, len(final.Entries))
	}
	want := []float64{0.7, 0.2, 0.1}
	var sum, errs int64
	for i, e := range final.Entries {
		share := float64(e.Count) / float64(final.Count)
		if share < want[i]*0.95 || share > want[i]*1.05 {
			t.Errorf("entry %d: %d requests (%.3f), want %.2f ± 5 %%", i, e.Count, share, want[i])
		}
		if e.Response.Count() != e.Count || e.Service.Count() != e.Count {
			t.Errorf("entry %d: histograms hold %d/%d values, want %d", i, e.Response.Count(), e.Service.Count(), e.Count)
		}
		sum += e.Count
		errs += e.Errors
	}
	if sum != final.Count || errs != final.Errors {
		t.Errorf("entries add to %d requests and %d errors, total %d and %d", sum, errs, final.Count, final.Errors)
	}
	if c := final.Entries; c[0].Codes[200] != c[0].Count || c[1].Codes[201] != c[1].Count || c[2].Codes[503] != c[2].Count || c[2].Errors != c[2].Count {
		t.Errorf("entry codes %v %v %v: want all 200, all 201, all 503", c[0].Codes, c[1].Codes, c[2].Codes)
	}
	mt.mu.Lock()
	defer mt.mu.Unlock()
	if int64(mt.byMethod["GET"]) != final.Entries[0].Count || int64(mt.byMethod["POST"]) != final.Entries[1].Count ||
		int64(mt.byMethod["DELETE"]) != final.Entries[2].Count {
		t.Errorf("target saw %v", mt.byMethod)
	}
}

// TestMixOwnRates gives two entries their own rates (Goader's -rps and
// -wps): the run's rate is their sum and each gets its own.
func TestMixOwnRates(t *testing.T) {
	t.Parallel()
	_, base := startMixTarget(t)
	s := spec.Spec{URL: base + "/", Connections: 2, Count: 600, Requests: []spec.Request{
		{URL: base + "/read", QPS: 200},
		{URL: base + "/write", Method: "PUT", QPS: 100, BodySize: &spec.BodySize{Min: 10, Max: 20}},
	}}
	final := runMix(t, s)
	s.Normalize()
	if s.QPS != 300 || s.Pacing != spec.PacingOpen {
		t.Fatalf("normalized qps %v pacing %s, want 300 open", s.QPS, s.Pacing)
	}
	if r, w := final.Entries[0].Count, final.Entries[1].Count; r < 380 || r > 420 || w < 180 || w > 220 || r+w != 600 {
		t.Errorf("reads %d writes %d of 600, want 400 and 200 ± 5 %%", r, w)
	}
}

// TestBodySizes sends random bodies of uniform and of fair sizes. 5,000
// fair bodies: the byte ratio below has a standard deviation of about
// 0.065 there, so its 0.7..1.4 bounds are over 4.5 deviations out (with
// 1,000 bodies, 0.75 % of runs fell outside them).
func TestBodySizes(t *testing.T) {
	t.Parallel()
	mt, base := startMixTarget(t)
	runMix(t, spec.Spec{URL: base + "/", Connections: 2, Count: 10000, Requests: []spec.Request{
		{URL: base + "/uniform", BodySize: &spec.BodySize{Min: 100, Max: 199}},
		{URL: base + "/fair", BodySize: &spec.BodySize{Min: 1, Max: 10000, Fair: true}},
	}})
	mt.mu.Lock()
	defer mt.mu.Unlock()
	low := 0
	for _, n := range mt.bodyBytes["uniform"] {
		if n < 100 || n > 199 {
			t.Fatalf("uniform body of %d bytes, want 100..199", n)
		}
		if n < 150 {
			low++
		}
	}
	if u := len(mt.bodyBytes["uniform"]); low < u*2/5 || low > u*3/5 {
		t.Errorf("%d of %d uniform bodies under 150 bytes, want about half", low, u)
	}
	// Fair (density 1/size over 1..10000): about half the bodies are under
	// 100 bytes, yet the bytes are spread evenly (about as many in bodies
	// of 5000+ as in those under 5000).
	var small, bytesLow, bytesHigh int
	for _, n := range mt.bodyBytes["fair"] {
		if n < 1 || n > 10000 {
			t.Fatalf("fair body of %d bytes, want 1..10000", n)
		}
		if n < 100 {
			small++
		}
		if n < 5000 {
			bytesLow += n
		} else {
			bytesHigh += n
		}
	}
	f := len(mt.bodyBytes["fair"])
	if small < f*2/5 || small > f*3/5 {
		t.Errorf("%d of %d fair bodies under 100 bytes, want about half", small, f)
	}
	if ratio := float64(bytesHigh) / float64(bytesLow); ratio < 0.7 || ratio > 1.4 {
		t.Errorf("fair bodies: %d bytes in sizes ≥ 5000, %d below (ratio %.2f), want about equal", bytesHigh, bytesLow, ratio)
	}
}
