package auth

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// ExternalIdentity is a person as an identity provider vouched for them.
// A user is linked to Issuer and Subject, never found by Email: an email
// the provider reports is no proof of owning the account that has it.
type ExternalIdentity struct {
	Issuer  string
	Subject string
	// Email is verified by the provider; Name may be "".
	Email string
	Name  string
}

// SignInExternal starts a session for the user linked to ext. When no user
// is, it creates one linked to ext (no password, no project) only if
// provision is set, and never when a user has ext's email already: such a
// user links the identity from their own session (LinkExternal). A
// disabled user is refused. oldCookie is revoked as in SignIn.
func (a *Authenticator) SignInExternal(ctx context.Context, ext ExternalIdentity, provision bool, oldCookie string) (Secret, *Principal, error) {
	login, err := a.store.LoginByIdentity(ctx, ext.Issuer, ext.Subject)
	switch {
	case apperr.Is(err, apperr.NotFound) && !provision:
		return Secret{}, nil, errUnauthenticated("no user is linked to this single sign-on identity")
	case apperr.Is(err, apperr.NotFound):
		if login, err = a.store.ProvisionUser(ctx, ext); err != nil {
			return Secret{}, nil, fmt.Errorf("sign in %s: %w", ext.Subject, err)
		}
	case err != nil:
		return Secret{}, nil, fmt.Errorf("sign in %s: %w", ext.Subject, err)
	}
	if login.Disabled {
		return Secret{}, nil, errUnauthenticated("this account is disabled")
	}
	now := a.now()
	secret := NewSessionSecret()
	s := Session{
		ID: uuid.New(), UserID: login.UserID, Hash: secret.Hash,
		IssuedAt: now, ExpiresAt: now.Add(a.opts.SessionTTL), Replaces: a.cookieSession(ctx, oldCookie), Method: "oidc",
	}
	return a.startSession(ctx, s, secret)
}

// LinkExternal links ext to the caller's user, the explicit step that lets
// an existing account sign in through the provider. It needs a dashboard
// session (an API token may not); Conflict when ext is linked to another
// user already.
func (a *Authenticator) LinkExternal(ctx context.Context, p *Principal, ext ExternalIdentity) error {
	if p.SessionID == uuid.Nil {
		return apperr.New(apperr.Forbidden, "linking a single sign-on identity needs a dashboard session")
	}
	if err := a.store.LinkIdentity(ctx, p.UserID, ext, p.Actor()); err != nil {
		return fmt.Errorf("link identity: %w", err)
	}
	return nil
}
