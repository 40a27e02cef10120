package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// errLocked is the answer while an address is locked for the client: the
// same whether or not the password was right, and whether or not a user
// has the address.
func errLocked(wait time.Duration) error {
	return &apperr.Error{
		Code:       apperr.RateLimited,
		Detail:     "too many failed sign-ins with this email; try again later",
		RetryAfter: max(wait, time.Second),
	}
}

// SignIn checks email and password, sent from the client address client,
// and starts a session; it returns the cookie value. oldCookie, the session
// cookie the browser sent if any, is revoked: every sign-in gets a new
// session id.
//
// Every wrong email or password is the same Unauthenticated error, audited
// with the email tried (never the password); every path spends one argon2id
// check, so timing does not tell known addresses from unknown ones. After
// Lockout.Threshold consecutive failures from client the address is locked
// for that client: sign-in answers RateLimited with a retry delay until the
// lock ends, for known and unknown addresses alike. At most
// Options.MaxHashes checks run at once; beyond them sign-in answers
// RateLimited without checking.
func (a *Authenticator) SignIn(ctx context.Context, email, password, client, oldCookie string) (Secret, *Principal, error) {
	now := a.now()
	lock, err := a.store.LoginLock(ctx, email, client, now)
	if err != nil {
		return Secret{}, nil, fmt.Errorf("sign in: %w", err)
	}
	login, err := a.store.LoginByEmail(ctx, email)
	if err != nil && !apperr.Is(err, apperr.NotFound) {
		return Secret{}, nil, fmt.Errorf("sign in: %w", err)
	}
	usable := err == nil && !login.Disabled && login.PasswordHash != ""
	hash := dummyHash
	if usable {
		hash = login.PasswordHash
	}
	perr := a.hashes.check(ctx, hash, password)
	if apperr.Is(perr, apperr.RateLimited) {
		return Secret{}, nil, perr
	}
	if perr != nil && !errors.Is(perr, ErrBadPassword) {
		return Secret{}, nil, fmt.Errorf("sign in: %w", perr)
	}
	failure := LoginFailure{Email: email, Client: client, User: login.UserID, At: now}
	if now.Before(lock.LockedUntil) {
		failure.Refused = true
		if _, err := a.store.FailLogin(ctx, failure, a.opts.Lockout); err != nil {
			return Secret{}, nil, fmt.Errorf("sign in: %w", err)
		}
		return Secret{}, nil, errLocked(lock.LockedUntil.Sub(now))
	}
	if !usable || perr != nil {
		if _, err := a.store.FailLogin(ctx, failure, a.opts.Lockout); err != nil {
			return Secret{}, nil, fmt.Errorf("sign in: %w", err)
		}
		return Secret{}, nil, errUnauthenticated("wrong email or password")
	}
	secret := NewSessionSecret()
	s := Session{
		ID: uuid.New(), UserID: login.UserID, Hash: secret.Hash,
		IssuedAt: now, ExpiresAt: now.Add(a.opts.SessionTTL), Replaces: a.cookieSession(ctx, oldCookie), Method: "password",
		Client: client,
	}
	return a.startSession(ctx, s, secret)
}

// startSession stores s, whose cookie value is secret, and returns the
// caller it authenticates.
func (a *Authenticator) startSession(ctx context.Context, s Session, secret Secret) (Secret, *Principal, error) {
	if err := a.store.CreateSession(ctx, s); err != nil {
		return Secret{}, nil, fmt.Errorf("sign in: %w", err)
	}
	p, err := a.Authenticate(ctx, "", secret.Text)
	if err != nil {
		return Secret{}, nil, fmt.Errorf("sign in: %w", err)
	}
	return secret, p, nil
}

// cookieSession returns the session of a cookie value, or uuid.Nil when
// there is none or it is unknown.
func (a *Authenticator) cookieSession(ctx context.Context, cookie string) uuid.UUID {
	if cookie == "" {
		return uuid.Nil
	}
	id, err := a.store.IdentityBySessionHash(ctx, HashSecret(cookie))
	if err != nil {
		return uuid.Nil
	}
	return id.SessionID
}

// Rotate re-issues the caller's session when its id is older than
// RotateEvery. It returns the new cookie value and how long it has left
// (the same absolute expiry as before), and p then names the new session; the
// old session keeps working for RotateGrace, so requests already in flight
// with the old cookie do not fail. It returns a zero Secret when the caller
// used no session, no rotation is due, or a parallel request already
// rotated it.
func (a *Authenticator) Rotate(ctx context.Context, p *Principal) (Secret, time.Duration, error) {
	now := a.now()
	st := p.session
	if p.SessionID == uuid.Nil || st.replaced || a.opts.RotateEvery < 0 || now.Sub(st.issuedAt) < a.opts.RotateEvery {
		return Secret{}, 0, nil
	}
	secret := NewSessionSecret()
	next := Session{ID: uuid.New(), UserID: p.UserID, Hash: secret.Hash, IssuedAt: now, ExpiresAt: st.expiresAt}
	ok, err := a.store.RotateSession(ctx, p.SessionID, next, now.Add(a.opts.RotateGrace))
	if err != nil {
		return Secret{}, 0, fmt.Errorf("rotate session: %w", err)
	}
	if !ok {
		return Secret{}, 0, nil
	}
	p.SessionID, p.session = next.ID, sessionState{issuedAt: now, expiresAt: st.expiresAt}
	return secret, st.expiresAt.Sub(now), nil
}

// SignOutEverywhere ends every session of the caller's user, the one in
// use included, and returns how many it ended. API tokens keep working:
// revoke them one by one. A project token may not end its user's sessions.
func (a *Authenticator) SignOutEverywhere(ctx context.Context, p *Principal) (int, error) {
	if p.Scoped() {
		return 0, apperr.New(apperr.Forbidden, "a project token cannot end its user's sessions")
	}
	n, err := a.store.RevokeUserSessions(ctx, p.UserID, p.Actor())
	if err != nil {
		return 0, fmt.Errorf("sign out everywhere: %w", err)
	}
	return n, nil
}
