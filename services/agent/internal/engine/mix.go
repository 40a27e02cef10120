package engine

import (
	"context"
	"sync/atomic"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// mixSlots is the length of the entry table of a mix: weights are kept to
// 1/mixSlots of the rate.
const mixSlots = 1000

// mix picks the entry of every request of a weighted request mix: a
// table of mixSlots entries in which each entry appears in proportion to
// its weight, spread evenly (smooth weighted round robin), walked by one
// counter shared by the connections. Counts over any stretch of requests
// follow the weights to within a few requests, and picking costs one atomic
// add.
type mix struct {
	table [mixSlots]uint8
	next  atomic.Uint64
}

// newMix builds the table for weights (at most 256 entries, each > 0 or
// treated as the smallest share).
func newMix(weights []float64) *mix {
	var total float64
	for _, w := range weights {
		total += max(w, 0)
	}
	slots := make([]int, len(weights))
	for i, w := range weights {
		slots[i] = max(1, int(max(w, 0)/total*mixSlots+0.5))
	}
	m := &mix{}
	current := make([]int, len(weights))
	sum := 0
	for _, s := range slots {
		sum += s
	}
	for k := range m.table {
		best := 0
		for i, s := range slots {
			current[i] += s
			if current[i] > current[best] {
				best = i
			}
		}
		current[best] -= sum
		m.table[k] = uint8(best)
	}
	return m
}

// pick returns the entry of the next request.
func (m *mix) pick() int {
	return int(m.table[(m.next.Add(1)-1)%mixSlots])
}

// EntrySnapshot is the measurements of one entry of a request mix.
type EntrySnapshot struct {
	// Count is the number of requests completed, Errors those that failed.
	Count, Errors int64
	// Codes counts requests by result code.
	Codes map[int32]int64
	// Sent and Received count bytes on the wire.
	Sent, Received int64
	// Service and Response are as in Snapshot.
	Service, Response *hist.Histogram
}

func newEntries(n int) []*EntrySnapshot {
	if n == 0 {
		return nil
	}
	out := make([]*EntrySnapshot, n)
	for i := range out {
		out[i] = &EntrySnapshot{Codes: make(map[int32]int64), Service: hist.New(), Response: hist.New()}
	}
	return out
}

// add merges o into e.
func (e *EntrySnapshot) add(o *EntrySnapshot) error {
	e.Count += o.Count
	e.Errors += o.Errors
	e.Sent += o.Sent
	e.Received += o.Received
	for code, n := range o.Codes {
		e.Codes[code] += n
	}
	if err := e.Service.Merge(o.Service); err != nil {
		return err
	}
	return e.Response.Merge(o.Response)
}

func (e *EntrySnapshot) reset() {
	e.Count, e.Errors, e.Sent, e.Received = 0, 0, 0, 0
	clear(e.Codes)
	e.Service.Reset()
	e.Response.Reset()
}

// doer sends the requests of one connection: the client's single request,
// or with a mix, the picked entry.
type doer struct {
	c     request.Client
	entry request.EntryClient
	mix   *mix
	// writes reports the writes of c when written URLs are recorded; nil
	// otherwise.
	writes request.WriteReporter
}

// do sends one request and returns its result and entry (-1 without a mix).
func (d doer) do(ctx context.Context) (request.Result, int) {
	if d.mix == nil {
		return d.c.Do(ctx), -1
	}
	e := d.mix.pick()
	return d.entry.DoEntry(ctx, e), e
}
