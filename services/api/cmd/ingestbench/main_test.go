package main

import (
	"io"
	"strings"
	"testing"
)

func TestLiveFlagNeedsHoldAndASecondLeft(t *testing.T) {
	t.Parallel()
	base := []string{"-scenario", "big-run", "-agents", "20", "-seconds", "3600"}
	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{args: []string{"-hold", "h.json", "-live", "90"}},
		{args: []string{"-live", "90"}, wantErr: "-live needs -hold"},
		{args: []string{"-hold", "h.json", "-live", "3600"}, wantErr: "-live needs -hold"},
		{args: []string{"-hold", "h.json", "-live", "-1"}, wantErr: "-live needs -hold"},
	} {
		cfg, err := parseFlags(append(append([]string{}, base...), tc.args...), io.Discard)
		switch {
		case tc.wantErr == "" && (err != nil || cfg.live != 90):
			t.Errorf("%v: live %d, error %v", tc.args, cfg.live, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.wantErr)
		}
	}
}
