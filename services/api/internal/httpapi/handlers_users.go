package httpapi

import (
	"context"

	"github.com/barrage-dev/barrage/services/api/internal/members"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
)

// orgUserOut maps a user of an org admin's list.
func orgUserOut(u members.OrgUser) OrgUser {
	base := memberUserOut(u.User)
	return OrgUser{
		Id: base.Id, Email: base.Email, Name: base.Name, IsAdmin: base.IsAdmin, Disabled: base.Disabled,
		CreatedAt: u.CreatedAt, LastSignInAt: optTime(u.LastSignInAt),
		Projects: mapSlice(u.Projects, func(p members.ProjectRole) UserProject {
			return UserProject{Id: p.ProjectID, Slug: p.Slug, Name: p.Name, Role: Role(p.Role)}
		}),
	}
}

// ListUsers implements GET /users.
func (s *server) ListUsers(ctx context.Context, req ListUsersRequestObject) (ListUsersResponseObject, error) {
	ctx = requestContext(ctx)
	page, err := paging.ParseRequest(req.Params.Cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	list, next, err := s.svc.Members.ListUsers(ctx, principal(ctx), deref(req.Params.Q), page)
	if err != nil {
		return nil, err
	}
	return ListUsers200JSONResponse{Items: mapSlice(list, orgUserOut), NextCursor: optString(next)}, nil
}

// ResetUserPassword implements POST /users/{user}/password. The answer
// carries the new password: it is never logged (the request log holds no
// bodies, reqlog).
func (s *server) ResetUserPassword(ctx context.Context, req ResetUserPasswordRequestObject) (ResetUserPasswordResponseObject, error) {
	ctx = requestContext(ctx)
	r, err := s.svc.Members.ResetPassword(ctx, principal(ctx), req.User)
	if err != nil {
		return nil, err
	}
	return ResetUserPassword200JSONResponse{User: memberUserOut(r.User), Password: r.Password, SessionsEnded: r.SessionsEnded}, nil
}
