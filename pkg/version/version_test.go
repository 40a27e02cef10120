package version

import (
	"runtime"
	"strings"
	"testing"
)

func TestRequested(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"version"}, true},
		{[]string{"-version"}, true},
		{[]string{"--version"}, true},
		{nil, false},
		{[]string{"version", "extra"}, false},
		{[]string{"run", "-version"}, false},
	} {
		if got := Requested(tc.args); got != tc.want {
			t.Errorf("Requested(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestLineUsesTheStamp: a release build's stamped version, commit and date
// are what Line prints.
func TestLineUsesTheStamp(t *testing.T) {
	stamp, commit, date = "v1.2.3", "0123456789abcdef0123456789abcdef01234567", "2026-11-26T19:00:00Z"
	t.Cleanup(func() { stamp, commit, date = "", "", "" })
	want := "barrage v1.2.3 (commit 0123456789abcdef0123456789abcdef01234567, built 2026-11-26T19:00:00Z, " + runtime.Version()
	if got := Line("barrage"); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, runtime.GOOS+"/"+runtime.GOARCH+")") {
		t.Errorf("Line = %q, want it to start with %q", got, want)
	}
}
