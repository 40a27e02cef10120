package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/resultformat"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// defaultIntervals is the page size of GET /runs/{run}/intervals.
const defaultIntervals = 300

// ListRunIntervals implements GET /runs/{run}/intervals.
func (s *server) ListRunIntervals(ctx context.Context, req ListRunIntervalsRequestObject) (ListRunIntervalsResponseObject, error) {
	ctx = requestContext(ctx)
	from, limit := deref(req.Params.From), defaultIntervals
	if req.Params.Limit != nil {
		limit = *req.Params.Limit
	}
	var list []runs.Interval
	var next int
	var err error
	if step := deref(req.Params.Step); step > 1 {
		list, next, err = s.svc.Measures.IntervalWindowPage(ctx, principal(ctx), req.Run, from, limit, step)
	} else {
		list, next, err = s.svc.Measures.IntervalPage(ctx, principal(ctx), req.Run, from, limit)
	}
	if err != nil {
		return nil, err
	}
	page := IntervalPage{Items: make([]Interval, len(list))}
	for i := range list {
		if page.Items[i], err = intervalOut(&list[i]); err != nil {
			return nil, err
		}
	}
	if next >= 0 {
		page.NextFrom = &next
	}
	return ListRunIntervals200JSONResponse(page), nil
}

// ListRunShardIntervals implements GET /runs/{run}/shards/intervals.
func (s *server) ListRunShardIntervals(ctx context.Context, req ListRunShardIntervalsRequestObject) (ListRunShardIntervalsResponseObject, error) {
	ctx = requestContext(ctx)
	limit := defaultIntervals
	if req.Params.Limit != nil {
		limit = *req.Params.Limit
	}
	step := 1
	if req.Params.Step != nil {
		step = *req.Params.Step
	}
	list, next, err := s.svc.Measures.ShardSeconds(ctx, principal(ctx), req.Run, deref(req.Params.From), limit, step)
	if err != nil {
		return nil, err
	}
	page := ShardIntervalPage{Items: mapSlice(list, shardIntervalOut)}
	if next >= 0 {
		page.NextFrom = &next
	}
	return ListRunShardIntervals200JSONResponse(page), nil
}

// shardIntervalOut is one shard's second on the wire.
func shardIntervalOut(s runs.ShardSecond) ShardInterval {
	return ShardInterval{
		Second: s.Second, Shard: s.Shard, AgentName: s.AgentName, Count: s.Count, Errors: s.Errors, Qps: s.QPS,
		ServiceP50Us: s.ServiceP50US, ServiceP99Us: s.ServiceP99US, ResponseP99Us: s.ResponseP99US, LagP99Us: s.LagP99US,
		CpuUsed: s.CPUUsed, CpuCores: s.CPUCores,
	}
}

// ListRunShards implements GET /runs/{run}/shards.
func (s *server) ListRunShards(ctx context.Context, req ListRunShardsRequestObject) (ListRunShardsResponseObject, error) {
	ctx = requestContext(ctx)
	list, err := s.svc.Measures.Shards(ctx, principal(ctx), req.Run)
	if err != nil {
		return nil, err
	}
	return ListRunShards200JSONResponse(ShardList{Items: mapSlice(list, shardOut)}), nil
}

// GetRunResult implements GET /runs/{run}/result.
func (s *server) GetRunResult(ctx context.Context, req GetRunResultRequestObject) (GetRunResultResponseObject, error) {
	ctx = requestContext(ctx)
	run, res, err := s.svc.Measures.Result(ctx, principal(ctx), req.Run)
	if err != nil {
		return nil, err
	}
	switch deref(req.Params.Format) {
	case Junit:
		return xmlResponse{body: junitOut(run, res)}, nil
	case Fortio:
		body, err := s.svc.Export.ForRun(ctx, run, res)
		if err != nil {
			return nil, err
		}
		return rawResponse{contentType: "application/json", body: body}, nil
	case FortioCsv:
		body, err := csvOut(run, res)
		if err != nil {
			return nil, err
		}
		return rawResponse{contentType: "text/csv; charset=utf-8", body: body}, nil
	case Csv, Prometheus, Yaml:
		return formatOut(run, res, deref(req.Params.Format))
	}
	out, err := resultOut(run, res)
	if err != nil {
		return nil, err
	}
	return jsonResponse{body: out}, nil
}

// rawResponse writes bytes as they are, with their content type.
type rawResponse struct {
	contentType string
	body        []byte
}

