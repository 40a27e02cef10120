package ingest

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

func TestTimelineFromProtoChecksTheSample(t *testing.T) {
	samples := []*barragev1.TimelineSample{
		{IntendedUs: 10, SentUs: 12, LatencyUs: 300, Code: "200", Ok: true, Entry: 2},
		{IntendedUs: 20, SentUs: 20, LatencyUs: 90, Code: "-1"},
	}
	got, seen, err := timelineFromProto(&barragev1.Snapshot{Final: true, Timeline: samples, TimelineSeen: 7})
	if err != nil || seen != 7 || len(got) != 2 {
		t.Fatalf("got %v of %d, %v", got, seen, err)
	}
	want := runs.TimelineSample{IntendedUS: 10, SentUS: 12, LatencyUS: 300, Code: "200", OK: true, Entry: 1}
	if got[0] != want || got[1].Entry != -1 || got[1].OK || got[1].Code != "-1" {
		t.Fatalf("samples %+v, want %+v then entry -1 code -1", got, want)
	}
	for name, m := range map[string]*barragev1.Snapshot{
		"interval":         {Seq: 3, Timeline: samples, TimelineSeen: 7},
		"more than seen":   {Final: true, Timeline: samples, TimelineSeen: 1},
		"entry past limit": {Final: true, Timeline: []*barragev1.TimelineSample{{Entry: 10_000}}, TimelineSeen: 1},
	} {
		if _, _, err := timelineFromProto(m); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	long := &barragev1.Snapshot{Final: true, Timeline: []*barragev1.TimelineSample{{Code: strings.Repeat("x", 500)}}, TimelineSeen: 1}
	if got, _, err := timelineFromProto(long); err != nil || len(got[0].Code) != maxCodeLen {
		t.Errorf("a 500-byte code: %v, kept %d bytes, want %d", err, len(got[0].Code), maxCodeLen)
	}
}

func TestMergeTimelinesRebasesOrdersAndRepeats(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	parts := []timelinePart{
		{start: start.Add(2 * time.Millisecond), seen: 2, samples: []runs.TimelineSample{{IntendedUS: 0, SentUS: 500, Code: "a"}, {SentUS: 100, Code: "b"}}},
		{start: start, seen: 1, samples: []runs.TimelineSample{{IntendedUS: 50, SentUS: 1000, Code: "c"}}},
	}
	id := uuid.MustParse("0190b1c2-0000-7000-8000-000000000003")
	tl := mergeTimelines(id, start, parts)
	if tl.Seen != 3 || len(tl.Samples) != 3 {
		t.Fatalf("merged %d of %d, want 3 of 3", len(tl.Samples), tl.Seen)
	}
	var order []string
	for _, s := range tl.Samples {
		order = append(order, s.Code)
	}
	// b and a moved 2 ms later (their shard started then): c at 1000 µs, b at 2100, a at 2500.
	if strings.Join(order, "") != "cba" || tl.Samples[1].SentUS != 2100 || tl.Samples[2].IntendedUS != 2000 {
		t.Fatalf("merged %+v, want c, b (2100), a (intended 2000) in send order", tl.Samples)
	}
	if mergeTimelines(id, start, nil) != nil {
		t.Error("no parts: want no timeline")
	}
	// The same run merges to the same sample.
	big := make([]runs.TimelineSample, 10_000)
	for i := range big {
		big[i] = runs.TimelineSample{SentUS: int64(i)}
	}
	in := []timelinePart{{start: start, seen: 50_000, samples: big}, {start: start, seen: 50_000, samples: big}}
	a, b := mergeTimelines(id, start, in), mergeTimelines(id, start, in)
	if len(a.Samples) != 10_000 || a.Seen != 100_000 {
		t.Fatalf("merged %d of %d, want 10000 of 100000", len(a.Samples), a.Seen)
	}
	for i := range a.Samples {
		if a.Samples[i] != b.Samples[i] {
			t.Fatalf("sample %d differs between two merges of the same run", i)
		}
	}
}
