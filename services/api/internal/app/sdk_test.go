package app

import (
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/client"
)

// TestGoSDKRunsARun drives a real barrage-api, agent and echo through the
// Go SDK the way docs/sdk.md shows it: a run created with ?wait= comes
// back ended with its verdict, its result holds every request, a refused
// spec is a *client.ProblemError naming the field, and the same
// Idempotency-Key returns the same run.
func TestGoSDKRunsARun(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 1)
	c, err := client.New(e.URL, e.AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	body := client.RunCreate{
		Project:    new("default"),
		Name:       new("sdk"),
		Spec:       &spec.Spec{URL: echo + "/", QPS: 50, Connections: 2, Count: 100},
		Thresholds: &client.Thresholds{"count == 100", "error_rate < 1%"},
	}
	params := &client.CreateRunParams{IdempotencyKey: new(uuid.NewString()), Wait: new("60s")}
	run := sdkCreateRun(t, c, params, body)
	if run.Status != client.Completed || run.Verdict == nil || *run.Verdict != client.Pass {
		t.Fatalf("run %s %s verdict %v, want completed and pass", run.Id, run.Status, run.Verdict)
	}
	if again := sdkCreateRun(t, c, params, body); again.Id != run.Id {
		t.Errorf("the same Idempotency-Key made run %s, want %s again", again.Id, run.Id)
	}

	res, err := c.GetRunResultWithResponse(ctx, run.Id, &client.GetRunResultParams{})
	if err != nil {
		t.Fatal(err)
	}
	if res.JSON200 == nil {
		t.Fatalf("result: status %d: %s", res.StatusCode(), res.Body)
	}
	result, err := res.JSON200.AsRunResult()
	if err != nil {
		t.Fatal(err)
	}
	if result.Count != 100 || result.Response == nil {
		t.Errorf("result count %d, response %v; want 100 requests and their response times", result.Count, result.Response)
	}

	bad := body
	bad.Spec = &spec.Spec{URL: echo + "/", QPS: -1, Connections: 2, Count: 10}
	resp, err := c.CreateRun(ctx, &client.CreateRunParams{}, bad)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, err = client.Decode(resp, &client.Run{})
	var pe *client.ProblemError
	if !errors.As(err, &pe) || pe.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("a negative qps: %v, want a 422 *client.ProblemError", err)
	}
	if fields := pe.Fields(); !slices.ContainsFunc(fields, func(f string) bool { return len(f) > 9 && f[:9] == "spec.qps:" }) {
		t.Errorf("problem fields %q, want one on spec.qps", fields)
	}
}

// sdkCreateRun posts body until the run has ended, as docs/sdk.md does,
// for at most a minute.
func sdkCreateRun(t *testing.T, c *client.ClientWithResponses, params *client.CreateRunParams, body client.RunCreate) client.Run {
	t.Helper()
	var run client.Run
	deadline := time.Now().Add(time.Minute)
	for run.Status != client.Completed && run.Status != client.Failed && run.Status != client.Canceled {
		if time.Now().After(deadline) {
			t.Fatalf("run %s still %s after a minute", run.Id, run.Status)
		}
		resp, err := c.CreateRun(t.Context(), params, body)
		if err != nil {
			t.Fatal(err)
		}
		_, err = client.Decode(resp, &run)
		_ = resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return run
}
