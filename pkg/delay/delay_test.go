package delay

import (
	"context"
	"testing"
	"time"
)

// TestSleepIsNeverShort checks the lower bound; precision is measured by the
// agent's accuracy suite (delay=20ms must read within [20 ms, 21.5 ms]).
func TestSleepIsNeverShort(t *testing.T) {
	t.Parallel()
	const d = 5 * time.Millisecond
	for range 20 {
		start := time.Now()
		if !Sleep(context.Background(), d) {
			t.Fatal("Sleep reported an interruption")
		}
		got := time.Since(start)
		if got < d {
			t.Fatalf("slept %v, less than %v", got, d)
		}
	}
}

func TestSleepStopsOnCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	if Sleep(ctx, 10*time.Second) {
		t.Fatal("Sleep reported a full sleep after cancel")
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("cancel took %v", elapsed)
	}
	if !Sleep(context.Background(), 0) || !Sleep(context.Background(), -time.Second) {
		t.Fatal("zero and negative delays must return at once, fully slept")
	}
}
