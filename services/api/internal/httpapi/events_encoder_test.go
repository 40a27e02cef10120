package httpapi

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

func TestStreamEncoderWritesTheAPIShapes(t *testing.T) {
	t.Parallel()
	h := hist.New()
	for v := range 100 {
		h.RecordMicros(int64(100 + v))
	}
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	iv := runs.Interval{Second: 3, Snapshots: 2, Count: 100, Response: enc, Service: enc}
	data, err := streamEncoder{}.Interval(&iv)
	if err != nil {
		t.Fatal(err)
	}
	var out Interval
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	if out.Second != 3 || out.Count != 100 || out.Snapshots != 2 || out.Response.P50Us < 100 {
		t.Fatalf("interval %+v", out)
	}
	want, err := intervalOut(&iv)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(want); !bytes.Equal(b, data) {
		t.Fatalf("interval event %s, want %s", data, b)
	}
	run := runs.Run{ID: uuid.New(), Status: runs.Completed}
	res := runs.Result{Count: 100, Duration: time.Second, Response: enc, Service: enc}
	data, err = streamEncoder{}.Result(run, res)
	if err != nil {
		t.Fatal(err)
	}
	var got RunResult
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	if got.RunId != run.ID || got.Count != 100 || got.Status != RunStatus(runs.Completed) {
		t.Fatalf("result %+v", got)
	}
}
