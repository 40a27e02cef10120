package report

import (
	"fmt"
	"strings"

	"github.com/barrage-dev/barrage/pkg/resultformat"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// Phases are where an HTTP load's requests spent their time, one latency
// per phase that happened (docs/agent.md, "Where a request's time goes").
// The connection phases count the connections opened (DNS: those whose
// name was looked up); waiting and receiving count the responses.
type Phases struct {
	DNS       *Latency `json:"dns,omitempty"`
	Connect   *Latency `json:"connect,omitempty"`
	TLS       *Latency `json:"tls,omitempty"`
	Waiting   *Latency `json:"waiting,omitempty"`
	Receiving *Latency `json:"receiving,omitempty"`
}

// byPhase returns the fields of p by request.Phase.
func (p *Phases) byPhase() [request.NumPhases]**Latency {
	return [request.NumPhases]**Latency{&p.DNS, &p.Connect, &p.TLS, &p.Waiting, &p.Receiving}
}

// newPhases summarises the phase histograms of final; nil when no request
// had any phase (a protocol other than HTTP).
func newPhases(ph *engine.PhaseHists, ps []float64) (*Phases, error) {
	var out Phases
	found := false
	for i, dst := range out.byPhase() {
		h := ph.Recorded(request.Phase(i))
		if h == nil {
			continue
		}
		l, err := resultformat.NewLatency(h, ps)
		if err != nil {
			return nil, err
		}
		*dst, found = &l, true
	}
	if !found {
		return nil, nil
	}
	return &out, nil
}

// writePhases prints one line per phase, as k6 prints http_req_connecting,
// http_req_tls_handshaking, http_req_waiting and http_req_receiving.
func writePhases(b *strings.Builder, p *Phases) {
	if p == nil {
		return
	}
	b.WriteString("Where the time goes (count: connections opened, or responses):\n")
	for i, l := range p.byPhase() {
		if *l == nil {
			continue
		}
		fmt.Fprintf(b, "  %-10s %8d  avg %s  max %s ", request.Phase(i), (*l).Count, FormatSeconds((*l).Mean), FormatSeconds((*l).Max))
		for _, q := range (*l).Percentiles {
			fmt.Fprintf(b, " p%g %s", q.P, FormatSeconds(q.Value))
		}
		b.WriteString("\n")
	}
}
