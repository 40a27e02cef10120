package httpapi

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"strconv"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// timelineHeader is the header row of GET /runs/{run}/timeline?format=csv.
var timelineHeader = []string{"intended_us", "sent_us", "latency_us", "code", "ok", "entry"} //nolint:gochecknoglobals // a constant row

// GetRunTimeline implements GET /runs/{run}/timeline.
func (s *server) GetRunTimeline(ctx context.Context, req GetRunTimelineRequestObject) (GetRunTimelineResponseObject, error) {
	ctx = requestContext(ctx)
	run, tl, err := s.svc.Measures.Timeline(ctx, principal(ctx), req.Run)
	if err != nil {
		return nil, err
	}
	if deref(req.Params.Format) == TimelineCSV {
		body, err := timelineCSV(tl.Samples)
		if err != nil {
			return nil, err
		}
		return GetRunTimeline200TextcsvResponse{Body: bytes.NewReader(body), ContentLength: int64(len(body))}, nil
	}
	out := RunTimeline{RunId: run.ID, Seen: tl.Seen, Samples: make([]TimelineSample, len(tl.Samples))}
	for i, t := range tl.Samples {
		out.Samples[i] = TimelineSample{IntendedUs: t.IntendedUS, SentUs: t.SentUS, LatencyUs: t.LatencyUS, Code: t.Code, Ok: t.OK}
		if t.Entry >= 0 {
			out.Samples[i].Entry = &t.Entry
		}
	}
	return GetRunTimeline200JSONResponse(out), nil
}

// timelineCSV writes samples as CSV with timelineHeader.
func timelineCSV(samples []runs.TimelineSample) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(timelineHeader); err != nil {
		return nil, fmt.Errorf("timeline csv: %w", err)
	}
	for _, t := range samples {
		entry := ""
		if t.Entry >= 0 {
			entry = strconv.Itoa(t.Entry)
		}
		row := []string{
			strconv.FormatInt(t.IntendedUS, 10), strconv.FormatInt(t.SentUS, 10), strconv.FormatInt(t.LatencyUS, 10),
			t.Code, strconv.FormatBool(t.OK), entry,
		}
		if err := w.Write(row); err != nil {
			return nil, fmt.Errorf("timeline csv: %w", err)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("timeline csv: %w", err)
	}
	return buf.Bytes(), nil
}
