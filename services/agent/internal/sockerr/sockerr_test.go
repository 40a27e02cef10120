package sockerr

import (
	"context"
	"errors"
	"testing"
)

func TestFirstKeepsTheFirstErrorOfALiveRun(t *testing.T) {
	t.Parallel()
	var f First
	if f.Err() != nil {
		t.Fatal("a new First holds an error")
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	f.Note(ended, errors.New("cut short by the end"))
	if f.Err() != nil {
		t.Fatalf("kept %v from a run that was ending", f.Err())
	}
	first, second := errors.New("dial refused"), errors.New("handshake")
	f.Note(context.Background(), first)
	f.Note(context.Background(), second)
	if !errors.Is(f.Err(), first) {
		t.Fatalf("Err = %v, want the first error", f.Err())
	}
}
