package httpapi

import (
	"context"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/members"
)

// memberUserOut maps a user of the organisation.
func memberUserOut(u members.User) User {
	out := User{Id: u.ID, Email: u.Email, Name: u.Name, IsAdmin: u.OrgAdmin}
	if u.Disabled {
		out.Disabled = &u.Disabled
	}
	return out
}

// memberOut maps a member.
func memberOut(m members.Member) Member {
	return Member{User: memberUserOut(m.User), Role: Role(m.Role), AddedAt: m.AddedAt}
}

// ListMembers implements GET /projects/{project}/members.
func (s *server) ListMembers(ctx context.Context, req ListMembersRequestObject) (ListMembersResponseObject, error) {
	ctx = requestContext(ctx)
	list, err := s.svc.Members.List(ctx, principal(ctx), req.Project)
	if err != nil {
		return nil, err
	}
	return ListMembers200JSONResponse{Items: mapSlice(list, memberOut)}, nil
}

// PutMember implements PUT /projects/{project}/members/{user}.
func (s *server) PutMember(ctx context.Context, req PutMemberRequestObject) (PutMemberResponseObject, error) {
	ctx = requestContext(ctx)
	m, err := s.svc.Members.Put(ctx, principal(ctx), req.Project, req.User, auth.Role(req.Body.Role))
	if err != nil {
		return nil, err
	}
	return PutMember200JSONResponse(memberOut(m)), nil
}

// DeleteMember implements DELETE /projects/{project}/members/{user}.
func (s *server) DeleteMember(ctx context.Context, req DeleteMemberRequestObject) (DeleteMemberResponseObject, error) {
	ctx = requestContext(ctx)
	if err := s.svc.Members.Remove(ctx, principal(ctx), req.Project, req.User); err != nil {
		return nil, err
	}
	return DeleteMember204Response{}, nil
}

// CreateUser implements POST /users.
func (s *server) CreateUser(ctx context.Context, req CreateUserRequestObject) (CreateUserResponseObject, error) {
	ctx = requestContext(ctx)
	in := members.UserInput{Email: req.Body.Email}
	if req.Body.Name != nil {
		in.Name = *req.Body.Name
	}
	if req.Body.Password != nil {
		in.Password = *req.Body.Password
	}
	u, generated, err := s.svc.Members.CreateUser(ctx, principal(ctx), in)
	if err != nil {
		return nil, err
	}
	out := CreateUser201JSONResponse{User: memberUserOut(u)}
	if generated != "" {
		out.Password = &generated
	}
	return out, nil
}

// UpdateUser implements PATCH /users/{user}.
func (s *server) UpdateUser(ctx context.Context, req UpdateUserRequestObject) (UpdateUserResponseObject, error) {
	ctx = requestContext(ctx)
	u, err := s.svc.Members.UpdateUser(ctx, principal(ctx), req.User, members.UserPatch{Disabled: req.Body.Disabled, OrgAdmin: req.Body.OrgAdmin})
	if err != nil {
		return nil, err
	}
	return UpdateUser200JSONResponse(memberUserOut(u)), nil
}

// ChangePassword implements POST /me/password.
func (s *server) ChangePassword(ctx context.Context, req ChangePasswordRequestObject) (ChangePasswordResponseObject, error) {
	ctx = requestContext(ctx)
	if _, err := s.svc.Auth.ChangePassword(ctx, principal(ctx), req.Body.CurrentPassword, req.Body.NewPassword); err != nil {
		return nil, err
	}
	return ChangePassword204Response{}, nil
}
