package live

import (
	"sync"

	"github.com/google/uuid"
)

// Defaults of Limits.
const (
	// DefaultStreamsPerCaller is Limits.PerCaller when it is zero: a
	// dashboard opens one stream per run page, so this is many tabs.
	DefaultStreamsPerCaller = 20
	// DefaultStreamsPerRun is Limits.PerRun when it is zero.
	DefaultStreamsPerRun = 200
)

// Limits bound the live streams a server keeps open at once.
type Limits struct {
	// PerCaller bounds the streams of one caller: a user (all their
	// sessions and tokens together) or, for anonymous callers of a
	// read-only server, a client address. Zero means
	// DefaultStreamsPerCaller; negative, no bound.
	PerCaller int
	// PerRun bounds the streams of one run, all callers together. Zero
	// means DefaultStreamsPerRun; negative, no bound.
	PerRun int
}

// Normalize returns l with the defaults filled in.
func (l Limits) Normalize() Limits {
	if l.PerCaller == 0 {
		l.PerCaller = DefaultStreamsPerCaller
	}
	if l.PerRun == 0 {
		l.PerRun = DefaultStreamsPerRun
	}
	return l
}

// Slots counts the open streams per caller and per run against Limits.
// It is safe for concurrent use; a server has one.
type Slots struct {
	limits  Limits
	mu      sync.Mutex
	callers map[string]int
	runs    map[uuid.UUID]int
}

// NewSlots returns Slots that enforce l (see Limits.Normalize).
func NewSlots(l Limits) *Slots {
	return &Slots{limits: l.Normalize(), callers: map[string]int{}, runs: map[uuid.UUID]int{}}
}

// Take takes a slot for a stream of run opened by caller. It returns false
// when either bound is reached, and otherwise the release to call once,
// when the stream ends.
func (s *Slots) Take(caller string, run uuid.UUID) (release func(), ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if over(s.callers[caller], s.limits.PerCaller) || over(s.runs[run], s.limits.PerRun) {
		return nil, false
	}
	s.callers[caller]++
	s.runs[run]++
	return sync.OnceFunc(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.callers[caller]--
		if s.callers[caller] <= 0 {
			delete(s.callers, caller)
		}
		s.runs[run]--
		if s.runs[run] <= 0 {
			delete(s.runs, run)
		}
	}), true
}

// Open is the number of streams open now.
func (s *Slots) Open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.callers {
		n += c
	}
	return n
}

// over reports whether n open streams reach bound (negative: none).
func over(n, bound int) bool { return bound >= 0 && n >= bound }
