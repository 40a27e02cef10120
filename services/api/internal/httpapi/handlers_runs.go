package httpapi

import (
	"context"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/reqlog"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
	"github.com/barrage-dev/barrage/services/api/internal/tracing"
)

// CreateRun implements POST /runs; with ?wait= it waits for the run to end
// (waitRun).
func (s *server) CreateRun(ctx context.Context, req CreateRunRequestObject) (CreateRunResponseObject, error) {
	ctx = requestContext(ctx)
	wait, err := parseWait(req.Params.Wait)
	if err != nil {
		return nil, err
	}
	b := req.Body
	in := runs.Input{
		Project: deref(b.Project), TestID: deref(b.Test), Spec: b.Spec, Name: deref(b.Name),
		Thresholds: deref(b.Thresholds), Labels: deref(b.Labels), Source: runs.Source(deref(b.Source)),
		IdempotencyKey: deref(req.Params.IdempotencyKey), AllowPartial: deref(b.AllowPartial),
		BaselineRun: deref((*uuid.UUID)(b.BaselineRun)), BaselineLast: deref(b.BaselineLast), RequestID: reqlog.ID(ctx),
		TraceParent: tracing.TraceParent(ctx),
	}
	r, created, err := s.svc.Runs.Create(ctx, principal(ctx), in)
	if err != nil {
		return nil, err
	}
	location := "/api/v1/runs/" + r.ID.String()
	if wait > 0 {
		var ended bool
		if r, ended, err = s.waitRun(ctx, r, wait); err != nil {
			return nil, err
		}
		if !ended {
			return CreateRun202JSONResponse{Body: runOut(r), Headers: CreateRun202ResponseHeaders{Location: &location}}, nil
		}
	}
	if !created {
		return CreateRun200JSONResponse(runOut(r)), nil
	}
	return CreateRun201JSONResponse{Body: runOut(r), Headers: CreateRun201ResponseHeaders{Location: &location}}, nil
}

// GetRun implements GET /runs/{run}.
func (s *server) GetRun(ctx context.Context, req GetRunRequestObject) (GetRunResponseObject, error) {
	ctx = requestContext(ctx)
	r, err := s.svc.Runs.Get(ctx, principal(ctx), req.Run)
	if err != nil {
		return nil, err
	}
	return GetRun200JSONResponse(runOut(r)), nil
}

// StopRun implements POST /runs/{run}/stop.
func (s *server) StopRun(ctx context.Context, req StopRunRequestObject) (StopRunResponseObject, error) {
	ctx = requestContext(ctx)
	r, err := s.svc.Runs.Stop(ctx, principal(ctx), req.Run)
	if err != nil {
		return nil, err
	}
	return StopRun200JSONResponse(runOut(r)), nil
}

// ListRuns implements GET /runs.
func (s *server) ListRuns(ctx context.Context, req ListRunsRequestObject) (ListRunsResponseObject, error) {
	ctx = requestContext(ctx)
	q := req.Params
	page, err := paging.ParseRequest(q.Cursor, q.Limit)
	if err != nil {
		return nil, err
	}
	in := runs.ListInput{
		Project: deref(q.Project), TestID: deref((*uuid.UUID)(q.Test)), Labels: deref(q.Label),
		Since: deref(q.Since), Until: deref(q.Until), Page: page,
	}
	for _, st := range deref(q.Status) {
		in.Statuses = append(in.Statuses, runs.Status(st))
	}
	list, next, err := s.svc.Runs.List(ctx, principal(ctx), in)
	if err != nil {
		return nil, err
	}
	return ListRuns200JSONResponse{Items: mapSlice(list, runOut), NextCursor: optString(next)}, nil
}
