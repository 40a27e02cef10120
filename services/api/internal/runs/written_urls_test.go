package runs

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
)

func TestSuccessfulWrites(t *testing.T) {
	t.Parallel()
	codes := map[string]int64{"200": 5, "201": 7, "204": 1, "299": 2, "300": 4, "500": 9, "-1": 3, "SERVING": 8}
	mix := spec.Spec{Requests: []spec.Request{{Method: "GET"}, {Method: "PUT"}, {Method: "DELETE"}}}
	entries := []EntryResult{
		{Index: 0, RetCodes: map[string]int64{"200": 100}},
		{Index: 1, RetCodes: map[string]int64{"201": 10, "409": 3}},
		{Index: 2, RetCodes: map[string]int64{"204": 4, "404": 6}},
		{Index: 7, RetCodes: map[string]int64{"200": 1000}}, // no such entry in the spec
	}
	tests := []struct {
		name string
		sp   spec.Spec
		res  Result
		want int64
	}{
		{"post", spec.Spec{Method: "POST"}, Result{RetCodes: codes}, 15},
		{"get", spec.Spec{Method: "GET"}, Result{RetCodes: codes}, 0},
		{"mix", mix, Result{RetCodes: map[string]int64{"200": 110, "201": 4}, Entries: entries}, 14},
	}
	for _, tt := range tests {
		if got := successfulWrites(tt.sp, tt.res); got != tt.want {
			t.Errorf("%s: %d successful writes, want %d", tt.name, got, tt.want)
		}
	}
}

// pagedURLs is a writtenURLReader over n URLs that counts its reads.
type pagedURLs struct {
	n, reads int
	fail     bool
}

func (p *pagedURLs) WrittenURLs(_ context.Context, _ uuid.UUID, after WrittenURLKey, limit int) ([]WrittenURL, error) {
	p.reads++
	if p.fail && p.reads > 1 {
		return nil, errors.New("database went away")
	}
	var out []WrittenURL
	for i := after.Idx + 1; i <= p.n && len(out) < limit; i++ {
		out = append(out, WrittenURL{Key: WrittenURLKey{Seq: 1, Idx: i}, URL: "http://h/" + strconv.Itoa(i)})
	}
	return out, nil
}

// TestEachWrittenURL reads every URL in order a page at a time, stops at
// the limit, and passes a read error on.
func TestEachWrittenURL(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ n, limit, want, reads int }{
		{0, 100, 0, 1},
		{25_000, spec.MaxWrittenURLs, 25_000, 3},
		{20_000, spec.MaxWrittenURLs, 20_000, 3}, // an exact page ends with an empty read
		{25_000, 10_000, 10_000, 1},
		{25_000, 12_345, 12_345, 2},
	} {
		st := &pagedURLs{n: tt.n}
		got := 0
		err := eachWrittenURL(context.Background(), st, uuid.Nil, tt.limit, func(u WrittenURL) error {
			got++
			if want := "http://h/" + strconv.Itoa(got); u.URL != want {
				return errors.New(u.URL + " out of order, want " + want)
			}
			return nil
		})
		if err != nil || got != tt.want || st.reads != tt.reads {
			t.Errorf("%d URLs, limit %d: got %d in %d reads (%v), want %d in %d", tt.n, tt.limit, got, st.reads, err, tt.want, tt.reads)
		}
	}
	st := &pagedURLs{n: 25_000, fail: true}
	if err := eachWrittenURL(context.Background(), st, uuid.Nil, spec.MaxWrittenURLs, func(WrittenURL) error { return nil }); err == nil {
		t.Error("a failed read was not reported")
	}
}
