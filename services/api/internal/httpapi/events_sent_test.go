package httpapi

import "testing"

func TestEventStreamRemembersWhatItSent(t *testing.T) {
	t.Parallel()
	var es eventStream
	es.markSent(3, 2)
	es.markSent(0, 1)
	for _, c := range []struct {
		second, snapshots int
		want              bool
	}{
		{3, 2, true}, {3, 1, false}, {3, 3, false}, {0, 1, true}, {1, 0, false}, {2, 1, false}, {4, 1, false},
	} {
		if got := es.sentWith(c.second, c.snapshots); got != c.want {
			t.Errorf("sentWith(%d, %d) = %v, want %v", c.second, c.snapshots, got, c.want)
		}
	}
	es.markSent(3, 5) // a late shard's snapshot
	if es.sentWith(3, 2) || !es.sentWith(3, 5) {
		t.Error("a second sent again is not remembered with its new snapshots")
	}
	if len(es.sent) != 4 {
		t.Errorf("%d seconds held after second 3, want 4", len(es.sent))
	}
	es.markSent(maxSentSecond+1, 1) // beyond the longest run: not held
	es.markSent(-1, 1)
	if len(es.sent) != 4 || es.sentWith(maxSentSecond+1, 1) {
		t.Errorf("out-of-range seconds are held: %d", len(es.sent))
	}
}