// VisitGetRunResultResponse implements GetRunResultResponseObject.
func (r rawResponse) VisitGetRunResultResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", r.contentType)
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(r.body)
	return err //nolint:wrapcheck // the client went away
}

// jsonResponse writes any value as a 200 JSON body, for responses whose
// schema is a oneOf the generated union type cannot hold conveniently.
type jsonResponse struct{ body any }

// VisitGetRunResultResponse implements GetRunResultResponseObject.
func (r jsonResponse) VisitGetRunResultResponse(w http.ResponseWriter) error {
	b, err := json.Marshal(r.body)
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(b)
	return err //nolint:wrapcheck // the client went away
}

// CompareRuns implements GET /runs/compare.
func (s *server) CompareRuns(ctx context.Context, req CompareRunsRequestObject) (CompareRunsResponseObject, error) {
	ctx = requestContext(ctx)
	ids, err := parseIDs(req.Params.Ids)
	if err != nil {
		return nil, err
	}
	list, err := s.svc.Measures.Compare(ctx, principal(ctx), ids)
	if err != nil {
		return nil, err
	}
	out := RunComparison{Items: make([]ComparedRun, len(list))}
	for i := range list {
		if out.Items[i], err = comparedOut(&list[i]); err != nil {
			return nil, err
		}
	}
	return CompareRuns200JSONResponse(out), nil
}

// parseIDs reads a comma-separated list of run ids, each at most once.
func parseIDs(text string) ([]uuid.UUID, error) {
	parts := strings.Split(text, ",")
	if len(parts) < runs.MinCompare || len(parts) > runs.MaxCompare {
		return nil, apperr.Invalidf("ids", "give %d to %d comma-separated run ids; got %d", runs.MinCompare, runs.MaxCompare, len(parts))
	}
	ids := make([]uuid.UUID, 0, len(parts))
	seen := map[uuid.UUID]bool{}
	for _, p := range parts {
		id, err := uuid.Parse(strings.TrimSpace(p))
		if err != nil {
			return nil, apperr.Invalidf("ids", "%q is not a run id (a UUID)", p)
		}
		if seen[id] {
			return nil, apperr.Invalidf("ids", "run %s is given twice", id)
		}
		seen[id] = true
		ids = append(ids, id)
	}
	return ids, nil
}

// intervalLatency returns the interval figures of one encoded histogram.
func intervalLatency(enc []byte) (IntervalLatency, error) {
	l, err := runs.LatencyOf(enc)
	if err != nil {
		return IntervalLatency{}, err
	}
	return quantilesOut(l.Quantiles()), nil
}

func intervalOut(iv *runs.Interval) (Interval, error) {
	out := Interval{
		Second: iv.Second, Count: iv.Count, Errors: iv.Errors, Qps: float64(iv.Count), RetCodes: codesOf(iv.RetCodes),
		BytesSent: iv.BytesSent, BytesReceived: iv.BytesReceived, Snapshots: iv.Snapshots, GeneratorLimited: iv.GeneratorLimited,
	}
	if iv.Seconds > 0 { // a window of seconds: its rate is the mean over them
		out.Seconds = &iv.Seconds
		out.Qps = float64(iv.Count) / float64(iv.Seconds)
	}
	if it := iv.Iterations; it != (runs.Iterations{}) {
		out.Iterations = &IntervalIterations{Started: it.Started, Completed: it.Completed, Failed: it.Failed}
	}
	if iv.ServiceQ != nil && iv.LagQ != nil { // stored by ingest: nothing to decode
		out.Response = quantilesOut(runs.Quantiles{P50US: iv.P50US, P90US: iv.P90US, P99US: iv.P99US, MaxUS: iv.MaxUS})
		out.Service, out.Lag = quantilesOut(*iv.ServiceQ), quantilesOut(*iv.LagQ)
		return out, nil
	}
	var err error
	if out.Response, err = intervalLatency(iv.Response); err != nil {
		return Interval{}, fmt.Errorf("second %d response: %w", iv.Second, err)
	}
	if out.Service, err = intervalLatency(iv.Service); err != nil {
		return Interval{}, fmt.Errorf("second %d service: %w", iv.Second, err)
	}
	if out.Lag, err = intervalLatency(iv.Lag); err != nil {
		return Interval{}, fmt.Errorf("second %d lag: %w", iv.Second, err)
	}
	return out, nil
}

