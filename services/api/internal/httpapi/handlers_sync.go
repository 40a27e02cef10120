package httpapi

import (
	"context"
	"encoding/base64"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/imports"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/resultsync"
)

// rawBodyKey keys the request body as received in the request's context,
// for handlers that keep documents byte for byte (keepRawBody).
type rawBodyKey struct{}

// CreateImport implements POST /imports: the body is the document itself.
func (s *server) CreateImport(ctx context.Context, req CreateImportRequestObject) (CreateImportResponseObject, error) {
	ctx = requestContext(ctx)
	doc, _ := ctx.Value(rawBodyKey{}).([]byte)
	if len(doc) == 0 {
		return nil, apperr.New(apperr.BadRequest, "the request body must be a Fortio result JSON document")
	}
	q := req.Params
	r, err := s.svc.Imports.Import(ctx, principal(ctx), imports.Input{
		Project: deref(q.Project), Name: deref(q.Name), Origin: deref(q.Origin), Document: doc,
	})
	if err != nil {
		return nil, err
	}
	location := "/api/v1/runs/" + r.ID.String()
	return CreateImport201JSONResponse{Body: runOut(r), Headers: CreateImport201ResponseHeaders{Location: &location}}, nil
}

// ListSyncSources implements GET /sync-sources.
func (s *server) ListSyncSources(ctx context.Context, req ListSyncSourcesRequestObject) (ListSyncSourcesResponseObject, error) {
	ctx = requestContext(ctx)
	q := req.Params
	page, err := paging.ParseRequest(q.Cursor, q.Limit)
	if err != nil {
		return nil, err
	}
	list, next, err := s.svc.Sync.List(ctx, principal(ctx), deref(q.Project), page)
	if err != nil {
		return nil, err
	}
	return ListSyncSources200JSONResponse{Items: mapSlice(list, sourceOut), NextCursor: optString(next)}, nil
}

// CreateSyncSource implements POST /sync-sources.
func (s *server) CreateSyncSource(ctx context.Context, req CreateSyncSourceRequestObject) (CreateSyncSourceResponseObject, error) {
	ctx = requestContext(ctx)
	b := req.Body
	src, err := s.svc.Sync.Create(ctx, principal(ctx), resultsync.Input{
		Project: deref(b.Project), Name: &b.Name, URL: &b.Url, IntervalMinutes: b.IntervalMinutes,
		MaxPages: b.MaxPages, MaxObjects: b.MaxObjects,
	})
	if err != nil {
		return nil, err
	}
	return CreateSyncSource201JSONResponse(sourceOut(src)), nil
}

// GetSyncSource implements GET /sync-sources/{source}.
func (s *server) GetSyncSource(ctx context.Context, req GetSyncSourceRequestObject) (GetSyncSourceResponseObject, error) {
	ctx = requestContext(ctx)
	src, err := s.svc.Sync.Get(ctx, principal(ctx), req.Source)
	if err != nil {
		return nil, err
	}
	return GetSyncSource200JSONResponse(sourceOut(src)), nil
}

// UpdateSyncSource implements PATCH /sync-sources/{source}.
func (s *server) UpdateSyncSource(ctx context.Context, req UpdateSyncSourceRequestObject) (UpdateSyncSourceResponseObject, error) {
	ctx = requestContext(ctx)
	b := req.Body
	src, err := s.svc.Sync.Update(ctx, principal(ctx), req.Source, resultsync.Input{
		Name: b.Name, URL: b.Url, IntervalMinutes: b.IntervalMinutes, MaxPages: b.MaxPages, MaxObjects: b.MaxObjects,
	})
	if err != nil {
		return nil, err
	}
	return UpdateSyncSource200JSONResponse(sourceOut(src)), nil
}

// DeleteSyncSource implements DELETE /sync-sources/{source}.
func (s *server) DeleteSyncSource(ctx context.Context, req DeleteSyncSourceRequestObject) (DeleteSyncSourceResponseObject, error) {
	ctx = requestContext(ctx)
	if err := s.svc.Sync.Delete(ctx, principal(ctx), req.Source); err != nil {
		return nil, err
	}
	return DeleteSyncSource204Response{}, nil
}

// RunSyncSource implements POST /sync-sources/{source}/run.
func (s *server) RunSyncSource(ctx context.Context, req RunSyncSourceRequestObject) (RunSyncSourceResponseObject, error) {
	ctx = requestContext(ctx)
	r, err := s.svc.Sync.RunNow(ctx, principal(ctx), req.Source)
	if err != nil {
		return nil, err
	}
	location := "/api/v1/sync-runs/" + r.ID.String()
	return RunSyncSource202JSONResponse{Body: syncRunOut(r), Headers: RunSyncSource202ResponseHeaders{Location: &location}}, nil
}

// ListSyncRuns implements GET /sync-sources/{source}/runs.
func (s *server) ListSyncRuns(ctx context.Context, req ListSyncRunsRequestObject) (ListSyncRunsResponseObject, error) {
	ctx = requestContext(ctx)
	list, err := s.svc.Sync.Runs(ctx, principal(ctx), req.Source, deref(req.Params.Limit))
	if err != nil {
		return nil, err
	}
	return ListSyncRuns200JSONResponse{Items: mapSlice(list, syncRunOut)}, nil
}

// GetSyncRun implements GET /sync-runs/{sync_run}.
func (s *server) GetSyncRun(ctx context.Context, req GetSyncRunRequestObject) (GetSyncRunResponseObject, error) {
	ctx = requestContext(ctx)
	r, err := s.svc.Sync.GetRun(ctx, principal(ctx), req.SyncRun)
	if err != nil {
		return nil, err
	}
	out := syncRunOut(r)
	objs := mapSlice(r.Objects, syncObjectOut)
	out.Objects = &objs
	return GetSyncRun200JSONResponse(out), nil
}

func sourceOut(src resultsync.Source) SyncSource {
	out := SyncSource{
		Id: src.ID, ProjectId: src.ProjectID, Name: src.Name, Url: spec.RedactURL(src.URL), Kind: SyncKind(src.Kind),
		IntervalMinutes: src.IntervalMinutes, MaxPages: src.MaxPages, MaxObjects: src.MaxObjects,
		NextRunAt: optTime(src.NextRunAt), CreatedAt: src.CreatedAt, UpdatedAt: src.UpdatedAt,
	}
	if src.LastRun != nil {
		last := syncRunOut(*src.LastRun)
		out.LastRun = &last
	}
	return out
}

func syncRunOut(r resultsync.Run) SyncRun {
	return SyncRun{
		Id: r.ID, SourceId: r.SourceID, Trigger: SyncRunTrigger(r.Trigger), Status: SyncRunStatus(r.Status),
		Kind: SyncKind(r.Kind), StartedAt: r.StartedAt, EndedAt: optTime(r.EndedAt), Pages: r.Pages,
		Imported: r.Imported, Unchanged: r.Unchanged, Skipped: r.Skipped, Failed: r.Failed, Error: optString(r.Error),
	}
}

func syncObjectOut(o resultsync.Object) SyncObject {
	out := SyncObject{Url: o.URL, Outcome: SyncObjectOutcome(o.Outcome), Reason: optString(o.Reason), RunId: optID(o.RunID)}
	if o.Size >= 0 {
		out.Size = &o.Size
	}
	if o.MD5 != nil {
		sum := base64.StdEncoding.EncodeToString(o.MD5)
		out.Md5 = &sum
	}
	return out
}
