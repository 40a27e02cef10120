package live

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// Settings of a live stream.
const (
	// heartbeatEvery is the period of the heartbeat comment, which keeps
	// proxies from closing an idle stream.
	heartbeatEvery = 15 * time.Second
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

// Source is what a stream reads of its run; runs.Watch implements it.
// A stream reads the run itself only when told a shard or the run ended:
// status changes come with their events.
type Source interface {
	// Run returns the run as it is now.
	Run(ctx context.Context) (runs.Run, error)
	// Result returns the merged result of r, which ended; a Conflict
	// error when it has none.
	Result(ctx context.Context, r runs.Run) (runs.Result, error)
	// Marks returns up to limit seconds' marks from second from on.
	Marks(ctx context.Context, from, limit int) ([]runs.IntervalMark, error)
	// Intervals returns up to limit seconds from second from on.
	Intervals(ctx context.Context, from, limit int) ([]runs.Interval, error)
}

// Encoder renders a second and a result as the JSON data of their events;
// the wire types are the API's (package httpapi implements it).
type Encoder interface {
	// Interval encodes one second of the run.
	Interval(iv *runs.Interval) ([]byte, error)
	// Result encodes the result of r, which ended.
	Result(r runs.Run, res runs.Result) ([]byte, error)
}

// StreamOptions configure one client's Stream.
type StreamOptions struct {
	// Source reads the run.
	Source Source
	// Run is the run as read after Sub was made, so that no change falls
	// between the two.
	Run runs.Run
	// Sub delivers the run's events; the stream closes it.
	Sub *Subscription
	// Resume is the client's Last-Event-ID; the zero Cursor for none.
	Resume Cursor
	// Renders shares rendered seconds with the run's other streams; nil
	// renders every second for this stream alone.
	Renders *Renders
	// Encoder renders the seconds and the result.
	Encoder Encoder
	// Log gets the errors that end a stream; nil discards.
	Log *slog.Logger
	// WriteTimeout bounds each write of the stream: a client that does not
	// read for this long is cut off. It replaces the server's
	// WriteTimeout, which would end every stream; zero means no deadline.
	WriteTimeout time.Duration
}

// Cursor is an event id: the highest second a stream has sent and how
// many shard snapshots it held.
type Cursor struct {
	second, snapshots int
	set               bool
}

// String renders c as an event id, "<second>.<n>".
func (c Cursor) String() string {
	return strconv.Itoa(c.second) + "." + strconv.Itoa(c.snapshots)
}

// ParseCursor reads an event id.
func ParseCursor(s string) (Cursor, bool) {
	a, b, ok := strings.Cut(s, ".")
	sec, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || sec < 0 || n < 0 {
		return Cursor{}, false
	}
	return Cursor{second: sec, snapshots: n, set: true}, true
}

// statusData is the data of a status event.
type statusData struct {
	RunID  uuid.UUID   `json:"run_id"`
	Status runs.Status `json:"status"`
}

// Stream is one client's live stream of a run, as server-sent events: the
// run's status, the seconds the client missed, then every second as it is
// stored and every status change as it is published, and at the end the
// run's result.
type Stream struct {
	opts StreamOptions
	run  runs.Run

	ctx    context.Context // Serve's, read by its helpers
	w      http.ResponseWriter
	rc     *http.ResponseController
	flush  func()
	cur    Cursor
	status runs.Status
	// from is the first second this stream replayed; sent remembers
	// what it sent of each second.
	from int
	sent sentLog
}

// NewStream returns a stream that Serve runs.
func NewStream(o StreamOptions) *Stream {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Stream{opts: o, run: o.Run}
}

// sentWith reports whether second was sent with snapshots.
func (es *Stream) sentWith(second, snapshots int) bool {
	return es.sent.sentWith(second, snapshots)
}

// markSent records that second was sent with snapshots.
func (es *Stream) markSent(second, snapshots int) {
	es.sent.mark(second, snapshots)
}

// errEnded tells the stream loop that the run's end was sent.
var errEnded = errors.New("run ended")

// Serve writes the stream to w until the run ends, ctx ends (the client
// left), the subscriber falls behind or the hub closes. Once the response
// has started an error can only be logged.
func (es *Stream) Serve(ctx context.Context, w http.ResponseWriter) {
	defer es.opts.Sub.Close()
	es.ctx, es.w, es.cur = ctx, w, es.opts.Resume
	es.flush = func() {}
	if f, ok := w.(http.Flusher); ok {
		es.flush = f.Flush
	}
	// The server's read deadline would end the stream (its background
	// read cancels the request); writes get deadlines of their own.
	es.rc = http.NewResponseController(w)
	_ = es.rc.SetReadDeadline(time.Time{}) // a recorder cannot: nothing to clear
	es.deadline()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	err := es.serve()
	if err == nil || errors.Is(err, errEnded) || ctx.Err() != nil {
		return
	}
	es.opts.Log.WarnContext(ctx, "live stream ended on an error", slog.String("run", es.run.ID.String()), slog.Any("err", err))
}

// serve sends the status, replays what the client missed and streams.
func (es *Stream) serve() error {
	// A client that loses the stream reconnects after 1 s (browsers
	// default to a few seconds).
	if err := es.write("retry: 1000\n\n"); err != nil {
		return err
	}
	if err := es.sendStatus(es.run.Status); err != nil {
		return err
	}
	es.sent.setComplete(es.run.ShardCount)
	if resume := es.opts.Resume; resume.set {
		es.from = max(0, resume.second-resumeOverlap)
		es.sent.skipTo(es.from)
		es.markSent(resume.second, resume.snapshots)
	}
	if _, err := es.catchUp(es.from); err != nil {
		return err
	}
	if es.run.Status.Terminal() {
		return es.end(es.run)
	}
	heartbeat := time.NewTicker(heartbeatEvery)
	defer heartbeat.Stop()
	sub := es.opts.Sub
	for {
		var err error
		select {
		case <-es.ctx.Done():
			return nil
		case <-sub.Done(): // fell behind, or the server is shutting down
			return nil
		case e := <-sub.C():
			err = es.burst(e)
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
// each second sent once with its latest figures, the latest status sent
// once and the run read once when a shard or the run ended.
func (es *Stream) burst(e Event) error {
	seconds := map[int]struct{}{}
	final, status := false, es.status
	for more := true; more; {
		switch {
		case e.Final:
			final = true
		case e.moved():
			es.sent.setComplete(e.Shards)
			if later(e.Status, status) {
				status = e.Status
			}
		default:
			seconds[e.Second] = struct{}{}
		}
		select {
		case e = <-es.opts.Sub.C():
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
		return es.readStatus()
	}
	if status != es.status {
		return es.sendStatus(status)
	}
	return nil
}

// readStatus reads the run, told that a shard or the run ended, and sends
// its status when it changed; when the run ended it sends the end.
func (es *Stream) readStatus() error {
	r, err := es.opts.Source.Run(es.ctx)
	if err != nil {
		return err
	}
	es.sent.setComplete(r.ShardCount)
	if r.Status.Terminal() {
		return es.end(r)
	}
	if later(r.Status, es.status) {
		return es.sendStatus(r.Status)
	}
	return nil
}

// end sends what the run stored after it ended, its terminal status and
// its result, and returns errEnded. It waits up to endGrace for intervals
// stored after the end, until the seconds add up to the result.
func (es *Stream) end(r runs.Run) error {
	res, err := es.opts.Source.Result(es.ctx, r)
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
		case <-es.opts.Sub.C():
		}
	}
	if err := es.sendStatus(r.Status); err != nil {
		return err
	}
	if hasResult {
		out, err := es.opts.Encoder.Result(r, res)
		if err != nil {
			return err
		}
		if err := es.sendData("result", out); err != nil {
			return err
		}
	}
	return errEnded
}
