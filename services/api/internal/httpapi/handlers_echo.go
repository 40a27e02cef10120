package httpapi

import (
	"context"

	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/internal/echoprofiles"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
)

// ListEchoProfiles implements GET /echo-profiles.
func (s *server) ListEchoProfiles(ctx context.Context, req ListEchoProfilesRequestObject) (ListEchoProfilesResponseObject, error) {
	ctx = requestContext(ctx)
	q := req.Params
	page, err := paging.ParseRequest(q.Cursor, q.Limit)
	if err != nil {
		return nil, err
	}
	list, next, err := s.svc.EchoProfiles.List(ctx, principal(ctx), deref(q.Project), page)
	if err != nil {
		return nil, err
	}
	return ListEchoProfiles200JSONResponse{Items: mapSlice(list, echoProfileOut), NextCursor: optString(next)}, nil
}

// CreateEchoProfile implements POST /echo-profiles.
func (s *server) CreateEchoProfile(ctx context.Context, req CreateEchoProfileRequestObject) (CreateEchoProfileResponseObject, error) {
	ctx = requestContext(ctx)
	b := req.Body
	p, err := s.svc.EchoProfiles.Create(ctx, principal(ctx), echoprofiles.Input{Project: deref(b.Project), Name: &b.Name, Content: &b.Content})
	if err != nil {
		return nil, err
	}
	return CreateEchoProfile201JSONResponse(echoProfileOut(p)), nil
}

// GetEchoProfile implements GET /echo-profiles/{profile}.
func (s *server) GetEchoProfile(ctx context.Context, req GetEchoProfileRequestObject) (GetEchoProfileResponseObject, error) {
	ctx = requestContext(ctx)
	p, err := s.svc.EchoProfiles.Get(ctx, principal(ctx), req.Profile)
	if err != nil {
		return nil, err
	}
	return GetEchoProfile200JSONResponse(echoProfileOut(p)), nil
}

// UpdateEchoProfile implements PATCH /echo-profiles/{profile}.
func (s *server) UpdateEchoProfile(ctx context.Context, req UpdateEchoProfileRequestObject) (UpdateEchoProfileResponseObject, error) {
	ctx = requestContext(ctx)
	b := req.Body
	p, err := s.svc.EchoProfiles.Update(ctx, principal(ctx), req.Profile, echoprofiles.Input{Name: b.Name, Content: b.Content})
	if err != nil {
		return nil, err
	}
	return UpdateEchoProfile200JSONResponse(echoProfileOut(p)), nil
}

// DeleteEchoProfile implements DELETE /echo-profiles/{profile}.
func (s *server) DeleteEchoProfile(ctx context.Context, req DeleteEchoProfileRequestObject) (DeleteEchoProfileResponseObject, error) {
	ctx = requestContext(ctx)
	if err := s.svc.EchoProfiles.Delete(ctx, principal(ctx), req.Profile); err != nil {
		return nil, err
	}
	return DeleteEchoProfile204Response{}, nil
}

// ActivateEchoProfile implements POST /echo-profiles/{profile}/activate.
func (s *server) ActivateEchoProfile(ctx context.Context, req ActivateEchoProfileRequestObject) (ActivateEchoProfileResponseObject, error) {
	ctx = requestContext(ctx)
	var echo string
	if req.Body != nil {
		echo = deref(req.Body.Echo)
	}
	names, err := s.svc.EchoProfiles.Activate(ctx, principal(ctx), req.Profile, echo)
	if err != nil {
		return nil, err
	}
	return ActivateEchoProfile200JSONResponse{Echoes: names}, nil
}

// ListEchoServers implements GET /echo-servers.
func (s *server) ListEchoServers(ctx context.Context, req ListEchoServersRequestObject) (ListEchoServersResponseObject, error) {
	ctx = requestContext(ctx)
	list, err := s.svc.EchoProfiles.Servers(ctx, principal(ctx), req.Params.Project)
	if err != nil {
		return nil, err
	}
	return ListEchoServers200JSONResponse{Items: mapSlice(list, echoServerOut)}, nil
}

func echoProfileOut(p echoprofiles.Profile) EchoProfile {
	return EchoProfile{
		Id: p.ID, ProjectId: p.ProjectID, Name: p.Name, Content: p.Content, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
}

func echoServerOut(sv echoprofiles.Server) EchoServer {
	out := EchoServer{
		Name: sv.Name, Project: sv.Project, Addrs: sv.Addrs, Version: sv.Version,
		AppliedProfile: optString(sv.Profile), StartedAt: sv.StartedAt,
	}
	if out.Addrs == nil {
		out.Addrs = []string{}
	}
	if a := sv.Active; a != nil {
		out.Active = activeOut(*a)
	}
	return out
}

func activeOut(a wire.EchoProfile) *ActiveEchoProfile {
	return &ActiveEchoProfile{ProfileId: a.ProfileID, Name: a.Name, Content: a.Content, ActivatedAt: a.ActivatedAt}
}
