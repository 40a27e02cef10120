package auth

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// SessionCookie is the name of the dashboard session cookie.
const SessionCookie = "barrage_session"

// touchEvery is how stale a token's last_used_at may get before a request
// writes it again; it keeps token use from costing a write per request.
const touchEvery = time.Minute

// Identity is what the store knows about one credential and its user.
type Identity struct {
	// UserID, Email, Name and OrgAdmin describe the user.
	UserID   uuid.UUID
	Email    string
	Name     string
	OrgAdmin bool
	// UserDisabled is set when the user may no longer sign in.
	UserDisabled bool
	// TokenID is set for an API token, SessionID for a session.
	TokenID   uuid.UUID
	SessionID uuid.UUID
	// TokenProject and TokenRole scope a project token; uuid.Nil and "" otherwise.
	TokenProject uuid.UUID
	TokenRole    Role
	// OwnerRole is the user's current role in TokenProject; "" when they
	// are no longer a member (or for an unscoped credential).
	OwnerRole Role
	// ExpiresAt is when the credential stops working; zero for never.
	ExpiresAt time.Time
	// RevokedAt is when the credential was revoked; zero if it was not.
	RevokedAt time.Time
	// LastUsedAt is when a token was last used; zero if never.
	LastUsedAt time.Time
	// IssuedAt is when a session id was issued; Replaced is set once a
	// rotation has issued its successor.
	IssuedAt time.Time
	Replaced bool
}

// Login is what sign-in needs to know about a user.
type Login struct {
	// UserID is the user.
	UserID uuid.UUID
	// PasswordHash is the argon2id hash; empty for users without a password.
	PasswordHash string
	// Disabled users may not sign in.
	Disabled bool
}

// Session is a dashboard session to store.
type Session struct {
	// ID identifies the session.
	ID uuid.UUID
	// UserID is the signed-in user.
	UserID uuid.UUID
	// Hash is SHA-256 of the cookie value.
	Hash []byte
	// IssuedAt is when the session id was issued; rotation counts from it.
	IssuedAt time.Time
	// ExpiresAt is when the session ends.
	ExpiresAt time.Time
	// Replaces is the session of the cookie this sign-in replaces, revoked
	// with it; uuid.Nil for none.
	Replaces uuid.UUID
	// Method is how the user signed in, for the audit log: "password" or
	// "oidc".
	Method string
	// Client is the client address of a password sign-in, whose failed
	// sign-ins the session resets; "" for others.
	Client string
}

// Store is the storage that authentication needs.
type Store interface {
	// IdentityByTokenHash finds an API token by hash; NotFound when unknown.
	IdentityByTokenHash(ctx context.Context, hash []byte) (Identity, error)
	// IdentityBySessionHash finds a session by hash; NotFound when unknown.
	IdentityBySessionHash(ctx context.Context, hash []byte) (Identity, error)
	// Memberships returns the user's role in each of their projects.
	Memberships(ctx context.Context, user uuid.UUID) (map[uuid.UUID]Role, error)
	// TouchToken records that a token was used at.
	TouchToken(ctx context.Context, token uuid.UUID, at time.Time) error
	// LoginByEmail finds a user by email, case-insensitively; NotFound when unknown.
	LoginByEmail(ctx context.Context, email string) (Login, error)
	// LoginByIdentity finds the user linked to an identity provider's
	// issuer and subject; NotFound when none is.
	LoginByIdentity(ctx context.Context, issuer, subject string) (Login, error)
	// ProvisionUser creates a user without a password in the default
	// organisation, linked to ext, and audits user.create (method oidc);
	// Conflict when a user has ext's email already.
	ProvisionUser(ctx context.Context, ext ExternalIdentity) (Login, error)
	// LinkIdentity links ext to user and audits user.identity_link;
	// Conflict when ext is linked to another user.
	LinkIdentity(ctx context.Context, user uuid.UUID, ext ExternalIdentity, actor Actor) error
	// LoginLock returns the lockout state of an email address,
	// case-insensitively, tried from client, at at; the zero LoginLock when
	// it has none.
	LoginLock(ctx context.Context, email, client string, at time.Time) (LoginLock, error)
	// FailLogin audits a failed sign-in (never the password) and, unless it
	// was Refused, counts it and locks the address for its client for
	// policy.For(count), auditing auth.locked when it does; it returns the
	// new state.
	FailLogin(ctx context.Context, f LoginFailure, policy Lockout) (LoginLock, error)
	// CreateSession stores a new session for a sign-in, revokes the one it
	// Replaces and resets the user's failed sign-ins from its Client.
	CreateSession(ctx context.Context, s Session) error
	// RotateSession stores next in place of old, which keeps working until
	// graceEnd; false, storing nothing, when old was already replaced.
	RotateSession(ctx context.Context, old uuid.UUID, next Session, graceEnd time.Time) (bool, error)
	// RevokeSession ends a session.
	RevokeSession(ctx context.Context, id uuid.UUID) error
	// RevokeUserSessions ends every live session of user and audits it;
	// it returns how many it ended.
	RevokeUserSessions(ctx context.Context, user uuid.UUID, actor Actor) (int, error)
	// SetPassword stores hash as user's password, ends every session of
	// user but keep (uuid.Nil: all), clears the failed sign-ins of their
	// email and audits action; it returns how many sessions it ended.
	SetPassword(ctx context.Context, user uuid.UUID, hash string, keep uuid.UUID, action string, actor Actor) (int, error)
}

// Defaults of Options.
const (
	// DefaultRotateEvery is Options.RotateEvery when it is zero.
	DefaultRotateEvery = time.Hour
	// DefaultRotateGrace is Options.RotateGrace when it is zero.
	DefaultRotateGrace = 30 * time.Second
)

