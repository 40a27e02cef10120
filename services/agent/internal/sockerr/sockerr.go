// Package sockerr keeps the first error a run's requests met below their
// protocol (dial, TLS handshake, write or read), which the clients only
// count as a socket error, so that the agent can say why once.
package sockerr

import (
	"context"
	"sync/atomic"
)

// First holds the first error noted while the run goes on; the zero value
// holds none and is ready to use, from any goroutine.
type First struct {
	err atomic.Pointer[error]
}

// Err returns the first error noted, or nil.
func (f *First) Err() error {
	if e := f.err.Load(); e != nil {
		return *e
	}
	return nil
}

// Note keeps err if it is the first and the run (ctx) is not ending: the
// errors of requests cut short by the run's end say nothing of the target.
func (f *First) Note(ctx context.Context, err error) {
	if ctx.Err() == nil && f.err.Load() == nil {
		f.err.CompareAndSwap(nil, &err)
	}
}
