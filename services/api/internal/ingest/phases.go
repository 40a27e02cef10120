package ingest

import (
	"fmt"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/resultformat"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
)

// phaseHists are the request phase histograms of a snapshot or a merge,
// in the order of resultformat.PhaseNames; nil for a phase none of the
// requests had (docs/agent.md, "Where a request's time goes").
type phaseHists [resultformat.PhaseCount]*hist.Histogram

// decodePhases decodes m's request phase histograms; an empty one is absent.
func decodePhases(m *barragev1.Snapshot) (phaseHists, error) {
	var out phaseHists
	names := resultformat.PhaseNames()
	for i, b := range [resultformat.PhaseCount][]byte{m.GetDnsHdr(), m.GetConnectHdr(), m.GetTlsHdr(), m.GetWaitingHdr(), m.GetReceivingHdr()} {
		if len(b) == 0 {
			continue
		}
		h, err := hist.Decode(b)
		if err != nil {
			return out, fmt.Errorf("%s_hdr histogram: %w", names[i], err)
		}
		out[i] = h
	}
	return out, nil
}

// mergePhases adds every phase of add to dst, phase by phase.
func mergePhases(dst, add *phaseHists) error {
	for i, h := range add {
		if h == nil {
			continue
		}
		if dst[i] == nil {
			dst[i] = hist.New()
		}
		if err := dst[i].Merge(h); err != nil {
			return fmt.Errorf("%s phase: %w", resultformat.PhaseNames()[i], err)
		}
	}
	return nil
}

// encodePhases encodes the phases of ph that are there, for runs.Result.
func encodePhases(ph *phaseHists) ([resultformat.PhaseCount][]byte, error) {
	var out [resultformat.PhaseCount][]byte
	for i, h := range ph {
		if h == nil {
			continue
		}
		b, err := h.Encode()
		if err != nil {
			return out, fmt.Errorf("%s phase: %w", resultformat.PhaseNames()[i], err)
		}
		out[i] = b
	}
	return out, nil
}
