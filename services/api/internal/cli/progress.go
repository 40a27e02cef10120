package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/client"
)

// plainEvery is the period of progress lines when stdout is not a terminal.
const plainEvery = 5 * time.Second

// progress follows a run's live stream (GET /runs/{id}/events) and prints
// where it is: one line rewritten in place on a terminal, a line every 5 s
// otherwise. It is best effort: a stream that breaks is reopened from its
// last event id, and the run's end is learnt elsewhere.
type progress struct {
	e   *env
	run client.Run
	// seconds holds the latest figures of each second.
	seconds map[int]client.Interval
	status  client.RunStatus
	last    time.Time // when a plain line was last printed
	drawn   bool      // a terminal line is on screen
}

// newProgress returns the progress of run.
func newProgress(e *env, run client.Run) *progress {
	return &progress{e: e, run: run, seconds: map[int]client.Interval{}, status: run.Status}
}

// follow streams until ctx ends or the run's result arrives, then ends
// the terminal line.
func (p *progress) follow(ctx context.Context) {
	defer func() {
		if p.drawn {
			p.e.out.printf("\n")
		}
	}()
	lastID := ""
	for attempt := 0; attempt < 30 && ctx.Err() == nil; attempt++ {
		done, id := p.stream(ctx, lastID)
		if done {
			return
		}
		if id != "" {
			lastID = id
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// stream reads one connection of the event stream and returns whether the
// run ended and the last event id seen.
func (p *progress) stream(ctx context.Context, lastID string) (bool, string) {
	params := &client.StreamRunEventsParams{}
	if lastID != "" {
		params.LastEventID = &lastID
	}
	resp, err := p.e.api.StreamRunEvents(ctx, p.run.Id, params, header("Accept", "text/event-stream"))
	if err != nil {
		return false, lastID
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, lastID
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var event, data string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if p.handle(event, data) {
				return true, lastID
			}
			event, data = "", ""
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data += strings.TrimPrefix(line, "data: ")
		case strings.HasPrefix(line, "id: "):
			lastID = strings.TrimPrefix(line, "id: ")
		}
	}
	return false, lastID
}

// handle takes one event and reports whether it was the last.
func (p *progress) handle(event, data string) bool {
	switch event {
	case "interval":
		var iv client.Interval
		if json.Unmarshal([]byte(data), &iv) == nil {
			p.seconds[iv.Second] = iv
			p.show()
		}
	case "status":
		var st struct {
			Status client.RunStatus `json:"status"`
		}
		if json.Unmarshal([]byte(data), &st) == nil {
			p.status = st.Status
			p.show()
		}
	case "result":
		return true
	}
	return false
}

// show prints the progress line: in place on a terminal, every plainEvery
// otherwise.
func (p *progress) show() {
	line := formatProgress(p.snapshot())
	if p.e.isTTY {
		p.e.out.printf("\r\033[K%s", line)
		p.drawn = true
		return
	}
	if now := p.e.now(); now.Sub(p.last) >= plainEvery {
		p.last = now
		p.e.out.printf("%s\n", line)
	}
}

// progressState is what a progress line shows.
type progressState struct {
	// Status is the run's status.
	Status client.RunStatus
	// Elapsed is the seconds of the run measured so far.
	Elapsed int
	// Total is the run's planned duration; 0 when it is bounded by a count
	// or runs until stopped.
	Total time.Duration
	// Count and Errors are the requests so far and the failed ones.
	Count, Errors int64
	// QPS and P99 are of the latest second (P99 in microseconds).
	QPS, P99 float64
}

// snapshot sums the seconds received so far.
func (p *progress) snapshot() progressState {
	st := progressState{Status: p.status, Elapsed: -1}
	if p.run.Spec.Count == 0 && !p.run.Spec.UntilStopped {
		st.Total = p.run.Spec.Duration.Std()
	}
	for sec := range p.seconds {
		iv := p.seconds[sec]
		st.Count += iv.Count
		st.Errors += iv.Errors
		if sec > st.Elapsed {
			st.Elapsed = sec
			st.QPS, st.P99 = iv.Qps, iv.Response.P99Us
			if p.run.Spec.QPS == 0 {
				st.P99 = iv.Service.P99Us
			}
		}
	}
	st.Elapsed++
	return st
}

// formatProgress renders one progress line, e.g.
// "running 3s/10s  qps 99.8  p99 1.2ms  errors 0 (0.00%)  7s left".
func formatProgress(st progressState) string {
	var b strings.Builder
	b.WriteString(string(st.Status))
	elapsed := time.Duration(st.Elapsed) * time.Second
	if st.Total > 0 {
		fmt.Fprintf(&b, " %s/%s", elapsed, st.Total)
	} else {
		fmt.Fprintf(&b, " %s", elapsed)
	}
	fmt.Fprintf(&b, "  qps %.1f  p99 %s  errors %d (%s)", st.QPS, formatMicros(st.P99), st.Errors, formatRate(st.Errors, st.Count))
	if st.Total > 0 {
		fmt.Fprintf(&b, "  %s left", max(st.Total-elapsed, 0))
	}
	return b.String()
}

// formatMicros renders a latency in microseconds the way threshold
// outcomes are written: 850us, 1.25ms, 2.5s.
func formatMicros(us float64) string {
	return threshold.FormatValue(us, threshold.Micros)
}

// trimZeros drops trailing fractional zeros: 1.50 → 1.5, 2.00 → 2.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// formatRate renders errors/count as a percentage.
func formatRate(failed, count int64) string {
	if count == 0 {
		return "0%"
	}
	return trimZeros(fmt.Sprintf("%.2f", 100*float64(failed)/float64(count))) + "%"
}
