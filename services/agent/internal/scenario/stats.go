package scenario

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/barrage-dev/barrage/pkg/hist"
	spec "github.com/barrage-dev/barrage/pkg/scenario"
)

// stepStats accumulates one step's results across iterations.
type stepStats struct {
	skipped atomic.Int64

	mu           sync.Mutex
	count        int64
	errors       int64
	response     *hist.Histogram // from the step's intended start
	service      *hist.Histogram // from the request's actual send
	lag          *hist.Histogram // intended start to actual send
	codes        map[int]int64
	failedChecks map[string]int64
	failedVars   map[string]int64 // extractions that found nothing, by variable
	transport    map[string]int64 // requests that got no response, by kind
}

func newStepStats() *stepStats {
	return &stepStats{
		response: hist.New(), service: hist.New(), lag: hist.New(), codes: map[int]int64{},
		failedChecks: map[string]int64{}, failedVars: map[string]int64{}, transport: map[string]int64{},
	}
}

// record counts a response.
func (s *stepStats) record(status int, response, service, lag time.Duration, out *spec.Outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count++
	s.response.Record(response)
	s.service.Record(service)
	s.lag.Record(lag)
	s.codes[status]++
	for _, name := range out.FailedChecks {
		s.failedChecks[name]++
	}
	for _, v := range out.FailedExtractions {
		s.failedVars[v]++
	}
	if out.Failed() {
		s.errors++
	}
}

// recordError counts a request that got no response (service 0: never
// sent, and no lag either).
func (s *stepStats) recordError(kind string, response, service, lag time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count++
	s.errors++
	s.response.Record(response)
	if service > 0 {
		s.service.Record(service)
		s.lag.Record(lag)
	}
	s.codes[-1]++
	s.transport[kind]++
}

// iterStats accumulates whole iterations.
type iterStats struct {
	started atomic.Int64

	mu        sync.Mutex
	completed int64
	failed    int64
	duration  *hist.Histogram
}

func (it *iterStats) init() { it.duration = hist.New() }

func (it *iterStats) record(d time.Duration, failed bool) {
	it.mu.Lock()
	defer it.mu.Unlock()
	it.duration.Record(d)
	if failed {
		it.failed++
	} else {
		it.completed++
	}
}

func codeKeys(m map[int]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[strconv.Itoa(k)] = v
	}
	return out
}
