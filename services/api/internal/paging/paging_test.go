package paging

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// wantInvalid fails t unless err is an Invalid error about field alone.
func wantInvalid(t *testing.T, err error, field string) {
	t.Helper()
	var e *apperr.Error
	if !errors.As(err, &e) || e.Code != apperr.Invalid || len(e.Fields) != 1 || e.Fields[0].Field != field {
		t.Errorf("error = %#v, want Invalid on field %q", err, field)
	}
}

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []Cursor{
		{CreatedAt: time.Date(2026, 11, 23, 14, 2, 3, 123456000, time.UTC), ID: uuid.New()},
		{CreatedAt: time.Date(1969, 12, 31, 23, 59, 59, 999999000, time.UTC), ID: uuid.Nil}, // before the epoch
		{CreatedAt: time.Unix(0, 0).UTC(), ID: uuid.Max},
	}
	for _, c := range tests {
		t.Run(c.CreatedAt.Format(time.RFC3339Nano), func(t *testing.T) {
			t.Parallel()
			s := c.Encode()
			if _, err := base64.RawURLEncoding.DecodeString(s); err != nil {
				t.Errorf("cursor %q is not unpadded base64url: %v", s, err)
			}
			r, err := ParseRequest(&s, ptr(7))
			if err != nil {
				t.Fatalf("ParseRequest(%q): %v", s, err)
			}
			if r.Limit != 7 || r.After == nil || !r.After.CreatedAt.Equal(c.CreatedAt) || r.After.ID != c.ID {
				t.Errorf("ParseRequest(Encode(%v)) = %+v, want it back with limit 7", c, r)
			}
			if r.After.CreatedAt.Location() != time.UTC {
				t.Errorf("decoded time is in %v, want UTC", r.After.CreatedAt.Location())
			}
		})
	}
	t.Run("sub-microsecond precision is dropped", func(t *testing.T) {
		t.Parallel()
		c := Cursor{CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6_000_789, time.UTC), ID: uuid.New()}
		s := c.Encode()
		r, err := ParseRequest(&s, nil)
		if err != nil || !r.After.CreatedAt.Equal(c.CreatedAt.Truncate(time.Microsecond)) {
			t.Errorf("ParseRequest = %+v, %v; want the time truncated to microseconds", r, err)
		}
	})
}

func TestParseRequestLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		limit *int
		want  int // 0 for an error
	}{
		{nil, DefaultLimit},
		{ptr(1), 1},
		{ptr(MaxLimit), MaxLimit},
		{ptr(0), 0},
		{ptr(-1), 0},
		{ptr(MaxLimit + 1), 0},
	}
	for _, tt := range tests {
		name := "nil"
		if tt.limit != nil {
			name = fmt.Sprint(*tt.limit)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, err := ParseRequest(nil, tt.limit)
			if tt.want == 0 {
				wantInvalid(t, err, "limit")
				return
			}
			if err != nil || r.Limit != tt.want || r.After != nil {
				t.Errorf("ParseRequest(nil, %s) = %+v, %v; want limit %d from the start", name, r, err, tt.want)
			}
		})
	}
	if DefaultLimit != 50 || MaxLimit != 200 {
		t.Errorf("limits %d/%d differ from the 50/200 openapi.yaml documents", DefaultLimit, MaxLimit)
	}
}

func TestParseRequestBadCursor(t *testing.T) {
	t.Parallel()
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	id := uuid.NewString()
	tests := []struct {
		name, cursor string
	}{
		{"not base64", "!!!"},
		{"padded", enc("1700000000000000."+id) + "=="},
		{"standard alphabet", "a+b/"},
		{"no separator", enc("1700000000000000" + id)},
		{"time not a number", enc("yesterday." + id)},
		{"time overflows", enc("99999999999999999999." + id)},
		{"id not a uuid", enc("1700000000000000.not-a-uuid")},
		{"nothing after the separator", enc("1700000000000000.")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := ParseRequest(&tt.cursor, nil)
			wantInvalid(t, err, "cursor")
			if r.After != nil {
				t.Errorf("ParseRequest returned a cursor %+v with the error", r.After)
			}
		})
	}
	t.Run("empty is the first page", func(t *testing.T) {
		t.Parallel()
		if r, err := ParseRequest(ptr(""), nil); err != nil || r.After != nil || r.Limit != DefaultLimit {
			t.Errorf("ParseRequest(\"\") = %+v, %v; want the first page", r, err)
		}
	})
}

// row is a list item for Page.
type row struct {
	at time.Time
	id uuid.UUID
}

func rowCursor(r row) Cursor { return Cursor{CreatedAt: r.at, ID: r.id} }

func TestPage(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	rows := make([]row, 6)
	for i := range rows {
		rows[i] = row{at: base.Add(-time.Duration(i) * time.Second), id: uuid.New()}
	}
	tests := []struct {
		name      string
		fetched   int // rows the store returned (up to limit+1)
		limit     int
		wantItems int
		wantNext  bool
	}{
		{"none", 0, 5, 0, false},
		{"fewer than the limit", 3, 5, 3, false},
		{"exactly the limit", 5, 5, 5, false},
		{"one more than the limit", 6, 5, 5, true},
		{"limit 1", 2, 1, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := slices.Clone(rows[:tt.fetched])
			items, next := Page(in, tt.limit, rowCursor)
			if len(items) != tt.wantItems || !slices.Equal(items, rows[:tt.wantItems]) {
				t.Errorf("Page gave %d items, want the first %d", len(items), tt.wantItems)
			}
			if (next != "") != tt.wantNext {
				t.Fatalf("next cursor = %q, want one: %v", next, tt.wantNext)
			}
			if next == "" {
				return
			}
			r, err := ParseRequest(&next, nil)
			lastShown := rows[tt.wantItems-1]
			if err != nil || r.After.ID != lastShown.id || !r.After.CreatedAt.Equal(lastShown.at) {
				t.Errorf("next cursor decodes to %+v, %v; want the last item shown %+v", r.After, err, lastShown)
			}
		})
	}
}

// FuzzParseRequest checks that any cursor either is refused as an Invalid
// "cursor" or decodes to a position that encodes and decodes to itself.
func FuzzParseRequest(f *testing.F) {
	f.Add(Cursor{CreatedAt: time.Now(), ID: uuid.New()}.Encode())
	f.Add("")
	f.Add("!!!")
	f.Add(base64.RawURLEncoding.EncodeToString([]byte("-5.00000000-0000-0000-0000-000000000000")))
	f.Add(base64.RawURLEncoding.EncodeToString([]byte("+1.{00000000-0000-0000-0000-000000000000}")))
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRequest(&s, nil)
		if err != nil {
			wantInvalid(t, err, "cursor")
			return
		}
		if r.After == nil {
			if s != "" {
				t.Fatalf("ParseRequest(%q) accepted it without a position", s)
			}
			return
		}
		again := r.After.Encode()
		r2, err := ParseRequest(&again, nil)
		if err != nil || !r2.After.CreatedAt.Equal(r.After.CreatedAt) || r2.After.ID != r.After.ID {
			t.Fatalf("cursor %q decodes to %+v, which does not survive Encode: %+v, %v", s, r.After, r2.After, err)
		}
	})
}
