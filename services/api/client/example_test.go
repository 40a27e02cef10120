package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/client"
)

// cannedRun is what a barrage-api answers to POST /api/v1/runs?wait=… once
// the run has ended: the run, with its status and verdict.
const cannedRun = `{
  "id": "7d3f2a10-5b1c-4c7e-9a4e-2f0c8d6b1e55",
  "project_id": "0b9e3c52-1f0a-4d35-8c1e-6a2b7d9f4c10",
  "name": "checkout p99",
  "status": "completed",
  "verdict": "pass",
  "target": "http://127.0.0.1:8081/echo",
  "labels": {},
  "spec": {"url": "http://127.0.0.1:8081/echo", "qps": 100, "connections": 4, "duration": "10s"},
  "thresholds": ["p(99) < 250ms"],
  "summary": {"count": 1000, "errors": 0, "qps": 99.9, "p99_us": 1830},
  "source": "api",
  "degraded": false,
  "qps_requested": 100,
  "shard_count": 1,
  "created_at": "2026-11-26T12:00:00Z",
  "updated_at": "2026-11-26T12:00:11Z"
}`

// A canned barrage-api stands in for a real one here; against a real API,
// pass its URL and an API token to New.
func Example() {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/v1/runs" || r.Header.Get("Authorization") != "Bearer brg_example" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = fmt.Fprint(w, `{"type":"https://barrage.dev/problems/not-found","title":"Not found","status":404}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprint(w, cannedRun)
	}))
	defer api.Close()

	c, err := client.New(api.URL, "brg_example")
	if err != nil {
		fmt.Println(err)
		return
	}
	body := client.RunCreate{
		Name:       ptr("checkout p99"),
		Spec:       &spec.Spec{URL: "http://127.0.0.1:8081/echo", QPS: 100, Connections: 4, Duration: spec.Duration(10 * time.Second)},
		Thresholds: &client.Thresholds{"p(99) < 250ms"},
	}
	// ?wait= makes the API answer once the run ended (or after 60 s, with
	// the run as it is then); the same Idempotency-Key names the same run.
	params := &client.CreateRunParams{Wait: ptr("60s"), IdempotencyKey: ptr("checkout-p99-build-42")}
	resp, err := c.CreateRun(context.Background(), params, body)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var run client.Run
	if _, err := client.Decode(resp, &run); err != nil {
		fmt.Println(err) // a *client.ProblemError for a refused request
		return
	}
	fmt.Println(run.Name, run.Status, *run.Verdict, run.Summary.Count, "requests")
	// Output: checkout p99 completed pass 1000 requests
}

func ptr[T any](v T) *T { return &v }
