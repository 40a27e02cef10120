package httpapi

import (
	"errors"
	"testing"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

func TestResumeCursorTakesTheHeaderThenAfter(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		name        string
		header, aft *string
		want        string // the cursor, or the field an error names
		wantErr     bool
	}{
		{name: "neither", want: "0.0"},
		{name: "after", aft: s("3540.20"), want: "3540.20"},
		{name: "header", header: s("12.2"), want: "12.2"},
		{name: "a reconnect's header wins", header: s("3600.20"), aft: s("3540.20"), want: "3600.20"},
		{name: "bad after", aft: s("3540"), want: "after", wantErr: true},
		{name: "bad header", header: s("x.1"), aft: s("3540.20"), want: "Last-Event-ID", wantErr: true},
	} {
		c, err := resumeCursor(StreamRunEventsParams{LastEventID: tc.header, After: tc.aft})
		if tc.wantErr {
			var ae *apperr.Error
			if !errors.As(err, &ae) || len(ae.Fields) != 1 || ae.Fields[0].Field != tc.want {
				t.Errorf("%s: error %v, want one naming %s", tc.name, err, tc.want)
			}
			continue
		}
		if err != nil || c.String() != tc.want {
			t.Errorf("%s: cursor %v (%v), want %s", tc.name, c, err, tc.want)
		}
	}
}
