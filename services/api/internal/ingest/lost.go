package ingest

import (
	"fmt"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// withLostShards makes m count what lost shards sent before they were
// lost, as docs/reliability.md promises: a degraded run's result holds the
// finished shards' finals plus the lost shards' stored seconds. The run's
// seconds hold every shard's interval snapshots (the finished shards'
// seconds add up to their finals), so their merge replaces the finals'
// requests, codes, bytes and latencies; per-entry figures, server latency,
// request phases, the timeline and the duration stay those of the finished
// shards, whose finals alone carry them. It reports false, leaving m as it was, when the
// seconds count fewer requests than the finals and the lost shards' stored
// counts (lostSent): a finished shard's interval snapshot is then still on
// its way, and the finals are the better figure.
func (m *merged) withLostShards(seconds []runs.Interval, lostSent int64) (bool, error) {
	lat := newLatencies()
	var codes map[string]int64
	var count, errs, sent, recv int64
	for i := range seconds {
		iv := &seconds[i]
		for k, b := range [3][]byte{iv.Response, iv.Service, iv.Lag} {
			h, err := decodeHist(b)
			if err != nil {
				return false, fmt.Errorf("second %d: %w", iv.Second, err)
			}
			if err := lat[k].Merge(h); err != nil {
				return false, fmt.Errorf("second %d: %w", iv.Second, err)
			}
		}
		codes = addCodes(codes, iv.RetCodes)
		count += iv.Count
		errs += iv.Errors
		sent += iv.BytesSent
		recv += iv.BytesReceived
	}
	if count < m.count+lostSent {
		return false, nil
	}
	if codes == nil {
		codes = map[string]int64{}
	}
	m.lat, m.codes, m.count, m.errors, m.bytesSent, m.bytesRecv = lat, codes, count, errs, sent, recv
	return true, nil
}
