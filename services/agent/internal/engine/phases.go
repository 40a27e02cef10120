package engine

import (
	"time"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// PhaseHists are a snapshot's request phase histograms, by request.Phase
// (docs/agent.md, "Where a request's time goes"). A histogram is nil until
// a request of the run had its phase; its count is the number of requests
// that had it, so the connection phases count the connections opened.
type PhaseHists [request.NumPhases]*hist.Histogram

// record adds the phases of one request sent at sent whose response ended
// at done. The waiting phase starts at the later of sent and the
// connection's Ready (a request that opened its connection waits from the
// end of the set-up). It allocates only the first time a phase is seen.
func (ph *PhaseHists) record(p *request.Phases, sent, done time.Time) {
	if p.Opened != 0 {
		for i := range request.NumConnPhases {
			if p.Has(request.Phase(i)) {
				ph.hist(request.Phase(i)).Record(p.Conn[i])
			}
		}
	}
	if p.FirstByte.IsZero() {
		return
	}
	from := sent
	if p.Ready.After(from) {
		from = p.Ready
	}
	ph.hist(request.PhaseWaiting).Record(p.FirstByte.Sub(from))
	ph.hist(request.PhaseReceiving).Record(done.Sub(p.FirstByte))
}

// hist returns phase p's histogram, made when first needed.
func (ph *PhaseHists) hist(p request.Phase) *hist.Histogram {
	if ph[p] == nil {
		ph[p] = hist.New()
	}
	return ph[p]
}

// add merges o into ph.
func (ph *PhaseHists) add(o *PhaseHists) error {
	for i, h := range o {
		if h == nil || h.Count() == 0 {
			continue
		}
		if err := ph.hist(request.Phase(i)).Merge(h); err != nil {
			return err
		}
	}
	return nil
}

// reset empties every histogram of ph, keeping them for reuse.
func (ph *PhaseHists) reset() {
	for _, h := range ph {
		if h != nil {
			h.Reset()
		}
	}
}

// Recorded returns phase p's histogram when at least one request had
// that phase, else nil.
func (ph *PhaseHists) Recorded(p request.Phase) *hist.Histogram {
	if h := ph[p]; h != nil && h.Count() > 0 {
		return h
	}
	return nil
}
