package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
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
	// replayPage is the seconds' marks read at once when replaying.
	replayPage = runs.MaxIntervals
	// maxReplayPages bounds one replay (a day of seconds).
	maxReplayPages = 24*3600/replayPage + 1
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
		ctx: ctx, log: s.log, watch: w, run: run, sub: s.svc.Live.Subscribe(req.Run), resume: resume, renders: s.renders,
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
	// renders shares rendered seconds with the run's other streams.
	renders *renders

	w      http.ResponseWriter
	flush  func()
	cur    cursor
	status runs.Status
	// from is the first second this stream replayed; sent remembers
	// what it sent of each second.
	from int
	sent sentLog
}

// sentWith reports whether second was sent with snapshots.
func (es *eventStream) sentWith(second, snapshots int) bool {
	return es.sent.sentWith(second, snapshots)
}

// markSent records that second was sent with snapshots.
func (es *eventStream) markSent(second, snapshots int) {
	es.sent.mark(second, snapshots)
}

// errEnded tells the stream loop that the run's end was sent.
var errEnded = errors.New("run ended")

// VisitStreamRunEventsResponse implements StreamRunEventsResponseObject:
// it streams until the run ends, the client leaves, the subscriber falls
// behind or the server shuts down.
func (es *eventStream) VisitStreamRunEventsResponse(w http.ResponseWriter) error {
	defer es.sub.Close()
	es.w, es.cur = w, es.resume
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
	es.sent.setComplete(es.run.ShardCount)
	if es.resume.set {
		es.from = max(0, es.resume.second-resumeOverlap)
		es.sent.skipTo(es.from)
		es.markSent(es.resume.second, es.resume.snapshots)
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
func (es *eventStream) burst(e live.Event) error {
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
	es.sent.setComplete(r.ShardCount)
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
// It reads the seconds' marks, and a second's figures only when this
// stream has not sent them and no other stream of the run rendered them.
func (es *eventStream) catchUp(from int) (int64, error) {
	var total int64
	next := 0
	for range maxReplayPages {
		marks, err := es.watch.Marks(es.ctx, next, replayPage)
		if err != nil {
			return 0, err
		}
		for _, m := range marks {
			total += m.Count
			if m.Second < from { // the client's already: counted only
				continue
			}
			if err := es.sendMark(m); err != nil {
				return 0, err
			}
		}
		if len(marks) < replayPage {
			break
		}
		next = marks[len(marks)-1].Second + 1
	}
	return total, nil
}

// sendSecond sends one second when it changed.
func (es *eventStream) sendSecond(second int) error {
	marks, err := es.watch.Marks(es.ctx, second, 1)
	if err != nil {
		return err
	}
	if len(marks) == 0 || marks[0].Second != second {
		return nil
	}
	return es.sendMark(marks[0])
}

// sendMark sends the second m names unless the stream sent it with the
// same snapshots: rendered by another stream when the cache holds it, else
// read whole.
func (es *eventStream) sendMark(m runs.IntervalMark) error {
	if es.sentWith(m.Second, m.Snapshots) {
		return nil
	}
	if data, ok := es.renders.cached(es.run.ID, m.Second, m.Snapshots); ok {
		es.advance(m.Second, m.Snapshots)
		return es.sendData("interval", data)
	}
	ivs, err := es.watch.Intervals(es.ctx, m.Second, 1)
	if err != nil {
		return err
	}
	if len(ivs) == 0 || ivs[0].Second != m.Second {
		return nil
	}
	return es.sendInterval(&ivs[0])
}

// sendInterval sends one second unless the stream sent it with the same
// snapshots, and moves the cursor.
func (es *eventStream) sendInterval(iv *runs.Interval) error {
	if es.sentWith(iv.Second, iv.Snapshots) {
		return nil
	}
	es.advance(iv.Second, iv.Snapshots)
	data, err := es.renders.interval(es.run.ID, iv)
	if err != nil {
		return err
	}
	return es.sendData("interval", data)
}

// advance records that second is being sent with snapshots and moves the
// cursor to it when it is the latest.
func (es *eventStream) advance(second, snapshots int) {
	es.markSent(second, snapshots)
	if !es.cur.set || second >= es.cur.second {
		es.cur = cursor{second: second, snapshots: snapshots, set: true}
	}
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
	return es.sendData(event, b)
}

// sendData writes one event of JSON data with the stream's cursor as its
// id. data may be shared with other streams: it is only read.
func (es *eventStream) sendData(event string, data []byte) error {
	head := "event: " + event + "\nid: " + es.cur.String() + "\ndata: "
	if _, err := io.WriteString(es.w, head); err != nil {
		return fmt.Errorf("write event: %w", err)
	}
	if _, err := es.w.Write(data); err != nil {
		return fmt.Errorf("write event: %w", err)
	}
	return es.write("\n\n")
}

// write writes and flushes.
func (es *eventStream) write(s string) error {
	if _, err := io.WriteString(es.w, s); err != nil {
		return fmt.Errorf("write event: %w", err)
	}
	es.flush()
	return nil
}