func quantilesOut(q runs.Quantiles) IntervalLatency {
	return IntervalLatency{P50Us: q.P50US, P90Us: q.P90US, P99Us: q.P99US, MaxUs: q.MaxUS}
}

// codesOf never returns nil, so the wire always has an object.
func codesOf(m map[string]int64) RetCodes {
	if m == nil {
		return RetCodes{}
	}
	return m
}

func latencyOut(l runs.Latency) LatencySummary {
	return LatencySummary{
		Count: l.Count, MinUs: l.MinUS, AvgUs: l.AvgUS, StddevUs: l.StdDevUS, P50Us: l.P50US, P75Us: l.P75US,
		P90Us: l.P90US, P99Us: l.P99US, P999Us: l.P999US, MaxUs: l.MaxUS,
	}
}

func resultOut(run runs.Run, res runs.Result) (RunResult, error) {
	out := RunResult{
		RunId: run.ID, Status: RunStatus(run.Status), Count: res.Count, Errors: res.Errors, Qps: res.QPS(),
		DurationSeconds: res.Duration.Seconds(), Primary: Service, RetCodes: codesOf(res.RetCodes),
		BytesSent: res.BytesSent, BytesReceived: res.BytesReceived, Shards: res.Shards, LostShards: res.LostShards,
		Degraded: run.Degraded, Imported: res.Imported != nil,
	}
	if n := res.GeneratorLimitedSeconds; n > 0 {
		out.GeneratorLimitedSeconds = &n
	}
	if imp := res.Imported; imp != nil {
		out.Service = latencyOut(runs.ImportedLatency(imp.Latency))
		out.Origin = optString(imp.Origin)
		buckets := make([]HistogramBucket, len(imp.Latency.Buckets))
		for i, b := range imp.Latency.Buckets {
			buckets[i] = HistogramBucket{StartUs: b.StartUS, EndUs: b.EndUS, Count: b.Count}
		}
		out.Buckets = &buckets
		if run.Summary != nil {
			out.Qps = run.Summary.QPS
		}
		return out, nil
	}
	if run.OpenLoop() {
		out.Primary = Response
	}
	var response, lag LatencySummary
	for _, k := range []struct {
		enc []byte
		dst *LatencySummary
	}{{res.Response, &response}, {res.Service, &out.Service}, {res.Lag, &lag}} {
		l, err := runs.LatencyOf(k.enc)
		if err != nil {
			return RunResult{}, fmt.Errorf("result of run %s: %w", run.ID, err)
		}
		*k.dst = latencyOut(l)
	}
	out.Response, out.Lag = &response, &lag
	if res.Server != nil {
		l, err := runs.LatencyOf(res.Server)
		if err != nil {
			return RunResult{}, fmt.Errorf("result of run %s: server: %w", run.ID, err)
		}
		server := latencyOut(l)
		out.Server = &server
	}
	if len(res.Entries) > 0 {
		entries, err := entriesOut(run, res)
		if err != nil {
			return RunResult{}, err
		}
		out.Entries = &entries
	}
	if res.Scenario != nil {
		sc, err := scenarioOut(run, res.Scenario)
		if err != nil {
			return RunResult{}, err
		}
		out.Scenario = sc
	}
	if c := res.WrittenURLs; c != nil {
		out.WrittenUrls = &WrittenURLCounts{Stored: c.Stored, Dropped: c.Dropped}
	}
	phases, err := phasesOut(res.Phases)
	if err != nil {
		return RunResult{}, fmt.Errorf("result of run %s: %w", run.ID, err)
	}
	out.Phases = phases
	return out, nil
}

// phasesOut maps a result's request phases; nil when it has none.
func phasesOut(enc [resultformat.PhaseCount][]byte) (*RequestPhases, error) {
	var out RequestPhases
	dst := [resultformat.PhaseCount]**LatencySummary{&out.Dns, &out.Connect, &out.Tls, &out.Waiting, &out.Receiving}
	found := false
	for i, b := range enc {
		if len(b) == 0 {
			continue
		}
		l, err := runs.LatencyOf(b)
		if err != nil {
			return nil, fmt.Errorf("%s phase: %w", resultformat.PhaseNames()[i], err)
		}
		s := latencyOut(l)
		*dst[i], found = &s, true
	}
	if !found {
		return nil, nil
	}
	return &out, nil
}

