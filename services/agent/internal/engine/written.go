package engine

import (
	"sync/atomic"
)

// urlLog is the run-wide state of Options.WrittenURLs, shared by the
// recorders: what is left of the bound and what was dropped.
type urlLog struct {
	prefix string
	maxLen int
	left   atomic.Int64
	// dropped counts the writes whose URL was not kept.
	dropped atomic.Int64
}

// newURLLog returns the log of o, nil when o records no written URLs.
func newURLLog(o *Options) *urlLog {
	if o.WrittenURLs <= 0 {
		return nil
	}
	l := &urlLog{prefix: o.URLPrefix, maxLen: o.MaxURLLength}
	l.left.Store(int64(o.WrittenURLs))
	return l
}

// take returns the URL of a successful write to target (a copy: target
// is the client's buffer), or false when it is dropped: too long, or past
// the bound.
func (l *urlLog) take(target []byte) (string, bool) {
	if (l.maxLen > 0 && len(l.prefix)+len(target) > l.maxLen) || l.left.Add(-1) < 0 {
		l.dropped.Add(1)
		return "", false
	}
	return l.prefix + string(target), true
}

// urlOverhead is what one URL adds to a snapshot on the wire besides its
// bytes (protobuf tag and length), for URLBytesPerSnapshot.
const urlOverhead = 4

// takeURLs moves the written URLs recorded since the last call to the end
// of dst.
func (r *recorder) takeURLs(dst []string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	dst = append(dst, r.urls...)
	clear(r.urls)
	r.urls = r.urls[:0]
	return dst
}

// fillURLs gathers the recorders' written URLs behind those still waiting
// and hands iv as many as fit in Options.URLBytesPerSnapshot (at least
// one); the others wait for the next snapshot.
func (c *collector) fillURLs(iv *Snapshot) {
	if c.r.urls == nil {
		return
	}
	for _, rec := range c.r.recorders {
		c.backlog = rec.takeURLs(c.backlog)
	}
	budget := c.r.opts.URLBytesPerSnapshot
	n, size := 0, 0
	for n < len(c.backlog) {
		size += len(c.backlog[n]) + urlOverhead
		if budget > 0 && size > budget && n > 0 {
			break
		}
		n++
	}
	iv.WrittenURLs = append(iv.WrittenURLs[:0], c.backlog[:n]...)
	rest := copy(c.backlog, c.backlog[n:])
	clear(c.backlog[rest:])
	c.backlog = c.backlog[:rest]
}

// urlsDropped returns the writes of the run whose URL was not sent, the
// ones still waiting included, and forgets those.
func (c *collector) urlsDropped() int64 {
	if c.r.urls == nil {
		return 0
	}
	n := c.r.urls.dropped.Load() + int64(len(c.backlog))
	clear(c.backlog)
	c.backlog = c.backlog[:0]
	return n
}
