package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
)

// poolSize is how many distinct interval measurements the simulated
// agents take turns sending.
const poolSize = 32

// measurement is one interval's encoded histograms.
type measurement struct{ resp, svc, lag []byte }

// pool holds the interval measurements and the final one (their merge).
type pool struct {
	intervals []measurement
	final     measurement
}

// newPool records values latencies per interval histogram: service time
// 200 µs - 20 ms with a long tail, lag 1 - 500 µs, response their sum.
func newPool(values int) (*pool, error) {
	rng := rand.New(rand.NewPCG(1, 2)) //nolint:gosec // latencies to record, not secrets
	all := [3]*hist.Histogram{hist.New(), hist.New(), hist.New()}
	p := &pool{}
	for range poolSize {
		hs := [3]*hist.Histogram{hist.New(), hist.New(), hist.New()}
		for range values {
			svc := 200 + int64(rng.ExpFloat64()*1500)%20000
			lag := 1 + rng.Int64N(500)
			hs[0].RecordMicros(svc + lag)
			hs[1].RecordMicros(svc)
			hs[2].RecordMicros(lag)
		}
		m, err := encode(hs)
		if err != nil {
			return nil, err
		}
		p.intervals = append(p.intervals, m)
		for i := range all {
			if err := all[i].Merge(hs[i]); err != nil {
				return nil, err
			}
		}
	}
	var err error
	p.final, err = encode(all)
	return p, err
}

// encode encodes response, service and lag histograms.
func encode(hs [3]*hist.Histogram) (measurement, error) {
	var out [3][]byte
	for i, h := range hs {
		b, err := h.Encode()
		if err != nil {
			return measurement{}, fmt.Errorf("encode histogram: %w", err)
		}
		out[i] = b
	}
	return measurement{resp: out[0], svc: out[1], lag: out[2]}, nil
}

// fleet is N simulated agents: their heartbeats in the agents bucket.
type fleet struct {
	ids  []uuid.UUID
	tag  string
	kv   jetstream.KeyValue
	stop func()
}

// startFleet puts n heartbeats labelled bench-phase=tag, capacity 1, and
// renews them every wire.HeartbeatEvery until stop.
func startFleet(ctx context.Context, js jetstream.JetStream, n int, tag string) (*fleet, error) {
	kv, err := js.KeyValue(ctx, wire.AgentsBucket)
	if err != nil {
		return nil, fmt.Errorf("agents bucket: %w", err)
	}
	f := &fleet{tag: tag, kv: kv}
	for range n {
		f.ids = append(f.ids, uuid.New())
	}
	if err := f.beat(ctx); err != nil {
		return nil, err
	}
	bctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(wire.HeartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-bctx.Done():
				return
			case <-t.C:
				_ = f.beat(bctx) // a missed beat is retried within wire.AgentTTL
			}
		}
	})
	f.stop = func() {
		cancel()
		wg.Wait()
		for _, id := range f.ids {
			_ = kv.Delete(context.WithoutCancel(ctx), id.String())
		}
	}
	return f, nil
}

// beat puts every agent's heartbeat once.
func (f *fleet) beat(ctx context.Context) error {
	for i, id := range f.ids {
		b, err := proto.Marshal(&barragev1.Heartbeat{
			AgentId: id.String(), Name: "sim-" + f.tag + "-" + strconv.Itoa(i), Version: "ingestbench",
			Capacity: 1, Labels: map[string]string{"bench-phase": f.tag},
		})
		if err != nil {
			return err
		}
		if _, err := f.kv.Put(ctx, id.String(), b); err != nil {
			return fmt.Errorf("heartbeat: %w", err)
		}
	}
	return nil
}

// takeAssignments acks the dispatcher's n assignments of run id, as the
// agents would, and returns the run's start time and each shard's agent
// (the last token of its assignment's subject).
func takeAssignments(ctx context.Context, js jetstream.JetStream, id string, n int) (time.Time, map[uint32]string, error) {
	tk, err := startTaker(ctx, js)
	if err != nil {
		return time.Time{}, nil, err
	}
	defer tk.stop()
	return tk.wait(ctx, id, n)
}

// taker acks every assignment the dispatcher publishes, as the simulated
// agents would, and keeps each run's start time and shard agents until a
// caller waits for them: one taker serves runs planned at once.
type taker struct {
	mu     sync.Mutex
	plans  map[string]*plan
	err    error
	cancel context.CancelFunc
	done   chan struct{}
}

// plan is what a run's assignments said.
type plan struct {
	startAt time.Time
	agents  map[uint32]string // shard -> agent id
}

