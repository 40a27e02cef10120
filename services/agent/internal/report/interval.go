package report

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/engine"
)

// Interval is the summary of one snapshot interval; latencies are of the
// primary histogram, in seconds.
type Interval struct {
	// Offset is the interval's end, in seconds since the start of the load.
	Offset float64 `json:"offset"`
	Count  int64   `json:"count"`
	Errors int64   `json:"errors"`
	QPS    float64 `json:"qps"`
	P50    float64 `json:"p50"`
	P90    float64 `json:"p90"`
	P99    float64 `json:"p99"`
	Max    float64 `json:"max"`
}

// Progress is a Sink that keeps every interval's summary and, when Out is set,
// prints one progress line per interval.
type Progress struct {
	// Out receives the progress lines; nil prints nothing.
	Out io.Writer
	// Response selects the response-time histogram as primary (open loop).
	Response bool
	// InPlace rewrites one line (for a terminal) instead of printing a line per interval.
	InPlace bool

	mu        sync.Mutex
	start     time.Time
	intervals []Interval
}

var _ engine.Sink = (*Progress)(nil)

// Publish implements engine.Sink.
func (p *Progress) Publish(_ context.Context, s *engine.Snapshot) error {
	if s.Final {
		if p.InPlace && p.Out != nil && len(p.intervals) > 0 {
			_, err := io.WriteString(p.Out, "\n")
			return err
		}
		return nil
	}
	h := s.Service
	if p.Response {
		h = s.Response
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.start.IsZero() {
		p.start = s.Start
	}
	iv := Interval{
		Offset: s.End.Sub(p.start).Seconds(),
		Count:  s.Count,
		Errors: s.Errors,
		P50:    h.Percentile(50).Seconds(),
		P90:    h.Percentile(90).Seconds(),
		P99:    h.Percentile(99).Seconds(),
		Max:    h.Max().Seconds(),
	}
	if d := s.End.Sub(s.Start).Seconds(); d > 0 {
		iv.QPS = float64(s.Count) / d
	}
	p.intervals = append(p.intervals, iv)
	if p.Out == nil {
		return nil
	}
	prefix, suffix := "", "\n"
	if p.InPlace {
		prefix, suffix = "\r\x1b[K", "" // carriage return, erase line
	}
	_, err := fmt.Fprintf(p.Out, "%s%7.1fs %8d calls %10.1f qps  p50 %s  p90 %s  p99 %s  max %s  errors %d%s",
		prefix, iv.Offset, iv.Count, iv.QPS, FormatSeconds(iv.P50), FormatSeconds(iv.P90),
		FormatSeconds(iv.P99), FormatSeconds(iv.Max), iv.Errors, suffix)
	return err
}

// Intervals returns the summaries collected so far.
func (p *Progress) Intervals() []Interval {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Interval(nil), p.intervals...)
}

// FormatSeconds renders a latency in seconds with a unit that suits it.
func FormatSeconds(s float64) string {
	switch {
	case s == 0:
		return "0"
	case s < 1e-3:
		return fmt.Sprintf("%.0fµs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.3gms", s*1e3)
	default:
		return fmt.Sprintf("%.3gs", s)
	}
}
