package httpapi

import (
	"context"
	"maps"
	"slices"

	"github.com/barrage-dev/barrage/services/api/internal/remotewrite"
)

// GetRemoteWrite implements GET /projects/{project}/remote-write.
func (s *server) GetRemoteWrite(ctx context.Context, req GetRemoteWriteRequestObject) (GetRemoteWriteResponseObject, error) {
	ctx = requestContext(ctx)
	c, err := s.svc.RemoteWrite.Get(ctx, principal(ctx), req.Project)
	if err != nil {
		return nil, err
	}
	return GetRemoteWrite200JSONResponse(s.remoteWriteOut(c)), nil
}

// PutRemoteWrite implements PUT /projects/{project}/remote-write.
func (s *server) PutRemoteWrite(ctx context.Context, req PutRemoteWriteRequestObject) (PutRemoteWriteResponseObject, error) {
	ctx = requestContext(ctx)
	b := req.Body
	in := remotewrite.Input{URL: b.Url, BearerToken: deref(b.BearerToken), Enabled: b.Enabled}
	if b.Headers != nil {
		in.Headers = *b.Headers
	}
	if b.BasicAuth != nil {
		in.Username, in.Password = b.BasicAuth.Username, deref(b.BasicAuth.Password)
	}
	c, err := s.svc.RemoteWrite.Put(ctx, principal(ctx), req.Project, in)
	if err != nil {
		return nil, err
	}
	return PutRemoteWrite200JSONResponse(s.remoteWriteOut(c)), nil
}

// DeleteRemoteWrite implements DELETE /projects/{project}/remote-write.
func (s *server) DeleteRemoteWrite(ctx context.Context, req DeleteRemoteWriteRequestObject) (DeleteRemoteWriteResponseObject, error) {
	ctx = requestContext(ctx)
	if err := s.svc.RemoteWrite.Delete(ctx, principal(ctx), req.Project); err != nil {
		return nil, err
	}
	return DeleteRemoteWrite204Response{}, nil
}

// remoteWriteOut is a configuration without its secrets: no header values,
// password or token, and the URL's secret query parameters (as in specs)
// redacted.
func (s *server) remoteWriteOut(c remotewrite.Config) RemoteWrite {
	names := slices.Sorted(maps.Keys(c.Headers))
	if names == nil {
		names = []string{}
	}
	return RemoteWrite{
		Url: s.redactor.URL(c.URL), HeaderNames: names, Auth: RemoteWriteAuth(c.Auth), Username: c.Username,
		Enabled: c.Enabled, UpdatedAt: c.UpdatedAt,
	}
}
