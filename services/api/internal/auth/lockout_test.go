package auth

import (
	"testing"
	"time"
)

func TestLockoutFor(t *testing.T) {
	t.Parallel()
	l := Lockout{}.Normalize()
	tests := []struct {
		failures int
		want     time.Duration
	}{
		{0, 0}, {4, 0}, {5, time.Minute}, {6, 2 * time.Minute}, {7, 4 * time.Minute},
		{8, 8 * time.Minute}, {9, 15 * time.Minute}, {40, 15 * time.Minute},
	}
	for _, tt := range tests {
		if got := l.For(tt.failures); got != tt.want {
			t.Errorf("For(%d) = %v, want %v", tt.failures, got, tt.want)
		}
	}
	small := Lockout{Threshold: 2, First: time.Second, Max: 3 * time.Second}.Normalize()
	if got := small.For(4); got != 3*time.Second {
		t.Errorf("For(4) with max 3s = %v, want 3s", got)
	}
}