// entriesOut maps the results of a request mix's entries, named from the
// run's (redacted) spec.
func entriesOut(run runs.Run, res runs.Result) ([]EntryResult, error) {
	out := make([]EntryResult, 0, len(res.Entries))
	sp := run.Spec
	for _, e := range res.Entries {
		o := EntryResult{
			Index: e.Index, Name: fmt.Sprintf("entry %d", e.Index), Count: e.Count, Errors: e.Errors, RetCodes: codesOf(e.RetCodes),
			BytesSent: e.BytesSent, BytesReceived: e.BytesReceived,
		}
		if e.Index < len(sp.Requests) {
			r := sp.Requests[e.Index]
			o.Name, o.Method = sp.EntryName(e.Index), r.Method
			if r.QPS > 0 {
				o.TargetQps = &r.QPS
			} else {
				o.Weight = &r.Weight
			}
		}
		if res.Duration > 0 {
			q := float64(e.Count) / res.Duration.Seconds()
			o.Qps = &q
		}
		for _, k := range []struct {
			enc []byte
			dst *LatencySummary
		}{{e.Response, &o.Response}, {e.Service, &o.Service}} {
			l, err := runs.LatencyOf(k.enc)
			if err != nil {
				return nil, fmt.Errorf("result of run %s entry %d: %w", run.ID, e.Index, err)
			}
			*k.dst = latencyOut(l)
		}
		out = append(out, o)
	}
	return out, nil
}

func comparedOut(c *runs.Compared) (ComparedRun, error) {
	r := c.Run
	sp := r.Spec
	out := ComparedRun{
		Id: r.ID, Name: r.Name, Status: RunStatus(r.Status), Source: ComparedRunSource(r.Source), Labels: labelsOf(r.Labels),
		Spec: &sp, CreatedAt: &r.CreatedAt,
	}
	res := c.Result
	if res == nil {
		return out, nil
	}
	l, err := res.Headline(r)
	if err != nil {
		return ComparedRun{}, err
	}
	qps := res.QPS()
	if res.Imported != nil && r.Summary != nil {
		qps = r.Summary.QPS
	}
	out.Count, out.Errors, out.Qps = &res.Count, &res.Errors, &qps
	out.MinUs, out.AvgUs, out.P50Us, out.P75Us = &l.MinUS, &l.AvgUS, &l.P50US, &l.P75US
	out.P90Us, out.P99Us, out.P999Us, out.MaxUs = &l.P90US, &l.P99US, &l.P999US, &l.MaxUS
	kind := ComparedService
	if res.Imported == nil && r.OpenLoop() {
		kind = ComparedResponse
	}
	out.LatencyKind = &kind
	if out.Phases, err = phasesOut(res.Phases); err != nil {
		return ComparedRun{}, fmt.Errorf("result of run %s: %w", r.ID, err)
	}
	if res.Scenario != nil {
		if out.Scenario, err = scenarioOut(r, res.Scenario); err != nil {
			return ComparedRun{}, err
		}
	}
	if ch := c.Change; ch != nil {
		out.Change = changeOut(ch)
	}
	return out, nil
}

// changeOut maps a run's change against the reference of a comparison.
func changeOut(ch *runs.Change) *ComparedChange {
	out := &ComparedChange{Confidence: runs.CompareConfidence * 100, Note: optString(ch.Note), Estimates: make([]PercentileChange, len(ch.Estimates))}
	if ch.Seconds > 0 {
		out.Seconds = &ch.Seconds
	}
	for i, e := range ch.Estimates {
		out.Estimates[i] = PercentileChange{
			Percentile: e.Percentile, RunUs: e.RunUS, ReferenceUs: e.ReferenceUS,
			Ratio: e.Ratio.Point, RatioLow: e.Ratio.Low, RatioHigh: e.Ratio.High, Verdict: PercentileChangeVerdict(e.Call),
		}
	}
	if q := ch.QPS; q != nil {
		out.Qps = &QPSChange{RunQps: q.Run, ReferenceQps: q.Reference, Ratio: q.Change.Point, RatioLow: q.Change.Low,
			RatioHigh: q.Change.High, Verdict: QPSChangeVerdict(q.Call)}
	}
	if e := ch.ErrorRate; e != nil {
		out.ErrorRate = &ErrorRateChange{Run: e.Run, Reference: e.Reference, Difference: e.Change.Point,
			DifferenceLow: e.Change.Low, DifferenceHigh: e.Change.High, Verdict: ErrorRateChangeVerdict(e.Call)}
	}
	return out
}
