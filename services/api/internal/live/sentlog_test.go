package live

import "testing"

func TestEventStreamRemembersWhatItSent(t *testing.T) {
	t.Parallel()
	var es Stream
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
	if len(es.sent.held) != 4 {
		t.Errorf("%d seconds held after second 3, want 4", len(es.sent.held))
	}
	es.markSent(maxSentSecond+1, 1) // beyond the longest run: not held
	es.markSent(-1, 1)
	if len(es.sent.held) != 4 || es.sentWith(maxSentSecond+1, 1) {
		t.Errorf("out-of-range seconds are held: %d", len(es.sent.held))
	}
}

func TestSentLogLetsCompleteSecondsGo(t *testing.T) {
	t.Parallel()
	var l sentLog
	for sec := range 100 { // before the shard count is known: all held
		l.mark(sec, 2)
	}
	if len(l.held) != 100 || l.base != 0 {
		t.Fatalf("holds %d seconds from %d before the shard count is known, want 100 from 0", len(l.held), l.base)
	}
	l.setComplete(2)
	if len(l.held) != 0 || l.base != 100 || !l.sentWith(40, 2) {
		t.Fatalf("after the shard count: holds %d from %d, want 0 from 100 with second 40 sent", len(l.held), l.base)
	}
	// A second with one of two snapshots stays held, and so does every
	// second after it until it completes.
	l.mark(100, 1)
	for sec := 101; sec < 1000; sec++ {
		l.mark(sec, 2)
	}
	if len(l.held) != 900 || l.base != 100 {
		t.Fatalf("with second 100 open: holds %d from %d, want 900 from 100", len(l.held), l.base)
	}
	if l.sentWith(100, 2) || !l.sentWith(100, 1) || !l.sentWith(500, 2) || l.sentWith(1000, 2) {
		t.Error("sentWith is wrong with second 100 open")
	}
	l.mark(100, 2) // the late snapshot: everything up to 999 is complete
	if len(l.held) != 0 || l.base != 1000 || cap(l.held) != 0 {
		t.Fatalf("after second 100 completed: holds %d (cap %d) from %d, want none from 1000", len(l.held), cap(l.held), l.base)
	}
	// A long run: what is held stays a few seconds whatever its length.
	for sec := 1000; sec < 100000; sec++ {
		l.mark(sec, 1)
		l.mark(sec, 2)
		if cap(l.held) > 8 {
			t.Fatalf("second %d: %d seconds of capacity held", sec, cap(l.held))
		}
	}
}

func TestSentLogSkipsWhatTheClientHad(t *testing.T) {
	t.Parallel()
	var l sentLog
	l.mark(3, 1)
	l.skipTo(50) // a client resuming at second 55 has 0..49
	if l.base != 50 || len(l.held) != 0 || !l.sentWith(3, 2) || !l.sentWith(49, 0) || l.sentWith(50, 1) {
		t.Fatalf("after skipTo(50): base %d, held %d; seconds before 50 must count as sent, 50 not", l.base, len(l.held))
	}
	l.mark(55, 1)
	l.skipTo(52) // within what is held: the front goes, 55 stays
	if l.base != 52 || len(l.held) != 4 || !l.sentWith(55, 1) {
		t.Fatalf("after skipTo(52): base %d, held %d, 55 sent with 1: %v", l.base, len(l.held), l.sentWith(55, 1))
	}
}
