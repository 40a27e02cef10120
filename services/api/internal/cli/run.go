package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/client"
)

// maxWaitChunk is the longest ?wait= one request asks for (the API's bound).
const maxWaitChunk = 15 * time.Minute

// run is `barrage run`: start a run, follow it, report it and exit with its verdict.
func (e *env) run(ctx context.Context, args []string) int {
	f, err := parseRunFlags(args, e.out.stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitPass
		}
		e.out.errorf("barrage run: %v", err)
		return ExitUsage
	}
	var specData []byte
	if f.set["spec"] {
		if specData, err = readSpec(f.specFile); err != nil {
			e.out.errorf("barrage run: %v", err)
			return ExitUsage
		}
	}
	testID := ""
	if f.set["test"] {
		if testID, err = e.resolveTest(ctx, f.project, f.test); err != nil {
			return e.out.fail("find test "+f.test, err)
		}
	}
	body, err := f.body(specData, f.specFile, testID)
	if err != nil {
		e.out.errorf("barrage run: %v", err)
		return ExitUsage
	}
	key := uuid.NewString()
	var run client.Run
	if err := e.create(ctx, body, key, 0, &run); err != nil {
		return e.out.fail("start the run", err)
	}
	e.out.printf("run %s %s: %s\n", run.Id, run.Status, run.Target)
	run, code := e.follow(ctx, body, key, run, f.wait)
	if code != ExitPass {
		return code
	}
	return e.finish(ctx, f, run)
}

// create posts body with an Idempotency-Key, waiting up to wait when it is
// positive, and decodes the run into out.
func (e *env) create(ctx context.Context, body createBody, key string, wait time.Duration, out *client.Run) error {
	params := &client.CreateRunParams{IdempotencyKey: &key}
	if wait > 0 {
		params.Wait = ptr(wait.String())
	}
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	_, err = call(ctx, out, func() (*http.Response, error) {
		return e.api.CreateRunWithBody(ctx, params, jsonBody, bytes.NewReader(b))
	})
	return err
}

// follow waits for run to end: it repeats the create request (the same
// Idempotency-Key, so the same run) with ?wait= in chunks, while a
// goroutine follows the live stream for the progress lines. When the run
// does not end within wait, or ctx ends (Ctrl-C), it stops the run.
func (e *env) follow(ctx context.Context, body createBody, key string, run client.Run, wait time.Duration) (client.Run, int) {
	deadline := e.now().Add(wait)
	pctx, stopProgress := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if !terminal(run.Status) {
		pr := newProgress(e, run)
		wg.Go(func() { pr.follow(pctx) })
	}
	defer func() {
		stopProgress()
		wg.Wait()
	}()
	for !terminal(run.Status) {
		left := deadline.Sub(e.now())
		if left <= 0 || ctx.Err() != nil {
			stopProgress()
			wg.Wait()
			e.stop(run.Id)
			if ctx.Err() != nil {
				e.out.errorf("barrage run: interrupted; run %s stopped", run.Id)
			} else {
				e.out.errorf("barrage run: run %s is still %s after --wait %s; stopped it", run.Id, run.Status, wait)
			}
			return run, ExitRunError
		}
		chunk := min(left, maxWaitChunk).Round(time.Second)
		if chunk < time.Second {
			chunk = time.Second
		}
		var next client.Run
		if err := e.create(ctx, body, key, chunk, &next); err != nil {
			if ctx.Err() != nil {
				continue // stop it above
			}
			stopProgress()
			wg.Wait()
			return run, e.out.fail("wait for the run", err)
		}
		run = next
	}
	stopProgress()
	wg.Wait()
	return run, ExitPass
}

// stop asks the API to stop a run, on a fresh context: the run's own may
// be canceled.
func (e *env) stop(id uuid.UUID) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := call(ctx, nil, func() (*http.Response, error) { return e.api.StopRun(ctx, id) }); err != nil {
		e.out.errorf("barrage run: stop run %s: %v", id, err)
	}
}

// finish reads the result, prints the summary, writes --junit and --json
// and returns the exit code of the run's outcome.
func (e *env) finish(ctx context.Context, f *runFlags, run client.Run) int {
	id := run.Id
	var res *client.RunResult
	if run.Status == client.Completed {
		var r client.RunResult
		if _, err := call(ctx, &r, func() (*http.Response, error) { return e.api.GetRunResult(ctx, id, &client.GetRunResultParams{}) }); err != nil {
			return e.out.fail("read the result", err)
		}
		res = &r
	}
	e.out.printf("%s", formatSummary(run, res))
	if f.junit != "" {
		if code := e.writeJUnit(ctx, id, f.junit, res != nil); code != ExitPass {
			return code
		}
	}
	if f.summaryMD != "" {
		if err := os.WriteFile(f.summaryMD, []byte(markdownSummary(run, res, runLink(e.base, id))), 0o644); err != nil { //nolint:gosec // a report the user asked for
			e.out.errorf("barrage run: --summary-md: %v", err)
			return ExitUsage
		}
	}
	if f.json != "" {
		b, err := json.MarshalIndent(struct {
			Run    client.Run        `json:"run"`
			Result *client.RunResult `json:"result"`
		}{run, res}, "", "  ")
		if err == nil {
			err = os.WriteFile(f.json, append(b, '\n'), 0o644) //nolint:gosec // a result the user asked for, readable like their other files
		}
		if err != nil {
			e.out.errorf("barrage run: --json: %v", err)
			return ExitUsage
		}
	}
	return exitCode(run)
}

// writeJUnit writes the run's JUnit report to name; a run without a
// result has none (the API answers 409), which is reported and skipped.
func (e *env) writeJUnit(ctx context.Context, id uuid.UUID, name string, hasResult bool) int {
	if !hasResult {
		e.out.errorf("barrage run: --junit: the run has no result, so no report was written")
		return ExitPass
	}
	raw, err := call(ctx, nil, func() (*http.Response, error) {
		return e.api.GetRunResult(ctx, id, &client.GetRunResultParams{Format: ptr(client.Junit)})
	})
	if err != nil {
		return e.out.fail("read the JUnit report", err)
	}
	if err := os.WriteFile(name, raw, 0o644); err != nil { //nolint:gosec // a result the user asked for, readable like their other files
		e.out.errorf("barrage run: --junit: %v", err)
		return ExitUsage
	}
	return ExitPass
}

// resolveTest returns the id of the stored test called nameOrID in project
// (any project the token sees when empty).
func (e *env) resolveTest(ctx context.Context, project, nameOrID string) (string, error) {
	if isID(nameOrID) {
		return nameOrID, nil
	}
	all, err := e.listTests(ctx, project)
	if err != nil {
		return "", err
	}
	var found []client.Test
	for i := range all {
		if all[i].Name == nameOrID {
			found = append(found, all[i])
		}
	}
	switch len(found) {
	case 0:
		return "", &client.ProblemError{StatusCode: http.StatusNotFound, Problem: client.Problem{Title: "Not Found", Detail: ptr("no test named " + nameOrID)}}
	case 1:
		return found[0].Id.String(), nil
	default:
		return "", &client.ProblemError{StatusCode: http.StatusConflict, Problem: client.Problem{Title: "Conflict",
			Detail: ptr(fmt.Sprintf("%d tests are named %s: pass --project or the test id", len(found), nameOrID))}}
	}
}

// ptr returns &v.
func ptr[T any](v T) *T { return &v }
