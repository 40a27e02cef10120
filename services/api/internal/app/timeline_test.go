package app

import (
	"bytes"
	"encoding/csv"
	"math"
	"net/http"
	"strconv"
	"testing"
	"time"

	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/client"
)

// sampleKey identifies a request of a timeline across the shards' samples
// and the merge (times from the run's start).
type sampleKey struct{ intended, sent, latency int64 }

// TestDistributedTimelineMergesShardsInProportion runs 3 connections at
// 3000 qps on two agents (shard 0 gets 2 connections and 2000 qps, shard 1
// one and 1000), then reads the run's timeline: at most 10,000 samples,
// each shard's share in proportion to the requests it sent, and the CSV
// form the same rows.
func TestDistributedTimelineMergesShardsInProportion(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 2)
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default",
		"spec":    map[string]any{"url": echo + "/", "qps": 3000, "connections": 3, "duration": "5s"},
	}))
	id := created.Id.String()
	if run := e.waitRun(t, id, 60*time.Second); run.Status != "completed" || run.Summary == nil {
		t.Fatalf("run ended %s (error %q)", run.Status, derefS(run.Error))
	}
	finals := e.shardFinals(t, id)
	if len(finals) != 2 {
		t.Fatalf("%d shard finals, want 2", len(finals))
	}
	owner, seen := shardSamples(t, finals)
	t.Logf("final snapshots of %d and %d bytes", e.count(t, `SELECT length(final_snapshot) FROM run_shards WHERE run_id = $1::uuid AND shard = 0`, id),
		e.count(t, `SELECT length(final_snapshot) FROM run_shards WHERE run_id = $1::uuid AND shard = 1`, id))
	tl := decode[client.RunTimeline](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/timeline", e.AdminToken, nil))
	total := seen[0] + seen[1]
	t.Logf("shards saw %v requests; merged sample of %d from %d", seen, len(tl.Samples), tl.Seen)
	if tl.Seen != total || total != decode[client.RunResult](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/result", e.AdminToken, nil)).Count {
		t.Fatalf("timeline seen %d, shards saw %d: want both the run's count", tl.Seen, total)
	}
	if want := min(total, 10_000); int64(len(tl.Samples)) != want {
		t.Fatalf("merged sample of %d, want %d", len(tl.Samples), want)
	}
	var from [2]int
	for i, s := range tl.Samples {
		sh, ok := owner[sampleKey{s.IntendedUs, s.SentUs, s.LatencyUs}]
		if !ok {
			t.Fatalf("sample %d %+v is in no shard's sample", i, s)
		}
		from[sh]++
		if s.Code != "200" || !s.Ok || s.LatencyUs <= 0 || s.Entry != nil || (i > 0 && s.SentUs < tl.Samples[i-1].SentUs) {
			t.Fatalf("sample %d %+v: want a 200 with a latency, in send order", i, s)
		}
	}
	for sh := range 2 {
		want := float64(seen[sh]) / float64(total)
		if got := float64(from[sh]) / float64(len(tl.Samples)); math.Abs(got-want) > 0.1*want {
			t.Errorf("shard %d gave %d of %d samples (%.3f), its share of the requests is %.3f", sh, from[sh], len(tl.Samples), got, want)
		}
	}
	checkTimelineCSV(t, e, id, tl)
}

// shardSamples indexes the shards' own samples, rebased on the run's start
// (the earliest shard start), by key, and returns what each shard saw.
func shardSamples(t *testing.T, finals []*barragev1.Snapshot) (map[sampleKey]int, [2]int64) {
	t.Helper()
	start := finals[0].GetIntervalStart().AsTime()
	for _, f := range finals[1:] {
		if s := f.GetIntervalStart().AsTime(); s.Before(start) {
			start = s
		}
	}
	owner := map[sampleKey]int{}
	var seen [2]int64
	for sh, f := range finals {
		seen[sh] = int64(f.GetTimelineSeen())
		if int64(len(f.GetTimeline())) != min(seen[sh], 10_000) || seen[sh] != int64(f.GetCount()) {
			t.Fatalf("shard %d sent %d samples of %d seen, counted %d", sh, len(f.GetTimeline()), seen[sh], f.GetCount())
		}
		shift := f.GetIntervalStart().AsTime().Sub(start).Microseconds()
		for _, s := range f.GetTimeline() {
			owner[sampleKey{s.GetIntendedUs() + shift, s.GetSentUs() + shift, s.GetLatencyUs()}] = sh
		}
	}
	return owner, seen
}

// checkTimelineCSV reads the timeline as CSV: the header, then the JSON's
// samples row for row.
func checkTimelineCSV(t *testing.T, e *apiEnv, id string, tl client.RunTimeline) {
	t.Helper()
	status, header, raw := e.do(t, http.MethodGet, "/runs/"+id+"/timeline?format=csv", e.AdminToken, nil)
	if status != http.StatusOK || header.Get("Content-Type") != "text/csv" {
		t.Fatalf("csv: %d %q", status, header.Get("Content-Type"))
	}
	rows, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(tl.Samples)+1 {
		t.Fatalf("csv has %d rows, want a header and %d", len(rows), len(tl.Samples))
	}
	if got := rows[0]; len(got) != 6 || got[0] != "intended_us" || got[1] != "sent_us" || got[2] != "latency_us" || got[3] != "code" || got[4] != "ok" || got[5] != "entry" {
		t.Fatalf("csv header %v", got)
	}
	for i, row := range rows[1:] {
		s := tl.Samples[i]
		want := []string{strconv.FormatInt(s.IntendedUs, 10), strconv.FormatInt(s.SentUs, 10), strconv.FormatInt(s.LatencyUs, 10), s.Code, "true", ""}
		for j := range want {
			if row[j] != want[j] {
				t.Fatalf("csv row %d = %v, want %v", i+1, row, want)
			}
		}
	}
}