// startTaker starts taking assignments on the bench's durable consumer.
func startTaker(ctx context.Context, js jetstream.JetStream) (*taker, error) {
	cons, err := js.CreateOrUpdateConsumer(ctx, wire.AssignStream, jetstream.ConsumerConfig{
		Durable: "ingestbench", FilterSubject: wire.AssignSubjects, AckPolicy: jetstream.AckExplicitPolicy,
	})
	if err != nil {
		return nil, fmt.Errorf("assignment consumer: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	tk := &taker{plans: map[string]*plan{}, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(tk.done)
		for ctx.Err() == nil {
			batch, err := cons.Fetch(1000, jetstream.FetchMaxWait(time.Second))
			if err == nil {
				err = tk.take(batch)
			}
			if err != nil && ctx.Err() == nil {
				tk.mu.Lock()
				tk.err = err
				tk.mu.Unlock()
				return
			}
		}
	}()
	return tk, nil
}

// take acks one batch of assignments and records them.
func (tk *taker) take(batch jetstream.MessageBatch) error {
	for m := range batch.Messages() {
		var a barragev1.Assignment
		if err := proto.Unmarshal(m.Data(), &a); err != nil {
			return fmt.Errorf("assignment: %w", err)
		}
		if err := m.Ack(); err != nil {
			return fmt.Errorf("ack assignment: %w", err)
		}
		tk.mu.Lock()
		p := tk.plans[a.GetRunId()]
		if p == nil {
			p = &plan{agents: map[uint32]string{}}
			tk.plans[a.GetRunId()] = p
		}
		p.startAt = a.GetStartAt().AsTime()
		p.agents[a.GetShard()] = m.Subject()[strings.LastIndexByte(m.Subject(), '.')+1:]
		tk.mu.Unlock()
	}
	if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
		return fmt.Errorf("fetch assignments: %w", err)
	}
	return nil
}

// wait waits up to a minute for the n assignments of run id.
func (tk *taker) wait(ctx context.Context, id string, n int) (time.Time, map[uint32]string, error) {
	end := time.Now().Add(time.Minute)
	for {
		tk.mu.Lock()
		p, err := tk.plans[id], tk.err
		got := 0
		if p != nil {
			got = len(p.agents)
		}
		tk.mu.Unlock()
		switch {
		case err != nil:
			return time.Time{}, nil, err
		case got >= n && p.startAt.IsZero():
			return time.Time{}, nil, errors.New("assignments without start_at")
		case got >= n:
			return p.startAt, p.agents, nil
		case time.Now().After(end) || ctx.Err() != nil:
			return time.Time{}, nil, fmt.Errorf("%d of %d assignments of run %s within a minute", got, n, id)
		}
		if err := sleepUntil(ctx, time.Now().Add(50*time.Millisecond)); err != nil {
			return time.Time{}, nil, err
		}
	}
}

// stop stops taking.
func (tk *taker) stop() {
	tk.cancel()
	<-tk.done
}

// publisher sends the simulated agents' snapshots of one run.
type publisher struct {
	js      jetstream.JetStream
	runID   string
	agents  map[uint32]string // shard -> agent id
	shards  int
	values  int
	seconds int
	startAt time.Time
	pool    *pool
	// sent[k] holds the publish times of the interval snapshots of second k.
	sent   [][]time.Time
	failed int
}

// publishWorkers is how many goroutines publish one second's snapshots.
const publishWorkers = 4

// second publishes every shard's interval snapshot k (1-based seq; it
// covers second k-1 of the run) at once, as agents whose intervals are
// aligned on start_at do, and waits for the acks.
func (p *publisher) second(ctx context.Context, k int) {
	times := make([]time.Time, p.shards)
	var failed sync.Mutex
	var wg sync.WaitGroup
	for w := range publishWorkers {
		wg.Go(func() {
			for s := w; s < p.shards; s += publishWorkers {
				times[s] = time.Now()
				if err := p.publish(ctx, s, k, false); err != nil {
					failed.Lock()
					p.failed++
					failed.Unlock()
				}
			}
		})
	}
	wg.Wait()
	p.sent = append(p.sent, times)
}

// publish sends one snapshot of shard s and waits for its ack.
func (p *publisher) publish(ctx context.Context, s, seq int, final bool) error {
	m := p.pool.intervals[(s+seq)%len(p.pool.intervals)]
	start := p.startAt.Add(time.Duration(seq-1) * time.Second)
	end := start.Add(time.Second)
	count := uint64(p.values)
	if final {
		m, start, end = p.pool.final, p.startAt, p.startAt.Add(time.Duration(p.seconds)*time.Second)
		count *= uint64(p.seconds)
	}
	b, err := proto.Marshal(&barragev1.Snapshot{
		RunId: p.runID, Shard: uint32(s), AgentId: p.agents[uint32(s)], Seq: uint64(seq), Final: final,
		IntervalStart: timestamppb.New(start), IntervalEnd: timestamppb.New(end),
		Count: count, RetCodes: map[string]uint64{"200": count},
		BytesSent: count * 120, BytesReceived: count * 300,
		ResponseHdr: m.resp, ServiceHdr: m.svc, LagHdr: m.lag,
	})
	if err != nil {
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = p.js.Publish(pctx, wire.SnapSubject(p.agents[uint32(s)], p.runID, uint32(s)), b,
		jetstream.WithMsgID(wire.SnapMsgID(p.runID, uint32(s), uint64(seq))))
	return err
}

// finals publishes every shard's final snapshot (seq seconds+1).
func (p *publisher) finals(ctx context.Context) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := range publishWorkers {
		wg.Go(func() {
			for s := w; s < p.shards; s += publishWorkers {
				if err := p.publish(ctx, s, p.seconds+1, true); err != nil {
					mu.Lock()
					p.failed++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
}
