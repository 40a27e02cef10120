package auth

import (
	"time"

	"github.com/google/uuid"
)

// Defaults of Lockout.
const (
	// DefaultLockThreshold is Lockout.Threshold when it is zero.
	DefaultLockThreshold = 5
	// DefaultLockFirst is Lockout.First when it is zero.
	DefaultLockFirst = time.Minute
	// DefaultLockMax is Lockout.Max when it is zero.
	DefaultLockMax = 15 * time.Minute
)

// Lockout is the account lockout policy of sign-in: after Threshold
// consecutive failures for one email address from one client address,
// sign-in with it from that client is refused for First; each failure
// after a lock has ended doubles the lock, up to Max. Attempts while locked
// are refused without checking the password and do not lengthen the lock.
// A success resets the count of its client. Keyed on the pair, a
// stranger's failures lock the stranger out, not the account's owner; the
// guesses across all clients are bounded by the per-email sign-in limiter
// of package httpapi (docs/security.md, "The HTTP edge").
type Lockout struct {
	// Threshold is how many consecutive failures lock; zero means
	// DefaultLockThreshold.
	Threshold int
	// First is how long the first lock lasts; zero means DefaultLockFirst.
	First time.Duration
	// Max caps a lock; zero means DefaultLockMax.
	Max time.Duration
}

// Normalize returns l with the defaults filled in.
func (l Lockout) Normalize() Lockout {
	if l.Threshold <= 0 {
		l.Threshold = DefaultLockThreshold
	}
	if l.First <= 0 {
		l.First = DefaultLockFirst
	}
	if l.Max <= 0 {
		l.Max = DefaultLockMax
	}
	l.Max = max(l.Max, l.First)
	return l
}

// For returns how long an address with failures consecutive failures is
// locked: zero below the threshold, then First doubled per failure beyond
// it, capped at Max. l must be normalized.
func (l Lockout) For(failures int) time.Duration {
	if failures < l.Threshold {
		return 0
	}
	d := l.First
	for i := l.Threshold; i < failures && d < l.Max; i++ {
		d *= 2
	}
	return min(d, l.Max)
}

// LoginFailure is one failed sign-in to record.
type LoginFailure struct {
	// Email is the address tried.
	Email string
	// Client is the client address it was tried from.
	Client string
	// User is the user with that address, or uuid.Nil when there is none.
	User uuid.UUID
	// At is when it happened.
	At time.Time
	// Refused is set for an attempt while the address was locked: it is
	// audited but not counted.
	Refused bool
}

// LoginLock is the lockout state of an email address tried from one
// client address.
type LoginLock struct {
	// Failures is the count of consecutive failures.
	Failures int
	// LockedUntil is when sign-in is allowed again; zero when not locked.
	LockedUntil time.Time
}
