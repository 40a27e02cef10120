package runs

import (
	"slices"
	"testing"
)

// diagram is the status machine drawn on Status: each status and the
// statuses it may move to.
var diagram = map[Status][]Status{
	Queued:      {Dispatching, Failed, Canceled},
	Dispatching: {Running, Stopping, Completed, Failed, Canceled},
	Running:     {Stopping, Completed, Failed, Canceled},
	Stopping:    {Completed, Failed, Canceled},
	Completed:   nil,
	Failed:      nil,
	Canceled:    nil,
}

func TestCanMoveMatchesTheDiagram(t *testing.T) {
	t.Parallel()
	if len(diagram) != len(Statuses()) {
		t.Fatalf("the diagram has %d statuses, Statuses() %d", len(diagram), len(Statuses()))
	}
	for _, from := range Statuses() {
		for _, to := range Statuses() {
			want := slices.Contains(diagram[from], to)
			if got := CanMove(from, to); got != want {
				t.Errorf("CanMove(%s, %s) = %v, want %v", from, to, got, want)
			}
			if got := slices.Contains(From(to), from); got != want {
				t.Errorf("From(%s) contains %s = %v, want %v", to, from, got, want)
			}
		}
	}
}

func TestTerminalStatusesHaveNoWayOut(t *testing.T) {
	t.Parallel()
	var terminal []Status
	for _, s := range Statuses() {
		if s.Terminal() {
			terminal = append(terminal, s)
		}
		if s.Terminal() != (len(diagram[s]) == 0) {
			t.Errorf("%s: Terminal() = %v, but the diagram has %d ways out", s, s.Terminal(), len(diagram[s]))
		}
		for _, to := range Statuses() {
			if s.Terminal() && CanMove(s, to) {
				t.Errorf("terminal %s may move to %s", s, to)
			}
		}
		if CanMove(s, s) {
			t.Errorf("%s may move to itself", s)
		}
	}
	if !slices.Equal(terminal, []Status{Completed, Failed, Canceled}) {
		t.Errorf("terminal statuses = %v, want completed, failed, canceled", terminal)
	}
	// Every status but queued, where runs are born, is reachable.
	for _, s := range Statuses()[1:] {
		if len(From(s)) == 0 {
			t.Errorf("no status may move to %s", s)
		}
	}
	if len(From(Queued)) != 0 {
		t.Errorf("From(queued) = %v, want none: runs are created queued", From(Queued))
	}
}

func TestStatusValid(t *testing.T) {
	t.Parallel()
	for _, s := range Statuses() {
		if !s.Valid() {
			t.Errorf("%s is not Valid", s)
		}
	}
	for _, s := range []Status{"", "Queued", "done", "paused"} {
		if s.Valid() || len(From(s)) != 0 || CanMove(Queued, s) {
			t.Errorf("unknown status %q is accepted", s)
		}
	}
}
