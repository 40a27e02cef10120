package audit

import (
	"errors"
	"testing"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

func TestParseRequest(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	num := func(n int) *int { return &n }
	tests := []struct {
		name    string
		cursor  *string
		limit   *int
		want    Request
		wantErr string // the invalid field
	}{
		{name: "defaults", want: Request{Limit: 50}},
		{name: "round trip", cursor: str(encodeCursor(1234)), limit: num(2), want: Request{AfterID: 1234, Limit: 2}},
		{name: "limit too big", limit: num(201), wantErr: "limit"},
		{name: "limit zero", limit: num(0), wantErr: "limit"},
		{name: "not base64", cursor: str("!!"), wantErr: "cursor"},
		{name: "a runs cursor", cursor: str("MTcwMDAwMDAwMDAwMDAwMC4wMDAwMDAwMC0wMDAwLTAwMDAtMDAwMC0wMDAwMDAwMDAwMDA"), wantErr: "cursor"},
		{name: "zero id", cursor: str(encodeCursor(0)), wantErr: "cursor"},
		{name: "negative id", cursor: str(encodeCursor(-5)), wantErr: "cursor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseRequest(tt.cursor, tt.limit)
			if tt.wantErr != "" {
				var ae *apperr.Error
				if !errors.As(err, &ae) || ae.Code != apperr.Invalid || len(ae.Fields) != 1 || ae.Fields[0].Field != tt.wantErr {
					t.Fatalf("ParseRequest = %v, %v; want Invalid on %s", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseRequest = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// FuzzParseRequest reads the cursor and limit of GET /audit: it never
// panics, refuses with an Invalid error, and a cursor it accepts is the one
// encodeCursor writes for its id.
func FuzzParseRequest(f *testing.F) {
	f.Add(encodeCursor(42), 10)
	f.Add("", 0)
	f.Add("YTA", 1)
	f.Add("a-1", 1000)
	f.Fuzz(func(t *testing.T, cursor string, limit int) {
		r, err := ParseRequest(&cursor, &limit)
		if err != nil {
			if !apperr.Is(err, apperr.Invalid) {
				t.Fatalf("ParseRequest(%q, %d) = %v, want an Invalid error", cursor, limit, err)
			}
			return
		}
		if r.Limit != limit {
			t.Fatalf("limit %d, want %d", r.Limit, limit)
		}
		if cursor == "" {
			return
		}
		again, err := ParseRequest(new(encodeCursor(r.AfterID)), &limit)
		if err != nil || again.AfterID != r.AfterID || r.AfterID < 1 {
			t.Fatalf("cursor %q → id %d → %q → %d, %v", cursor, r.AfterID, encodeCursor(r.AfterID), again.AfterID, err)
		}
	})
}
