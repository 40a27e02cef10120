package engine

import (
	"context"
	"time"

	"github.com/barrage-dev/barrage/pkg/delay"
	"github.com/barrage-dev/barrage/services/agent/internal/pacer"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// work runs connection i's loop for the chosen pacing.
func (r *run) work(ctx context.Context, i int, cl request.Client) {
	rec := r.recorders[i%len(r.recorders)]
	c := doer{c: cl, mix: r.mix}
	if r.mix != nil {
		c.entry = cl.(request.EntryClient) // checked by openClients
	}
	if r.urls != nil {
		c.writes, _ = cl.(request.WriteReporter)
	}
	switch r.opts.Pacing {
	case Open:
		r.workOpen(ctx, c, rec, delay.NewTimerSleeper())
	case Closed:
		r.workClosed(ctx, c, rec)
	case Fortio:
		r.workFortio(ctx, i, c, rec, delay.NewTimerSleeper())
	}
}

// workOpen takes the next slot of the shared schedule whenever this connection is
// free: when every connection is busy, slots wait and their wait is measured.
func (r *run) workOpen(ctx context.Context, c doer, rec *recorder, sl *delay.Sleeper) {
	for ctx.Err() == nil && !r.pastEnd() {
		i := r.next.Add(1) - 1
		at, ok := r.schedule.At(i)
		if !ok {
			return
		}
		intended := r.start.Add(at)
		if !sl.Until(ctx, intended) {
			return
		}
		r.send(ctx, c, rec, intended)
	}
}

// workClosed sends back to back until the count or the duration is reached.
func (r *run) workClosed(ctx context.Context, c doer, rec *recorder) {
	count, end := r.opts.Count, r.opts.Duration
	for ctx.Err() == nil {
		if count > 0 && r.next.Add(1) > count {
			return
		}
		if end > 0 && time.Since(r.start) >= end {
			return
		}
		r.send(ctx, c, rec, time.Time{}) // closed loop: intended is the send itself, no lag
	}
}

// workFortio follows this connection's own schedule; a late request is sent at
// once (catch-up), or with NoCatchUp the schedule restarts from the late send.
func (r *run) workFortio(ctx context.Context, i int, c doer, rec *recorder, sl *delay.Sleeper) {
	o := r.opts
	s := pacer.PerConnection(o.QPS, o.Connections, i, o.Uniform, o.Jitter, pacer.Limits{Count: o.Count, End: o.Duration})
	var j int64
	if !o.NoCatchUp {
		// Without catch-up every slot still unsent at the end is in the past
		// (the loop ends only past the run's end), so skipped, not dropped.
		defer func() { r.countDropped(ctx, s, j) }()
	}
	for ; ctx.Err() == nil && !r.pastEnd(); j++ {
		at, ok := s.At(j)
		if !ok {
			return
		}
		intended := r.start.Add(at)
		if o.NoCatchUp && time.Since(intended) > 0 {
			continue // as Fortio: a slot missed is skipped, not caught up
		}
		if !sl.Until(ctx, intended) {
			return
		}
		r.send(ctx, c, rec, intended)
	}
}

// pastEnd reports whether the run's duration is over: no request starts after
// it, whatever is left of the schedule (that is counted as dropped).
func (r *run) pastEnd() bool {
	return r.opts.Duration > 0 && time.Since(r.start) >= r.opts.Duration
}

// countDropped adds the requests of s from index j on that were scheduled
// within the run but never sent because the duration ran out (the target did
// not keep up). A run that was stopped or aborted drops nothing, and a
// schedule without an end is never walked.
func (r *run) countDropped(ctx context.Context, s pacer.Schedule, j int64) {
	if ctx.Err() != nil || (r.opts.Duration <= 0 && r.opts.Count <= 0) {
		return
	}
	var n int64
	for ; ; j++ {
		if _, ok := s.At(j); !ok {
			break
		}
		n++
	}
	r.dropped.Add(n)
}

// send performs one request and records it; a zero intended means "now".
func (r *run) send(ctx context.Context, c doer, rec *recorder, intended time.Time) {
	sent := time.Now()
	if intended.IsZero() {
		intended = sent
	}
	res, entry := c.do(ctx)
	done := time.Now()
	if ctx.Err() != nil && !res.OK {
		return // interrupted by the stop, not a failure of the target
	}
	var write []byte
	if c.writes != nil && res.OK {
		write = c.writes.LastWrite()
	}
	rec.record(res, entry, intended, sent, done, write)
	if r.opts.AbortOn != 0 && res.Code == r.opts.AbortOn {
		r.aborted.Store(true)
		r.cancel()
	}
	if r.opts.Prefetch && ctx.Err() == nil && r.moreToSend() {
		if conn, ok := c.c.(request.Connector); ok {
			_ = conn.Connect(ctx) // a failure is the next request's to report
		}
	}
}

// moreToSend reports whether the run may still start requests: its duration
// is not over and, with a count, not every request has been taken (Fortio
// pacing splits the count per connection and is not tracked here).
func (r *run) moreToSend() bool {
	if r.pastEnd() {
		return false
	}
	return r.opts.Count <= 0 || r.opts.Pacing == Fortio || r.next.Load() < r.opts.Count
}