// Options configure an Authenticator.
type Options struct {
	// SessionTTL is the absolute lifetime of a session; rotation keeps it.
	SessionTTL time.Duration
	// RotateEvery is how old a session id may get before a request
	// re-issues it; zero means DefaultRotateEvery, negative never.
	RotateEvery time.Duration
	// RotateGrace is how long a rotated-out session keeps working, for
	// requests already in flight; zero means DefaultRotateGrace.
	RotateGrace time.Duration
	// Lockout is the sign-in lockout policy.
	Lockout Lockout
	// Now is the clock; nil means time.Now. Tests inject one.
	Now func() time.Time
	// MaxHashes bounds the password checks that run at once; a sign-in
	// that finds none free within a second is refused with RateLimited.
	// Zero means DefaultMaxHashes.
	MaxHashes int
	// HashHold, when set, runs while a password check holds its slot,
	// before the check. Not a setting: tests hold a slot with it.
	HashHold func()
}

// Normalize returns o with the defaults filled in.
func (o Options) Normalize() Options {
	if o.RotateEvery == 0 {
		o.RotateEvery = DefaultRotateEvery
	}
	if o.RotateGrace <= 0 {
		o.RotateGrace = DefaultRotateGrace
	}
	o.Lockout = o.Lockout.Normalize()
	if o.MaxHashes <= 0 {
		o.MaxHashes = DefaultMaxHashes
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Authenticator turns request credentials into a Principal.
type Authenticator struct {
	store  Store
	opts   Options
	hashes *hashGate
}

// NewAuthenticator returns an Authenticator over store.
func NewAuthenticator(store Store, opts Options) *Authenticator {
	opts = opts.Normalize()
	return &Authenticator{store: store, opts: opts, hashes: newHashGate(opts.MaxHashes, opts.HashHold)}
}

// now is the Authenticator's clock.
func (a *Authenticator) now() time.Time { return a.opts.Now() }

// errUnauthenticated is the one answer for every bad credential, so a caller
// cannot tell an unknown token from a revoked one.
func errUnauthenticated(detail string) error {
	return apperr.New(apperr.Unauthenticated, "%s", detail)
}

// Authenticate checks an Authorization header value or, when it is empty,
// a session cookie value, and returns the caller.
func (a *Authenticator) Authenticate(ctx context.Context, authorization, cookie string) (*Principal, error) {
	var (
		id  Identity
		err error
	)
	switch {
	case authorization != "":
		scheme, token, _ := strings.Cut(authorization, " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return nil, errUnauthenticated("the Authorization header must be \"Bearer <token>\"")
		}
		hash, perr := ParseToken(strings.TrimSpace(token))
		if perr != nil {
			return nil, errUnauthenticated("the bearer token is " + perr.Error())
		}
		id, err = a.store.IdentityByTokenHash(ctx, hash)
	case cookie != "":
		id, err = a.store.IdentityBySessionHash(ctx, HashSecret(cookie))
	default:
		return nil, errUnauthenticated("this endpoint needs a bearer token or a session")
	}
	if apperr.Is(err, apperr.NotFound) {
		return nil, errUnauthenticated("the credentials are unknown, expired or revoked")
	}
	if err != nil {
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	now := a.now()
	if id.UserDisabled || !id.RevokedAt.IsZero() || (!id.ExpiresAt.IsZero() && !now.Before(id.ExpiresAt)) {
		return nil, errUnauthenticated("the credentials are unknown, expired or revoked")
	}
	p := &Principal{
		UserID: id.UserID, Email: id.Email, Name: id.Name, OrgAdmin: id.OrgAdmin,
		TokenID: id.TokenID, SessionID: id.SessionID, TokenProject: id.TokenProject, TokenRole: id.effectiveTokenRole(),
		session: sessionState{issuedAt: id.IssuedAt, expiresAt: id.ExpiresAt, replaced: id.Replaced},
	}
	if p.Scoped() && !p.TokenRole.Valid() {
		// A project token whose owner left the project has no authority
		// anywhere: it answers as a revoked token does, and works again
		// (with the lower role) only if its owner is added back.
		return nil, errUnauthenticated("the credentials are unknown, expired or revoked")
	}
	if !p.Scoped() {
		if p.Memberships, err = a.store.Memberships(ctx, id.UserID); err != nil {
			return nil, fmt.Errorf("authenticate: memberships: %w", err)
		}
	}
	if id.TokenID != uuid.Nil && now.Sub(id.LastUsedAt) > touchEvery {
		if err := a.store.TouchToken(ctx, id.TokenID, now); err != nil {
			return nil, fmt.Errorf("authenticate: touch token: %w", err)
		}
	}
	return p, nil
}

// effectiveTokenRole is what a project token may do: the lower of its own
// role and its owner's current role in the project, so a token loses what
// its owner loses when demoted or removed; an org admin's token keeps its
// role, as org admins act as admin in every project.
func (id Identity) effectiveTokenRole() Role {
	if id.TokenProject == uuid.Nil || id.OrgAdmin {
		return id.TokenRole
	}
	return Lower(id.TokenRole, id.OwnerRole)
}

// SignOut ends the caller's session, if they used one.
func (a *Authenticator) SignOut(ctx context.Context, p *Principal) error {
	if p.SessionID == uuid.Nil {
		return nil
	}
	if err := a.store.RevokeSession(ctx, p.SessionID); err != nil {
		return fmt.Errorf("sign out: %w", err)
	}
	return nil
}

// dummyHash is a valid argon2id hash of a random password, checked against
// when the email is unknown.
const dummyHash = "$argon2id$v=19$m=65536,t=3,p=2$c29tZXNhbHRzb21lc2FsdA$0mXjH5v0b3tS8kB2o1gQk1c7m0o8Yv6i3p2w0xq9z1E"
