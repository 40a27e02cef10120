package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// sseEvent is one server-sent event.
type sseEvent struct {
	Event, ID, Data string
}

// sseStream is what one connection to /runs/{id}/events delivered.
type sseStream struct {
	Events []sseEvent
	// Closed is set when the server ended the stream (EOF).
	Closed bool
	// Retry is the stream's retry: field, the reconnect delay it asks for.
	Retry string
}

// readEvents connects to a run's event stream with lastID as
// Last-Event-ID ("" for none) and collects events until the server closes
// the stream, stop returns true (the client then hangs up), or within
// passes.
func (e *apiEnv) readEvents(ctx context.Context, id, lastID string, within time.Duration, stop func(sseEvent) bool) (sseStream, error) {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.URL+apiPath("/runs/"+id+"/events"), http.NoBody)
	if err != nil {
		return sseStream{}, err
	}
	req.Header.Set("Authorization", "Bearer "+e.AdminToken)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := (&http.Client{}).Do(req) // no client timeout: the stream lasts the run
	if err != nil {
		return sseStream{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		return sseStream{}, fmt.Errorf("events: %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	var out sseStream
	var ev sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.Event == "" {
				continue // a comment (heartbeat) block
			}
			out.Events = append(out.Events, ev)
			if stop != nil && stop(ev) {
				return out, nil
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "retry: "):
			out.Retry = line[len("retry: "):]
		case strings.HasPrefix(line, "event: "):
			ev.Event = line[len("event: "):]
		case strings.HasPrefix(line, "id: "):
			ev.ID = line[len("id: "):]
		case strings.HasPrefix(line, "data: "):
			ev.Data = line[len("data: "):]
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("read events after %d: %w", len(out.Events), err)
	}
	out.Closed = true
	return out, nil
}

// latestSeconds returns the latest interval of each second in events.
func latestSeconds(t *testing.T, events []sseEvent) map[int]client.Interval {
	t.Helper()
	out := map[int]client.Interval{}
	for _, ev := range events {
		if ev.Event == "interval" {
			iv := decode[client.Interval](t, []byte(ev.Data))
			out[iv.Second] = iv
		}
	}
	return out
}

// allIntervals reads every second of a run from the intervals endpoint.
func (e *apiEnv) allIntervals(t *testing.T, id string) []client.Interval {
	t.Helper()
	page := decode[client.IntervalPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/intervals?from=0&limit=1000", e.AdminToken, nil))
	if page.NextFrom != nil {
		t.Fatalf("a short run has more than one page of intervals: next_from %d", *page.NextFrom)
	}
	return page.Items
}

// TestLiveEventsOfADistributedRun follows a 3 s run at 100 qps on two
// agents over SSE, with one client that stays and one that hangs up after
// two intervals and resumes with Last-Event-ID, and checks both against
// the stored series, the intervals endpoint, the result and its Fortio
// export.
func TestLiveEventsOfADistributedRun(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 2)
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default", "labels": map[string]string{"title": "live"},
		"spec": map[string]any{"url": echo + "/?delay=1ms", "qps": 100, "connections": 2, "duration": "3s"},
	}))
	id := created.Id.String()

	var (
		wg            sync.WaitGroup
		full          sseStream
		first, second sseStream
		fullErr       error
		resumeErr     error
	)
	wg.Go(func() {
		full, fullErr = e.readEvents(t.Context(), id, "", 60*time.Second, nil)
	})
	wg.Go(func() {
		seconds := map[int]bool{} // a second comes again as more shards report it
		first, resumeErr = e.readEvents(t.Context(), id, "", 60*time.Second, func(ev sseEvent) bool {
			if ev.Event == "interval" {
				var iv struct{ Second int }
				if json.Unmarshal([]byte(ev.Data), &iv) == nil {
					seconds[iv.Second] = true
				}
			}
			return len(seconds) == 2 || ev.Event == "result"
		})
		if resumeErr != nil {
			return
		}
		if len(first.Events) == 0 {
			resumeErr = errors.New("the first connection got no events")
			return
		}
		second, resumeErr = e.readEvents(t.Context(), id, first.Events[len(first.Events)-1].ID, 60*time.Second, nil)
	})
	run := e.waitRun(t, id, 60*time.Second)
	wg.Wait()
	if fullErr != nil || resumeErr != nil {
		t.Fatalf("streams: %v; %v", fullErr, resumeErr)
	}
	if run.Status != "completed" || run.Summary == nil {
		t.Fatalf("run ended %s (error %q)", run.Status, derefS(run.Error))
	}
	count := run.Summary.Count
	if count < 280 || count > 300 {
		t.Errorf("count %d, want about 300 (3 s at 100 qps)", count)
	}
	if run.ShardCount != 2 || run.Degraded || run.StartAt == nil {
		t.Errorf("run shard_count %d, degraded %v, start_at %v; want 2, false, set", run.ShardCount, run.Degraded, run.StartAt)
	}

	// The intervals endpoint: the seconds add up to the summary.
	stored := e.allIntervals(t, id)
	var sum int64
	storedSeconds := make([]int, len(stored))
	for i, iv := range stored {
		sum += iv.Count
		storedSeconds[i] = iv.Second
		if iv.Count > 0 && (iv.Response.P99Us < iv.Response.P50Us || iv.Response.P50Us < 1000 || iv.Service.MaxUs < iv.Service.P99Us) {
			t.Errorf("second %d: response p50 %v p99 %v, service p99 %v max %v µs", iv.Second,
				iv.Response.P50Us, iv.Response.P99Us, iv.Service.P99Us, iv.Service.MaxUs)
		}
		if iv.RetCodes["200"] != iv.Count || iv.Qps != float64(iv.Count) {
			t.Errorf("second %d: count %d, ret codes %v, qps %v", iv.Second, iv.Count, iv.RetCodes, iv.Qps)
		}
	}
	if sum != count {
		t.Errorf("intervals add up to %d, summary count %d", sum, count)
	}
	if len(stored) < 3 {
		t.Fatalf("%d stored seconds for a 3 s run", len(stored))
	}

	// The full stream: status first, every second, then status and result, then closed.
	checkStream := func(name string, events []sseEvent, closed bool) {
		t.Helper()
		got := latestSeconds(t, events)
		for _, iv := range stored {
			if g, ok := got[iv.Second]; !ok || g.Count != iv.Count || g.Snapshots != iv.Snapshots {
				t.Errorf("%s: second %d: stream has %+v (present %v), stored count %d from %d snapshots", name, iv.Second, g.Count, ok, iv.Count, iv.Snapshots)
			}
		}
		if len(got) != len(stored) {
			t.Errorf("%s: stream has %d seconds, the intervals endpoint %d", name, len(got), len(stored))
		}
		if !closed {
			t.Errorf("%s: the server did not close the stream", name)
		}
		last := events[len(events)-1]
		if last.Event != "result" {
			t.Fatalf("%s: last event %q, want result", name, last.Event)
		}
		res := decode[client.RunResult](t, []byte(last.Data))
		if res.Count != count || res.Response.P99Us != deref(run.Summary.P99Us) || res.Primary != client.Response {
			t.Errorf("%s: result count %d p99 %v (%s), summary count %d p99 %v", name, res.Count, res.Response.P99Us, res.Primary, count, deref(run.Summary.P99Us))
		}
		st := events[len(events)-2]
		if st.Event != "status" || !strings.Contains(st.Data, `"status":"completed"`) {
			t.Errorf("%s: event before the result is %s %s, want status completed", name, st.Event, st.Data)
		}
	}
	checkStream("full stream", full.Events, full.Closed)
	if full.Events[0].Event != "status" {
		t.Errorf("first event %q, want status", full.Events[0].Event)
	}
	var statuses []string
	for _, ev := range full.Events {
		if ev.Event == "status" {
			statuses = append(statuses, ev.Data[strings.Index(ev.Data, `"status":"`)+10:len(ev.Data)-2])
		}
		if ev.ID == "" {
			t.Errorf("event %s without an id", ev.Event)
		}
	}
	if !slices.Contains(statuses, "running") {
		t.Errorf("statuses %v: no running", statuses)
	}
	t.Logf("full stream: %d events, statuses %v, %d seconds", len(full.Events), statuses, len(latestSeconds(t, full.Events)))

	// The resumed client: what it saw before and after hanging up is every second, with the latest counts.
	if n := len(latestSeconds(t, first.Events)); n != 2 || first.Closed {
		t.Fatalf("first connection saw %d seconds before hanging up (closed by the server: %v)", n, first.Closed)
	}
	t.Logf("resumed from %s: %d events before, %d after", first.Events[len(first.Events)-1].ID, len(first.Events), len(second.Events))
	checkStream("resumed stream", append(slices.Clone(first.Events), second.Events...), second.Closed)

	// The result endpoint, both formats.
	res := decode[client.RunResult](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/result", e.AdminToken, nil))
	if res.Count != count || res.Shards != 2 || res.LostShards != 0 || res.RetCodes["200"] != count ||
		res.Response.P50Us != deref(run.Summary.P50Us) || res.Response.P99Us != deref(run.Summary.P99Us) ||
		res.Response.MaxUs != deref(run.Summary.MaxUs) || res.Response.P999Us < res.Response.P99Us || res.Response.P75Us < res.Response.P50Us {
		t.Errorf("result %+v disagrees with summary %+v", res, *run.Summary)
	}
	raw := e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/result?format=fortio", e.AdminToken, nil)
	var fortio struct {
		RunType, Labels, RequestedQPS, RequestedDuration string
		StartTime                                        time.Time
		ActualDuration                                   int64
		NumThreads                                       int
		DurationHistogram                                struct {
			Count    int64
			Min, Max float64
			Data     []struct {
				Start, End, Percent float64
				Count               int64
			}
			Percentiles []struct{ Percentile, Value float64 }
		}
		RetCodes map[string]int64
	}
	if err := json.Unmarshal(raw, &fortio); err != nil {
		t.Fatalf("fortio JSON: %v: %s", err, raw)
	}
	h := fortio.DurationHistogram
	if h.Count != count || fortio.RetCodes["200"] != count || fortio.RunType != "HTTP" || fortio.Labels != "live" ||
		fortio.RequestedQPS != "100" || fortio.RequestedDuration != "3s" || fortio.NumThreads != 2 ||
		fortio.ActualDuration < int64(2500*time.Millisecond) || fortio.StartTime.IsZero() {
		t.Errorf("fortio result: %s", raw)
	}
	var buckets int64
	for _, b := range h.Data {
		buckets += b.Count
	}
	if buckets != count || len(h.Data) == 0 || h.Data[len(h.Data)-1].Percent != 100 || len(h.Percentiles) != 5 {
		t.Errorf("fortio histogram: buckets hold %d of %d, data %v, percentiles %v", buckets, count, h.Data, h.Percentiles)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil || !strings.HasPrefix(compact.String(), `{"RunType":"HTTP","Labels":"live","StartTime":`) {
		t.Errorf("fortio keys are not in Fortio's order: %.80s (%v)", compact.String(), err)
	}

	// A second run, then the comparison of both.
	other := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default", "name": "closed loop", "labels": map[string]string{"kind": "closed"},
		"spec": map[string]any{"url": echo + "/", "connections": 1, "count": 200},
	}))
	otherRun := e.waitRun(t, other.Id.String(), 60*time.Second)
	if otherRun.Status != "completed" || otherRun.Summary == nil {
		t.Fatalf("second run ended %s (error %q)", otherRun.Status, derefS(otherRun.Error))
	}
	cmp := decode[client.RunComparison](t, e.mustDo(t, http.StatusOK, http.MethodGet,
		"/runs/compare?ids="+id+","+other.Id.String(), e.AdminToken, nil))
	if len(cmp.Items) != 2 || cmp.Items[0].Id != created.Id || cmp.Items[1].Id != other.Id {
		t.Fatalf("compare items %+v", cmp.Items)
	}
	for i, r := range []client.Run{run, otherRun} {
		c := cmp.Items[i]
		if c.P50Us == nil || c.P99Us == nil || c.Count == nil {
			t.Fatalf("compare item %d has no figures: %+v", i, c)
		}
		if *c.P99Us < *c.P50Us || *c.P99Us != deref(r.Summary.P99Us) || *c.P50Us != deref(r.Summary.P50Us) ||
			*c.Count != r.Summary.Count || c.Status != "completed" || c.Name != r.Name || *c.P999Us < *c.P99Us {
			t.Errorf("compare item %d: p50 %v p99 %v p99.9 %v count %d; summary p50 %v p99 %v count %d",
				i, *c.P50Us, *c.P99Us, *c.P999Us, *c.Count, deref(r.Summary.P50Us), deref(r.Summary.P99Us), r.Summary.Count)
		}
	}
	if cmp.Items[1].Labels["kind"] != "closed" || *cmp.Items[1].Count != 200 {
		t.Errorf("second compare item %+v", cmp.Items[1])
	}
}

