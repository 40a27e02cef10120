package httpapi

import (
	"context"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/testdefs"
	"github.com/barrage-dev/barrage/services/api/internal/tokens"
)

// ListProjects implements GET /projects.
func (s *server) ListProjects(ctx context.Context, req ListProjectsRequestObject) (ListProjectsResponseObject, error) {
	ctx = requestContext(ctx)
	page, err := paging.ParseRequest(req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	list, next, err := s.svc.Projects.List(ctx, principal(ctx), page)
	if err != nil {
		return nil, err
	}
	return ListProjects200JSONResponse{Items: mapSlice(list, s.projectOut), NextCursor: optString(next)}, nil
}

// CreateProject implements POST /projects.
func (s *server) CreateProject(ctx context.Context, req CreateProjectRequestObject) (CreateProjectResponseObject, error) {
	ctx = requestContext(ctx)
	in := projects.Input{Slug: req.Body.Slug, Name: req.Body.Name, Description: deref(req.Body.Description)}
	p, err := s.svc.Projects.Create(ctx, principal(ctx), in)
	if err != nil {
		return nil, err
	}
	return CreateProject201JSONResponse(s.projectOut(p)), nil
}

// GetProject implements GET /projects/{project}.
func (s *server) GetProject(ctx context.Context, req GetProjectRequestObject) (GetProjectResponseObject, error) {
	ctx = requestContext(ctx)
	p, err := s.svc.Projects.Get(ctx, principal(ctx), req.Project)
	if err != nil {
		return nil, err
	}
	return GetProject200JSONResponse(s.projectOut(p)), nil
}

// UpdateProject implements PATCH /projects/{project}.
func (s *server) UpdateProject(ctx context.Context, req UpdateProjectRequestObject) (UpdateProjectResponseObject, error) {
	ctx = requestContext(ctx)
	b := req.Body
	p, err := s.svc.Projects.Update(ctx, principal(ctx), req.Project, projects.Update{
		Name: b.Name, Description: b.Description, PublicResults: b.PublicResults, TargetAllowList: b.TargetAllowList,
		Limits: limitsIn(b.Limits), Retention: retentionIn(b.Retention),
	})
	if err != nil {
		return nil, err
	}
	return UpdateProject200JSONResponse(s.projectOut(p)), nil
}

// GetOrgTargetPolicy implements GET /org/target-policy.
func (s *server) GetOrgTargetPolicy(ctx context.Context, _ GetOrgTargetPolicyRequestObject) (GetOrgTargetPolicyResponseObject, error) {
	ctx = requestContext(ctx)
	list, err := s.svc.Projects.OrgTargetPolicy(ctx, principal(ctx))
	if err != nil {
		return nil, err
	}
	return GetOrgTargetPolicy200JSONResponse{TargetAllowList: nonNil(list)}, nil
}

// PutOrgTargetPolicy implements PUT /org/target-policy.
func (s *server) PutOrgTargetPolicy(ctx context.Context, req PutOrgTargetPolicyRequestObject) (PutOrgTargetPolicyResponseObject, error) {
	ctx = requestContext(ctx)
	list, err := s.svc.Projects.SetOrgTargetPolicy(ctx, principal(ctx), req.Body.TargetAllowList)
	if err != nil {
		return nil, err
	}
	return PutOrgTargetPolicy200JSONResponse{TargetAllowList: nonNil(list)}, nil
}

// ListTests implements GET /tests.
func (s *server) ListTests(ctx context.Context, req ListTestsRequestObject) (ListTestsResponseObject, error) {
	ctx = requestContext(ctx)
	page, err := paging.ParseRequest(req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	list, next, err := s.svc.Tests.List(ctx, principal(ctx), deref(req.Params.Project), page)
	if err != nil {
		return nil, err
	}
	return ListTests200JSONResponse{Items: mapSlice(list, s.testOut), NextCursor: optString(next)}, nil
}

// CreateTest implements POST /tests.
func (s *server) CreateTest(ctx context.Context, req CreateTestRequestObject) (CreateTestResponseObject, error) {
	ctx = requestContext(ctx)
	b := req.Body
	in := testdefs.Input{
		Project: deref(b.Project), Name: b.Name, Description: deref(b.Description), Spec: b.Spec,
		Thresholds: deref(b.Thresholds), Labels: deref(b.Labels), Schedule: deref(b.Schedule), Timezone: deref(b.Timezone),
		BaselineLast: deref(b.BaselineLast),
	}
	t, err := s.svc.Tests.Create(ctx, principal(ctx), in)
	if err != nil {
		return nil, err
	}
	return CreateTest201JSONResponse(s.testOut(t)), nil
}

// GetTest implements GET /tests/{test}.
func (s *server) GetTest(ctx context.Context, req GetTestRequestObject) (GetTestResponseObject, error) {
	ctx = requestContext(ctx)
	t, err := s.svc.Tests.Load(ctx, principal(ctx), req.Test, auth.Viewer)
	if err != nil {
		return nil, err
	}
	return GetTest200JSONResponse(s.testOut(t)), nil
}

// ReplaceTest implements PUT /tests/{test}.
func (s *server) ReplaceTest(ctx context.Context, req ReplaceTestRequestObject) (ReplaceTestResponseObject, error) {
	ctx = requestContext(ctx)
	b := req.Body
	in := testdefs.Input{
		Name: b.Name, Description: deref(b.Description), Spec: b.Spec,
		Thresholds: deref(b.Thresholds), Labels: deref(b.Labels), Schedule: deref(b.Schedule), Timezone: deref(b.Timezone),
		BaselineLast: deref(b.BaselineLast),
	}
	t, err := s.svc.Tests.Replace(ctx, principal(ctx), req.Test, in)
	if err != nil {
		return nil, err
	}
	return ReplaceTest200JSONResponse(s.testOut(t)), nil
}

// GetTestTrend implements GET /tests/{test}/trend.
func (s *server) GetTestTrend(ctx context.Context, req GetTestTrendRequestObject) (GetTestTrendResponseObject, error) {
	ctx = requestContext(ctx)
	trend, err := s.svc.Tests.Trend(ctx, principal(ctx), req.Test, deref(req.Params.Limit))
	if err != nil {
		return nil, err
	}
	return GetTestTrend200JSONResponse{Items: mapSlice(trend.Points, trendPointOut), ChangePoints: mapSlice(trend.Changes, changePointOut),
		Limits: mapSlice(trend.Limits, trendLimitOut)}, nil
}

// DeleteTest implements DELETE /tests/{test}.
func (s *server) DeleteTest(ctx context.Context, req DeleteTestRequestObject) (DeleteTestResponseObject, error) {
	ctx = requestContext(ctx)
	if err := s.svc.Tests.Delete(ctx, principal(ctx), req.Test); err != nil {
		return nil, err
	}
	return DeleteTest204Response{}, nil
}

// ListTokens implements GET /tokens.
func (s *server) ListTokens(ctx context.Context, req ListTokensRequestObject) (ListTokensResponseObject, error) {
	ctx = requestContext(ctx)
	page, err := paging.ParseRequest(req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	list, next, err := s.svc.Tokens.List(ctx, principal(ctx), deref(req.Params.Project), page)
	if err != nil {
		return nil, err
	}
	return ListTokens200JSONResponse{Items: mapSlice(list, tokenOut), NextCursor: optString(next)}, nil
}

// CreateToken implements POST /tokens.
func (s *server) CreateToken(ctx context.Context, req CreateTokenRequestObject) (CreateTokenResponseObject, error) {
	ctx = requestContext(ctx)
	b := req.Body
	in := tokens.Input{Project: deref(b.Project), Name: b.Name, Role: auth.Role(b.Role), ExpiresAt: deref(b.ExpiresAt)}
	t, secret, err := s.svc.Tokens.Create(ctx, principal(ctx), in)
	if err != nil {
		return nil, err
	}
	o := tokenOut(t)
	return CreateToken201JSONResponse{
		Id: o.Id, ProjectId: o.ProjectId, Role: o.Role, Name: o.Name, Hint: o.Hint, CreatedAt: o.CreatedAt,
		ExpiresAt: o.ExpiresAt, Secret: secret,
	}, nil
}

// RevokeToken implements DELETE /tokens/{token}.
func (s *server) RevokeToken(ctx context.Context, req RevokeTokenRequestObject) (RevokeTokenResponseObject, error) {
	ctx = requestContext(ctx)
	if err := s.svc.Tokens.Revoke(ctx, principal(ctx), req.Token); err != nil {
		return nil, err
	}
	return RevokeToken204Response{}, nil
}
