package httpapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/searches"
)

// CreateSearch implements POST /searches.
func (s *server) CreateSearch(ctx context.Context, req CreateSearchRequestObject) (CreateSearchResponseObject, error) {
	ctx = requestContext(ctx)
	b := req.Body
	step, err := durationIn(b.StepDuration, "step_duration")
	if err != nil {
		return nil, err
	}
	warmup, err := durationIn(b.Warmup, "warmup")
	if err != nil {
		return nil, err
	}
	in := searches.Input{
		Project: deref(b.Project), Name: deref(b.Name), Spec: b.Spec, Objective: b.Objective,
		MinQPS: b.MinQps, MaxQPS: b.MaxQps, Step: step, Warmup: warmup, Resolution: deref(b.Resolution),
	}
	sr, err := s.svc.Searches.Create(ctx, principal(ctx), in)
	if err != nil {
		return nil, err
	}
	location := "/api/v1/searches/" + sr.ID.String()
	return CreateSearch201JSONResponse{Body: searchOut(sr), Headers: CreateSearch201ResponseHeaders{Location: &location}}, nil
}

// GetSearch implements GET /searches/{search}.
func (s *server) GetSearch(ctx context.Context, req GetSearchRequestObject) (GetSearchResponseObject, error) {
	ctx = requestContext(ctx)
	sr, err := s.svc.Searches.Get(ctx, principal(ctx), req.Search)
	if err != nil {
		return nil, err
	}
	return GetSearch200JSONResponse(searchOut(sr)), nil
}

// CancelSearch implements POST /searches/{search}/cancel.
func (s *server) CancelSearch(ctx context.Context, req CancelSearchRequestObject) (CancelSearchResponseObject, error) {
	ctx = requestContext(ctx)
	sr, err := s.svc.Searches.Cancel(ctx, principal(ctx), req.Search)
	if err != nil {
		return nil, err
	}
	return CancelSearch200JSONResponse(searchOut(sr)), nil
}

// ListSearches implements GET /searches.
func (s *server) ListSearches(ctx context.Context, req ListSearchesRequestObject) (ListSearchesResponseObject, error) {
	ctx = requestContext(ctx)
	q := req.Params
	page, err := paging.ParseRequest(q.Cursor, q.Limit)
	if err != nil {
		return nil, err
	}
	list, next, err := s.svc.Searches.List(ctx, principal(ctx), deref(q.Project), page)
	if err != nil {
		return nil, err
	}
	return ListSearches200JSONResponse{Items: mapSlice(list, searchOut), NextCursor: optString(next)}, nil
}

// durationIn reads an optional Duration (a Go duration string or seconds);
// nil is 0.
func durationIn(d *Duration, field string) (time.Duration, error) {
	if d == nil {
		return 0, nil
	}
	raw, err := json.Marshal(d)
	if err != nil {
		return 0, apperr.Invalidf(field, "must be a duration")
	}
	var v spec.Duration
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, apperr.Invalidf(field, "must be a duration such as \"10s\" or a number of seconds")
	}
	return v.Std(), nil
}

func searchOut(sr searches.Search) Search {
	out := Search{
		Id: sr.ID, ProjectId: sr.ProjectID, Name: sr.Name, Spec: sr.Spec, Objective: sr.Objective,
		MinQps: sr.MinQPS, MaxQps: sr.MaxQPS, StepDuration: sr.Step.String(), Warmup: sr.Warmup.String(),
		Resolution: sr.Resolution, Status: SearchStatus(sr.Status), BestQps: sr.BestQPS, FirstFailQps: sr.FirstFailQPS,
		Message: sr.Message, CreatedAt: sr.CreatedAt, UpdatedAt: sr.UpdatedAt, FinishedAt: optTime(sr.FinishedAt),
		Steps: mapSlice(sr.Steps, stepOut),
	}
	if sr.Outcome != "" {
		o := SearchOutcome(sr.Outcome)
		out.Outcome = &o
	}
	return out
}

func stepOut(st searches.Step) SearchStep {
	return SearchStep{
		Step: st.Index, Qps: st.QPS, RunId: optID(st.RunID), Status: SearchStepStatus(st.Status),
		Count: st.Count, Errors: st.Errors, AchievedQps: st.AchievedQPS,
		P50Us: st.P50US, P90Us: st.P90US, P99Us: st.P99US, MaxUs: st.MaxUS,
		Outcomes: mapSlice(st.Outcomes, thresholdOut), Detail: st.Detail,
		StartedAt: st.StartedAt, FinishedAt: optTime(st.FinishedAt),
	}
}
