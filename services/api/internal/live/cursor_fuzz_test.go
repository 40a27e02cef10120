package live

import (
	"strconv"
	"testing"
)

// FuzzParseCursor reads any Last-Event-ID: it never panics, accepts only
// "<second>.<n>" with both non-negative, and what it accepts renders back
// to an id that parses to the same cursor.
func FuzzParseCursor(f *testing.F) {
	for _, s := range []string{"0.0", "12.3", "3600.40", "", ".", "1.", ".1", "-1.0", "1.-1", "1.2.3", "+1.2", "a.b",
		"99999999999999999999.1", " 1.2", "1.2\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ok := ParseCursor(s)
		if !ok {
			if c != (Cursor{}) {
				t.Fatalf("ParseCursor(%q) refused but returned %+v", s, c)
			}
			return
		}
		if !c.set || c.second < 0 || c.snapshots < 0 {
			t.Fatalf("ParseCursor(%q) = %+v", s, c)
		}
		again, ok := ParseCursor(c.String())
		if !ok || again != c {
			t.Fatalf("ParseCursor(%q) = %+v renders %q, which parses to %+v, %v", s, c, c.String(), again, ok)
		}
		if want := strconv.Itoa(c.second) + "." + strconv.Itoa(c.snapshots); c.String() != want {
			t.Fatalf("String() = %q, want %q", c.String(), want)
		}
	})
}
