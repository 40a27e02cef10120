package live

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// catchUp sends every stored second from second from on that changed
// since this stream sent it, and returns the count of all stored seconds.
// It reads the seconds' marks, and a second's figures only when this
// stream has not sent them and no other stream of the run rendered them.
func (es *Stream) catchUp(from int) (int64, error) {
	var total int64
	next := 0
	for range maxReplayPages {
		marks, err := es.opts.Source.Marks(es.ctx, next, replayPage)
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
func (es *Stream) sendSecond(second int) error {
	marks, err := es.opts.Source.Marks(es.ctx, second, 1)
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
func (es *Stream) sendMark(m runs.IntervalMark) error {
	if es.sentWith(m.Second, m.Snapshots) {
		return nil
	}
	if data, ok := es.opts.Renders.cached(es.run.ID, m.Second, m.Snapshots); ok {
		es.advance(m.Second, m.Snapshots)
		if err := es.sendData("interval", data); err != nil {
			return err
		}
		return es.sendShards(m.Second, m.Snapshots)
	}
	ivs, err := es.opts.Source.Intervals(es.ctx, m.Second, 1)
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
func (es *Stream) sendInterval(iv *runs.Interval) error {
	if es.sentWith(iv.Second, iv.Snapshots) {
		return nil
	}
	es.advance(iv.Second, iv.Snapshots)
	data, err := es.opts.Renders.interval(es.run.ID, iv, es.opts.Encoder.Interval)
	if err != nil {
		return err
	}
	if err := es.sendData("interval", data); err != nil {
		return err
	}
	return es.sendShards(iv.Second, iv.Snapshots)
}

// advance records that second is being sent with snapshots and moves the
// cursor to it when it is the latest.
func (es *Stream) advance(second, snapshots int) {
	es.markSent(second, snapshots)
	if !es.cur.set || second >= es.cur.second {
		es.cur = Cursor{second: second, snapshots: snapshots, set: true}
	}
}

// sendStatus sends a status event.
func (es *Stream) sendStatus(st runs.Status) error {
	es.status = st
	b, err := json.Marshal(statusData{RunID: es.run.ID, Status: st})
	if err != nil {
		return fmt.Errorf("encode status event: %w", err)
	}
	return es.sendData("status", b)
}

// sendData writes one event of JSON data with the stream's cursor as its
// id. data may be shared with other streams: it is only read.
func (es *Stream) sendData(event string, data []byte) error {
	es.deadline()
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
func (es *Stream) write(s string) error {
	es.deadline()
	if _, err := io.WriteString(es.w, s); err != nil {
		return fmt.Errorf("write event: %w", err)
	}
	es.flush()
	return nil
}

// deadline gives the next write WriteTimeout, or none when it is zero.
// Writers that cannot take deadlines (tests' recorders) are left as they
// are.
func (es *Stream) deadline() {
	var at time.Time
	if d := es.opts.WriteTimeout; d > 0 {
		at = time.Now().Add(d)
	}
	_ = es.rc.SetWriteDeadline(at)
}