// TestRunMeasuresAccessAndErrors checks the measurement endpoints' access
// rules and problems on runs that never start (no agent here).
func TestRunMeasuresAccessAndErrors(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	mine := e.mustRun(t, e.AdminToken, "default", "queued", nil)
	e.mustProject(t, "other")
	outsider := e.mustToken(t, "other", auth.Viewer)
	viewer := e.mustToken(t, "default", auth.Viewer)
	id := mine.Id.String()
	// A second, unknown id that differs from id in its last digit, whatever
	// that digit is, so compare sees two distinct runs.
	sibling := id[:len(id)-1] + "0"
	if sibling == id {
		sibling = id[:len(id)-1] + "1"
	}

	for _, path := range []string{"/runs/" + id + "/intervals", "/runs/" + id + "/shards", "/runs/" + id + "/events",
		"/runs/" + id + "/result", "/runs/compare?ids=" + id + "," + sibling} {
		status, header, raw := e.do(t, http.MethodGet, path, outsider, nil)
		p := wantProblem(t, status, header, raw, http.StatusNotFound, "not-found")
		if p.Detail == nil || !strings.Contains(*p.Detail, id) {
			t.Errorf("GET %s: detail %v does not name the run", path, p.Detail)
		}
	}
	page := decode[client.IntervalPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/intervals", viewer, nil))
	if len(page.Items) != 0 || page.NextFrom != nil {
		t.Errorf("a queued run has intervals %+v", page)
	}
	shards := decode[client.ShardList](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/shards", viewer, nil))
	if shards.Items == nil || len(shards.Items) != 0 {
		t.Errorf("a queued run has shards %#v, want the empty list", shards.Items)
	}
	status, header, raw := e.do(t, http.MethodGet, "/runs/"+id+"/result", viewer, nil)
	wantProblem(t, status, header, raw, http.StatusConflict, "conflict")
	status, header, raw = e.do(t, http.MethodGet, "/runs/"+id+"/result?format=xlsx", viewer, nil)
	wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
	status, header, raw = e.do(t, http.MethodGet, "/runs/"+id+"/intervals?limit=5000", viewer, nil)
	wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")

	unknown := "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
	status, header, raw = e.do(t, http.MethodGet, "/runs/compare?ids="+id+","+unknown, viewer, nil)
	if p := wantProblem(t, status, header, raw, http.StatusNotFound, "not-found"); p.Detail == nil || !strings.Contains(*p.Detail, unknown) {
		t.Errorf("compare of an unknown run: detail %v does not name it", p.Detail)
	}
	for _, ids := range []string{id, id + ",nope", id + "," + id, strings.Repeat(id+",", 20) + id} {
		status, header, raw = e.do(t, http.MethodGet, "/runs/compare?ids="+ids, viewer, nil)
		p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
		if got := problemFields(p); !slices.Equal(got, []string{"ids"}) {
			t.Errorf("compare ids=%.60s: fields %v, want [ids]", ids, got)
		}
	}
	status, header, raw = e.do(t, http.MethodGet, "/runs/"+id+"/events", viewer, nil, "Last-Event-ID", "garbage")
	if got := problemFields(wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")); !slices.Equal(got, []string{"Last-Event-ID"}) {
		t.Errorf("events with a bad Last-Event-ID: fields %v", got)
	}
	status, header, raw = e.do(t, http.MethodGet, "/runs/"+id+"/events?after=12", viewer, nil)
	if got := problemFields(wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")); !slices.Equal(got, []string{"after"}) {
		t.Errorf("events with a bad after: fields %v", got)
	}
	// A queued run without results compares with its status and no figures.
	other := e.mustRun(t, e.AdminToken, "default", "queued too", map[string]string{"k": "v"})
	cmp := decode[client.RunComparison](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/compare?ids="+id+","+other.Id.String(), viewer, nil))
	if len(cmp.Items) != 2 || cmp.Items[1].Status != "queued" || cmp.Items[1].Count != nil || cmp.Items[1].Labels["k"] != "v" {
		t.Errorf("compare of queued runs: %+v", cmp.Items)
	}

	// The stream of a queued run starts with its status and stays open.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	got, err := e.readEvents(ctx, id, "", 10*time.Second, func(sseEvent) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Events) != 1 || got.Events[0].Event != "status" || got.Events[0].ID != "0.0" ||
		got.Events[0].Data != `{"run_id":"`+id+`","status":"queued"}` {
		t.Errorf("queued run stream began %+v", got.Events)
	}
	if got.Retry != "1000" {
		t.Errorf("stream asks for reconnects after %q ms, want 1000", got.Retry)
	}
}

// TestLiveStreamEndsWhenItsRunIsStopped stops a queued run while a client
// follows it: the runs service publishes the cancel into the hub, and the
// stream sends it and closes.
func TestLiveStreamEndsWhenItsRunIsStopped(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	id := e.mustRun(t, e.AdminToken, "default", "queued", nil).Id.String()
	opened := make(chan struct{})
	var (
		got  sseStream
		err  error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		got, err = e.readEvents(t.Context(), id, "", 30*time.Second, func(sseEvent) bool {
			select {
			case <-opened:
			default:
				close(opened)
			}
			return false
		})
	}()
	select {
	case <-opened:
	case <-time.After(10 * time.Second):
		t.Fatal("no first event within 10s")
	}
	stopped := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodPost, "/runs/"+id+"/stop", e.AdminToken, nil))
	if stopped.Status != "canceled" {
		t.Fatalf("stopped a queued run: %s, want canceled", stopped.Status)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream was still open 10s after its run was canceled")
	}
	if err != nil || !got.Closed || len(got.Events) != 2 {
		t.Fatalf("stream of a canceled run: %+v, err %v; want queued, canceled, closed", got, err)
	}
	if last := got.Events[1]; last.Event != "status" || last.Data != `{"run_id":"`+id+`","status":"canceled"}` {
		t.Errorf("last event %+v, want status canceled", last)
	}
}

// TestLiveStreamEndsOnShutdown checks that an open stream does not hold
// the server's shutdown: the server closes it and stops cleanly.
func TestLiveStreamEndsOnShutdown(t *testing.T) {
	t.Parallel()
	var (
		got     sseStream
		err     error
		done    = make(chan struct{})
		stopped time.Time
	)
	t.Run("server", func(t *testing.T) {
		e := startAPI(t)
		id := e.mustRun(t, e.AdminToken, "default", "queued", nil).Id.String()
		first := make(chan struct{})
		go func() {
			defer close(done)
			got, err = e.readEvents(context.Background(), id, "", 60*time.Second, func(sseEvent) bool {
				select {
				case <-first:
				default:
					close(first)
				}
				return false
			})
		}()
		select {
		case <-first:
		case <-time.After(10 * time.Second):
			t.Fatal("no first event within 10s")
		}
		stopped = time.Now() // the server shuts down when this subtest ends
	})
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream was still open 10s after the server stopped")
	}
	if err != nil || !got.Closed || len(got.Events) != 1 {
		t.Errorf("stream at shutdown: %d events, closed %v, err %v", len(got.Events), got.Closed, err)
	}
	if d := time.Since(stopped); d > 4*time.Second {
		t.Errorf("shutdown with an open stream took %v; the shutdown timeout is 5s", d)
	}
}
