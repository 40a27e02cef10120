package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/ingest"
	"github.com/barrage-dev/barrage/services/api/internal/live"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// Settings of the live stream (GET /runs/{run}/events).
const (
	// heartbeatEvery is the period of the heartbeat comment, which keeps
	// proxies from closing an idle stream.
	heartbeatEvery = 15 * time.Second
	// statusPollEvery is how often a stream reads its run's status: the
	// dispatcher moves runs between dispatching, running and stopping
	// without telling the hub. One primary-key read per stream.
	statusPollEvery = time.Second
	// resumeOverlap is how many seconds before a Last-Event-ID's second a
	// resumed stream replays: a late shard may still change them.
	resumeOverlap = 5
	// endGrace is how long a stream whose run ended waits for interval
	// snapshots stored after the end (ingest workers run in parallel)
	// before it sends the result.
	endGrace = 3 * time.Second
	// replayPage is the seconds read at once when replaying.
	replayPage = 300
	// maxReplayPages bounds one replay (a day of seconds).
	maxReplayPages = 24 * 3600 / replayPage
)

// StreamRunEvents implements GET /runs/{run}/events: it checks access and
// subscribes to the hub before the stream starts, so that errors are
// problem details and no event falls between the replay and the live part.
func (s *server) StreamRunEvents(ctx context.Context, req StreamRunEventsRequestObject) (StreamRunEventsResponseObject, error) {
	ctx = requestContext(ctx)
	resume := cursor{}
	if v := deref(req.Params.LastEventID); v != "" {
		c, ok := parseCursor(v)
		if !ok {
			return nil, apperr.Invalidf("Last-Event-ID", "must be an event id of this stream, <second>.<n>")
		}
		resume = c
	}
	w, run, err := s.svc.Measures.Watch(ctx, principal(ctx), req.Run)
	if err != nil {
		return nil, err
	}
	if s.svc.Live == nil {
		return nil, apperr.New(apperr.Unavailable, "live streams are not enabled on this server")
	}
	return &eventStream{
		ctx: ctx, log: s.log, watch: w, run: run, sub: s.svc.Live.Subscribe(req.Run), resume: resume,
	}, nil
}

// cursor is an event id: the highest second a stream has sent and how
// many shard snapshots it held.
type cursor struct {
	second, snapshots int
	set               bool
}

// String renders c as an event id, "<second>.<n>".
func (c cursor) String() string {
	return strconv.Itoa(c.second) + "." + strconv.Itoa(c.snapshots)
}

// parseCursor reads an event id.
func parseCursor(s string) (cursor, bool) {
	a, b, ok := strings.Cut(s, ".")
	sec, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || sec < 0 || n < 0 {
		return cursor{}, false
	}
	return cursor{second: sec, snapshots: n, set: true}, true
}

// statusEvent is the data of a status event.
type statusEvent struct {
	RunID  uuid.UUID `json:"run_id"`
	Status RunStatus `json:"status"`
}

// eventStream is one client's live stream; it writes the response itself.
type eventStream struct {
	ctx    context.Context
	log    *slog.Logger
	watch  *runs.Watch
	run    runs.Run
	sub    *live.Subscription
	resume cursor

	w      http.ResponseWriter
	flush  func()
	cur    cursor
	status runs.Status
	// from is the first second this stream replayed; sent holds, per
	// second sent, the snapshots it held.
	from int
	sent map[int]int
}

// errEnded tells the stream loop that the run's end was sent.
var errEnded = errors.New("run ended")

