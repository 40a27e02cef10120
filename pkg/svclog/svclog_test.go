package svclog

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		environ []string
		check   func(string) bool
		wantErr string
	}{
		{nil, func(s string) bool { return json.Valid([]byte(s)) }, ""},
		{[]string{"BARRAGE_LOG_FORMAT=json"}, func(s string) bool { return json.Valid([]byte(s)) }, ""},
		{[]string{"BARRAGE_LOG_FORMAT=json", "BARRAGE_LOG_FORMAT=text"}, func(s string) bool { return strings.HasPrefix(s, "time=") }, ""},
		{[]string{"BARRAGE_LOG_FORMAT=xml"}, nil, `BARRAGE_LOG_FORMAT "xml": must be json or text`},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		log, err := New(&buf, slog.LevelInfo, tt.environ)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%v: err %v, want %q", tt.environ, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		log.Debug("hidden")
		log.Info("shown", slog.Int("n", 1))
		if out := buf.String(); strings.Count(out, "\n") != 1 || !strings.Contains(out, "shown") || !tt.check(strings.TrimSpace(out)) {
			t.Errorf("%v: logged %q", tt.environ, out)
		}
	}
}
