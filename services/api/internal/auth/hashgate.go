package auth

import (
	"context"
	"time"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// Defaults of the password-check gate.
const (
	// DefaultMaxHashes is Options.MaxHashes when it is zero: each check
	// holds argonMemory (64 MiB), so four cost 256 MiB at most.
	DefaultMaxHashes = 4
	// hashWait is how long a sign-in waits for a free check before it is
	// refused: a check takes well under this, so only a flood waits it out.
	hashWait = time.Second
	// hashRetryAfter is the Retry-After of a sign-in refused for want of
	// a free check.
	hashRetryAfter = time.Second
)

// hashGate bounds the password checks that run at once, so a flood of
// sign-ins cannot take the server's memory (docs/security.md, "The HTTP
// edge").
type hashGate struct {
	slots chan struct{}
	// hold runs while a slot is held, before the check; tests use it to
	// keep a slot taken. nil in production.
	hold func()
}

// newHashGate returns a gate of max slots.
func newHashGate(maxHashes int, hold func()) *hashGate {
	return &hashGate{slots: make(chan struct{}, maxHashes), hold: hold}
}

// check runs CheckPassword(hash, password) in a free slot. When none frees
// within hashWait it returns a RateLimited error with a Retry-After and
// checks nothing.
func (g *hashGate) check(ctx context.Context, hash, password string) error {
	t := time.NewTimer(hashWait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
	case <-t.C:
		return &apperr.Error{Code: apperr.RateLimited, Detail: "too many sign-ins at once; try again shortly", RetryAfter: hashRetryAfter}
	case <-ctx.Done():
		return ctx.Err() //nolint:wrapcheck // the caller left
	}
	defer func() { <-g.slots }()
	if g.hold != nil {
		g.hold()
	}
	return CheckPassword(hash, password)
}
