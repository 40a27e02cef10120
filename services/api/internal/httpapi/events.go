package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/live"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// StreamRunEvents implements GET /runs/{run}/events: it subscribes to the
// hub, checks access and reads the run before the stream starts, so that
// errors are problem details and no event falls between the read and the
// live part. The stream itself is package live's.
//
// Each caller (a user, or an anonymous caller's client address) and each
// run may hold a bounded number of streams at once (Options.Streams):
// beyond that the answer is 429 with Retry-After.
func (s *server) StreamRunEvents(ctx context.Context, req StreamRunEventsRequestObject) (StreamRunEventsResponseObject, error) {
	c := ginContext(ctx)
	ctx = requestContext(ctx)
	resume, err := resumeCursor(req.Params)
	if err != nil {
		return nil, err
	}
	var sub *live.Subscription
	if s.svc.Live != nil {
		sub = s.svc.Live.Subscribe(req.Run)
	}
	w, run, err := s.svc.Measures.Watch(ctx, principal(ctx), req.Run)
	if err != nil {
		if sub != nil {
			sub.Close()
		}
		return nil, err
	}
	if sub == nil {
		return nil, apperr.New(apperr.Unavailable, "live streams are not enabled on this server")
	}
	release, ok := s.streams.Take(streamCaller(c, principal(ctx)), run.ID)
	if !ok {
		sub.Close()
		return nil, &apperr.Error{Code: apperr.RateLimited, RetryAfter: streamRetryAfter,
			Detail: "too many live streams open for this caller or this run; close one or try again later"}
	}
	return eventStream{ctx: ctx, release: release, stream: live.NewStream(live.StreamOptions{
		Source: w, Run: run, Sub: sub, Resume: resume, Renders: s.renders, Encoder: streamEncoder{}, Log: s.log,
		WriteTimeout: s.streamWriteTimeout,
	})}, nil
}

// resumeCursor is where a stream starts: a reconnect's Last-Event-ID, else
// the after parameter of a client that read the run's seconds before it
// connected (a browser's first EventSource cannot send the header), else the
// run's first second.
func resumeCursor(p StreamRunEventsParams) (live.Cursor, error) {
	field, v := "Last-Event-ID", deref(p.LastEventID)
	if v == "" {
		field, v = "after", deref(p.After)
	}
	if v == "" {
		return live.Cursor{}, nil
	}
	c, ok := live.ParseCursor(v)
	if !ok {
		return live.Cursor{}, apperr.Invalidf(field, "must be an event id of this stream, <second>.<n>")
	}
	return c, nil
}

// streamRetryAfter is the Retry-After of a stream refused for the caps.
const streamRetryAfter = 10 * time.Second

// streamCaller is whose streams a request's counts against: its user, or
// for an anonymous caller (a read-only server's) its client address.
func streamCaller(c *gin.Context, p *auth.Principal) string {
	if p.Anonymous() {
		if c == nil {
			return "ip:"
		}
		return "ip:" + c.ClientIP()
	}
	return "user:" + p.UserID.String()
}

// eventStream writes a live stream as the response of StreamRunEvents.
type eventStream struct {
	ctx     context.Context // the request's, for the response the strict server writes later
	stream  *live.Stream
	release func() // frees the stream's slot
}

// VisitStreamRunEventsResponse implements StreamRunEventsResponseObject:
// it streams until the run ends, the client leaves, the subscriber falls
// behind or the server shuts down.
func (es eventStream) VisitStreamRunEventsResponse(w http.ResponseWriter) error {
	defer es.release()
	es.stream.Serve(es.ctx, w)
	return nil
}

// streamEncoder renders a live stream's seconds and result as the API's
// Interval and RunResult.
type streamEncoder struct{}

// Interval implements live.Encoder.
func (streamEncoder) Interval(iv *runs.Interval) ([]byte, error) {
	out, err := intervalOut(iv)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encode interval event: %w", err)
	}
	return data, nil
}

// Result implements live.Encoder.
func (streamEncoder) Result(r runs.Run, res runs.Result) ([]byte, error) {
	out, err := resultOut(r, res)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encode result event: %w", err)
	}
	return data, nil
}

// shardsEvent is the data of a live stream's shards event.
type shardsEvent struct {
	Second int             `json:"second"`
	Items  []ShardInterval `json:"items"`
}

// Shards implements live.ShardEncoder.
func (streamEncoder) Shards(second int, rows []runs.ShardSecond) ([]byte, error) {
	data, err := json.Marshal(shardsEvent{Second: second, Items: mapSlice(rows, shardIntervalOut)})
	if err != nil {
		return nil, fmt.Errorf("encode shards event: %w", err)
	}
	return data, nil
}
