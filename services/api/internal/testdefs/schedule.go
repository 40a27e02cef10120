package testdefs

import (
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // zones must load in images without /usr/share/zoneinfo

	"github.com/robfig/cron/v3"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// Schedule limits.
const (
	// MaxScheduleLength is the longest cron expression, in bytes.
	MaxScheduleLength = 100
	// maxTimezoneLength is the longest time zone name.
	maxTimezoneLength = 64
	// DefaultTimezone is the zone of a schedule given without one.
	DefaultTimezone = "UTC"
)

// Schedule is a parsed cron expression read in its time zone.
type Schedule struct {
	spec cron.Schedule
	loc  *time.Location
}

// ParseSchedule parses expr, a standard 5-field cron expression or a
// descriptor such as @hourly, read in the IANA zone tz ("" for UTC). The
// zone comes from tz only: CRON_TZ= and TZ= prefixes are refused, and so is
// @every, which is not cron. Errors are field errors on "schedule" or
// "timezone".
func ParseSchedule(expr, tz string) (Schedule, error) {
	loc, err := LoadZone(tz)
	if err != nil {
		return Schedule{}, err
	}
	expr = strings.TrimSpace(expr)
	switch {
	case expr == "":
		return Schedule{}, scheduleError("must not be empty")
	case len(expr) > MaxScheduleLength:
		return Schedule{}, scheduleError(fmt.Sprintf("must be at most %d characters", MaxScheduleLength))
	case strings.HasPrefix(expr, "CRON_TZ=") || strings.HasPrefix(expr, "TZ="):
		return Schedule{}, scheduleError("must not name a time zone; set timezone instead")
	case strings.HasPrefix(expr, "@every"):
		return Schedule{}, scheduleError("@every is not supported; use 5 cron fields such as */5 * * * *")
	}
	sp, err := cron.ParseStandard(expr)
	if err != nil {
		return Schedule{}, scheduleError(fmt.Sprintf("is not a 5-field cron expression (minute hour day-of-month month day-of-week) or @hourly-style descriptor: %v", err))
	}
	return Schedule{spec: sp, loc: loc}, nil
}

// LoadZone returns the IANA zone named tz ("" for UTC); an unknown name
// (or "Local", which depends on the server) is a field error on "timezone".
func LoadZone(tz string) (*time.Location, error) {
	if tz == "" {
		tz = DefaultTimezone
	}
	if len(tz) > maxTimezoneLength || tz == "Local" {
		return nil, zoneError(tz)
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, zoneError(tz)
	}
	return loc, nil
}

// Next returns the first time after t the schedule fires, in UTC; zero
// when it never does.
func (s Schedule) Next(t time.Time) time.Time {
	next := s.spec.Next(t.In(s.loc))
	if next.IsZero() {
		return time.Time{}
	}
	return next.UTC()
}

// NextRun returns when t's schedule next fires after now, in UTC; zero when
// t has no schedule.
func (t Test) NextRun(now time.Time) (time.Time, error) {
	if t.Schedule == "" {
		return time.Time{}, nil
	}
	s, err := ParseSchedule(t.Schedule, t.Timezone)
	if err != nil {
		return time.Time{}, fmt.Errorf("schedule of test %s: %w", t.ID, err)
	}
	return s.Next(now), nil
}

// scheduleError is the field error of a bad cron expression.
func scheduleError(msg string) error {
	return apperr.Invalidf("schedule", "%s", msg)
}

// zoneError is the field error of an unknown time zone.
func zoneError(tz string) error {
	return apperr.Invalidf("timezone", "%q is not an IANA time zone such as Europe/Paris or UTC", tz)
}