// VisitStreamRunEventsResponse implements StreamRunEventsResponseObject:
// it streams until the run ends, the client leaves, the subscriber falls
// behind or the server shuts down.
func (es *eventStream) VisitStreamRunEventsResponse(w http.ResponseWriter) error {
	defer es.sub.Close()
	es.w, es.sent, es.cur = w, map[int]int{}, es.resume
	es.flush = func() {}
	if f, ok := w.(http.Flusher); ok {
		es.flush = f.Flush
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	err := es.serve()
	switch {
	case err == nil, errors.Is(err, errEnded), es.ctx.Err() != nil:
		return nil
	default: // the response has started: log, do not answer again
		es.log.WarnContext(es.ctx, "live stream ended on an error", slog.String("run", es.run.ID.String()), slog.Any("err", err))
		return nil
	}
}

// serve sends the status, replays what the client missed and streams.
func (es *eventStream) serve() error {
	// A client that loses the stream reconnects after 1 s (browsers
	// default to a few seconds).
	if err := es.write("retry: 1000\n\n"); err != nil {
		return err
	}
	if err := es.sendStatus(es.run.Status); err != nil {
		return err
	}
	if es.resume.set {
		es.from = max(0, es.resume.second-resumeOverlap)
		es.sent[es.resume.second] = es.resume.snapshots
	}
	if _, err := es.catchUp(es.from); err != nil {
		return err
	}
	if es.run.Status.Terminal() {
		return es.end(es.run)
	}
	heartbeat := time.NewTicker(heartbeatEvery)
	defer heartbeat.Stop()
	poll := time.NewTicker(statusPollEvery)
	defer poll.Stop()
	for {
		var err error
		select {
		case <-es.ctx.Done():
			return nil
		case <-es.sub.Done(): // fell behind, or the server is shutting down
			return nil
		case e := <-es.sub.C():
			err = es.burst(e)
		case <-poll.C:
			err = es.pollStatus()
		case <-heartbeat.C:
			err = es.write(": heartbeat\n\n")
		}
		if err != nil {
			return err
		}
	}
}

// burst handles e and every event already waiting behind it: at a second
// boundary each shard's snapshot is one event, so a burst is read as one,
// each second sent once with its latest figures and the status read once.
func (es *eventStream) burst(e ingest.Event) error {
	seconds := map[int]struct{}{}
	final := false
	for more := true; more; {
		if e.Final {
			final = true
		} else {
			seconds[e.Second] = struct{}{}
		}
		select {
		case e = <-es.sub.C():
		default:
			more = false
		}
	}
	for _, sec := range slices.Sorted(maps.Keys(seconds)) {
		if err := es.sendSecond(sec); err != nil {
			return err
		}
	}
	if final {
		return es.pollStatus()
	}
	return nil
}

// pollStatus reads the run and sends its status when it changed; when
// the run ended it sends the end.
func (es *eventStream) pollStatus() error {
	r, err := es.watch.Run(es.ctx)
	if err != nil {
		return err
	}
	if r.Status.Terminal() {
		return es.end(r)
	}
	if r.Status != es.status {
		return es.sendStatus(r.Status)
	}
	return nil
}

// end sends what the run stored after it ended, its terminal status and
// its result, and returns errEnded. It waits up to endGrace for intervals
// stored after the end, until the seconds add up to the result.
func (es *eventStream) end(r runs.Run) error {
	res, err := es.watch.Result(es.ctx, r)
	hasResult := err == nil
	if err != nil && !apperr.Is(err, apperr.Conflict) {
		return err
	}
	deadline := time.NewTimer(endGrace)
	defer deadline.Stop()
	recheck := time.NewTicker(100 * time.Millisecond)
	defer recheck.Stop()
	for waiting := true; waiting; {
		total, err := es.catchUp(es.from)
		if err != nil {
			return err
		}
		if !hasResult || total >= res.Count {
			break
		}
		select {
		case <-es.ctx.Done():
			return es.ctx.Err()
		case <-deadline.C:
			waiting = false
		case <-recheck.C:
		case <-es.sub.C():
		}
	}
	if err := es.sendStatus(r.Status); err != nil {
		return err
	}
	if hasResult {
		out, err := resultOut(r, res)
		if err != nil {
			return err
		}
		if err := es.send("result", out); err != nil {
			return err
		}
	}
	return errEnded
}

// catchUp sends every stored second from second from on that changed
// since this stream sent it, and returns the count of all stored seconds.
func (es *eventStream) catchUp(from int) (int64, error) {
	var total int64
	if from > 0 { // seconds before the replay are the client's already; count them
		before, err := es.sum(0, from)
		if err != nil {
			return 0, err
		}
		total += before
	}
	next := from
	for range maxReplayPages {
		ivs, err := es.watch.Intervals(es.ctx, next, replayPage)
		if err != nil {
			return 0, err
		}
		for i := range ivs {
			total += ivs[i].Count
			if err := es.sendInterval(&ivs[i]); err != nil {
				return 0, err
			}
		}
		if len(ivs) < replayPage {
			break
		}
		next = ivs[len(ivs)-1].Second + 1
	}
	return total, nil
}

// sum returns the count of the stored seconds in [from, to).
func (es *eventStream) sum(from, to int) (int64, error) {
	var total int64
	for next := from; next < to; {
		ivs, err := es.watch.Intervals(es.ctx, next, min(replayPage, to-next))
		if err != nil {
			return 0, err
		}
		for i := range ivs {
			if ivs[i].Second < to {
				total += ivs[i].Count
			}
		}
		if len(ivs) == 0 {
			break
		}
		next = ivs[len(ivs)-1].Second + 1
	}
	return total, nil
}

// sendSecond reads one second and sends it when it changed.
func (es *eventStream) sendSecond(second int) error {
	ivs, err := es.watch.Intervals(es.ctx, second, 1)
	if err != nil {
		return err
	}
	if len(ivs) == 0 || ivs[0].Second != second {
		return nil
	}
	return es.sendInterval(&ivs[0])
}

// sendInterval sends one second unless the stream sent it with the same
// snapshots, and moves the cursor.
func (es *eventStream) sendInterval(iv *runs.Interval) error {
	if n, ok := es.sent[iv.Second]; ok && n == iv.Snapshots {
		return nil
	}
	es.sent[iv.Second] = iv.Snapshots
	if !es.cur.set || iv.Second >= es.cur.second {
		es.cur = cursor{second: iv.Second, snapshots: iv.Snapshots, set: true}
	}
	out, err := intervalOut(iv)
	if err != nil {
		return err
	}
	return es.send("interval", out)
}

// sendStatus sends a status event.
func (es *eventStream) sendStatus(st runs.Status) error {
	es.status = st
	return es.send("status", statusEvent{RunID: es.run.ID, Status: RunStatus(st)})
}

// send writes one event with the stream's cursor as its id.
func (es *eventStream) send(event string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", event, err)
	}
	return es.write("event: " + event + "\nid: " + es.cur.String() + "\ndata: " + string(b) + "\n\n")
}

// write writes and flushes.
func (es *eventStream) write(s string) error {
	if _, err := es.w.Write([]byte(s)); err != nil {
		return fmt.Errorf("write event: %w", err)
	}
	es.flush()
	return nil
}
