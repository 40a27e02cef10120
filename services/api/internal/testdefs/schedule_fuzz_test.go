package testdefs

import (
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// FuzzParseSchedule parses a test's schedule and timezone as the API
// receives them: it never panics, refuses with a field error on schedule or
// timezone, and a schedule it accepts fires strictly later than the time
// it is asked about (or never), in UTC, and again after that.
func FuzzParseSchedule(f *testing.F) {
	for _, s := range [][2]string{
		{"*/5 * * * *", ""}, {"0 9 * * 1-5", "Europe/Paris"}, {"@hourly", "UTC"}, {"@every 1m", ""},
		{"CRON_TZ=UTC 0 * * * *", ""}, {"0 0 30 2 *", "America/New_York"}, {"61 * * * *", "Local"},
		{"0 2 * * *", "Australia/Lord_Howe"}, {"* * * * * *", "../etc/passwd"},
	} {
		f.Add(s[0], s[1], int64(1767225600))
	}
	f.Fuzz(func(t *testing.T, expr, tz string, unix int64) {
		s, err := ParseSchedule(expr, tz)
		if err != nil {
			if !apperr.Is(err, apperr.Invalid) {
				t.Fatalf("ParseSchedule(%q, %q) = %v, want an Invalid error", expr, tz, err)
			}
			return
		}
		at := time.Unix(unix%(1<<40), 0) // within a few thousand years
		next := s.Next(at)
		if next.IsZero() {
			return
		}
		if !next.After(at) || next.Location() != time.UTC {
			t.Fatalf("%q in %q: Next(%s) = %s, want a later time in UTC", expr, tz, at, next)
		}
		if again := s.Next(next); !again.IsZero() && !again.After(next) {
			t.Fatalf("%q in %q: Next(%s) = %s, not later", expr, tz, next, again)
		}
	})
}
