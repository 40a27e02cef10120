package engine

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// collect publishes an interval snapshot every Interval until the workers are
// done, then the last interval and the final snapshot.
func (r *run) collect(ctx context.Context, wg *sync.WaitGroup) (*Snapshot, error) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	c := newCollector(context.WithoutCancel(ctx), r)
	ticker := time.NewTicker(r.opts.Interval)
	defer ticker.Stop()
	for {
		select {
		case now := <-ticker.C:
			if err := c.publishInterval(now); err != nil {
				r.cancel()
				<-done
				return nil, err
			}
		case <-done:
			if r.schedule != nil {
				r.countDropped(ctx, r.schedule, r.next.Load())
			}
			return c.publishFinal(time.Now())
		}
	}
}

// collector drains the recorders into interval snapshots and keeps the total.
type collector struct {
	r        *run
	ctx      context.Context // not canceled by a stop: the last snapshots must go out
	interval *Snapshot
	total    *Snapshot
	seq      uint64
	from     time.Time
	// backlog is the written URLs waiting for a snapshot (fillURLs).
	backlog []string
}

func newCollector(ctx context.Context, r *run) *collector {
	server, n := r.opts.ServerLatency, len(r.opts.Mix)
	c := &collector{r: r, ctx: ctx, interval: newSnapshot(server, n), total: newSnapshot(server, n), from: r.start}
	c.total.Start = r.start
	c.total.Connections = r.opts.Connections
	c.interval.Connections = r.opts.Connections
	return c
}

// publishInterval sends what was recorded since the previous interval.
func (c *collector) publishInterval(end time.Time) error {
	c.seq++
	iv := c.interval
	iv.Seq, iv.Start, iv.End = c.seq, c.from, end
	for _, rec := range c.r.recorders {
		if err := rec.drainInto(iv); err != nil {
			return fmt.Errorf("collect interval %d: %w", c.seq, err)
		}
	}
	if err := c.total.add(iv); err != nil {
		return fmt.Errorf("collect interval %d: %w", c.seq, err)
	}
	c.fillURLs(iv)
	err := c.r.opts.Sink.Publish(c.ctx, iv)
	iv.reset()
	c.from = end
	if err != nil {
		return fmt.Errorf("publish snapshot %d: %w", c.seq, err)
	}
	return nil
}

// publishFinal sends the last interval, then the whole run as the final snapshot.
func (c *collector) publishFinal(end time.Time) (*Snapshot, error) {
	if err := c.publishInterval(end); err != nil {
		return nil, err
	}
	c.seq++
	t := c.total
	t.Seq, t.End, t.Final, t.Aborted, t.Dropped = c.seq, end, true, c.r.aborted.Load(), c.r.dropped.Load()
	t.URLsDropped = c.urlsDropped()
	c.r.mergeTimelines(t, timelineSize(&c.r.opts))
	if err := c.r.opts.Sink.Publish(c.ctx, t); err != nil {
		return nil, fmt.Errorf("publish final snapshot: %w", err)
	}
	return t, nil
}
