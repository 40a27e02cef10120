package spec

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Duration is a time.Duration that reads and writes JSON the way people
// write it: it marshals as a Go duration string ("1m30s") and unmarshals
// from such a string or from a JSON number of seconds (90, 0.25). Negative
// values decode; Validate rejects them where they make no sense.
type Duration time.Duration

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration {
	return time.Duration(d)
}

// String returns d in Go duration syntax, e.g. "1m30s".
func (d Duration) String() string {
	return time.Duration(d).String()
}

// MarshalJSON writes d as a JSON string in Go duration syntax.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(d.String())
}

// UnmarshalJSON reads a Go duration string ("1m30s", "250ms") or a number of
// seconds (90, 1.5). JSON null leaves d unchanged.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return errDuration
		}
		v, err := time.ParseDuration(str)
		if err != nil {
			return fmt.Errorf("%w, not %q", errDuration, str)
		}
		*d = Duration(v)
		return nil
	}
	sec, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return errDuration
	}
	v, err := secondsToDuration(sec)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// errDuration is what a JSON value that is not a duration decodes to.
var errDuration = errors.New(`must be a duration like "1m30s" or a number of seconds`)

// secondsToDuration converts seconds to a Duration, rounding to the
// nanosecond, and refuses values a time.Duration cannot hold.
func secondsToDuration(sec float64) (time.Duration, error) {
	ns := math.Round(sec * float64(time.Second))
	// 2^63 is exactly representable; anything at or past it overflows int64.
	if math.IsNaN(ns) || ns >= math.Exp2(63) || ns < -math.Exp2(63) {
		return 0, fmt.Errorf("%w: %v seconds is out of range", errDuration, sec)
	}
	return time.Duration(ns), nil
}
