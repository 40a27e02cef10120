package httpapi

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// csvOut (format=fortio-csv) renders a run's headline latency histogram (a
// scenario run's iteration durations, as its Fortio JSON) as Fortio's -csv
// output: StartMs,EndMs,Percent,Count, one row per non-empty bucket,
// Percent cumulative.
func csvOut(run runs.Run, res runs.Result) ([]byte, error) {
	var buckets []hist.FortioBucket
	if imp := res.Imported; imp != nil {
		var seen int64
		for _, b := range imp.Latency.Buckets {
			seen += b.Count
			pct := 0.0
			if imp.Latency.Count > 0 {
				pct = 100 * float64(seen) / float64(imp.Latency.Count)
			}
			buckets = append(buckets, hist.FortioBucket{Start: b.StartUS / 1e6, End: b.EndUS / 1e6, Percent: pct, Count: b.Count})
		}
	} else {
		if enc := res.FortioHDR(run); len(enc) > 0 {
			h, err := hist.Decode(enc)
			if err != nil {
				return nil, fmt.Errorf("result of run %s: decode histogram: %w", run.ID, err)
			}
			buckets = h.Fortio(nil).Data
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	rows := [][]string{{"StartMs", "EndMs", "Percent", "Count"}}
	ms := func(sec float64) string { return strconv.FormatFloat(sec*1000, 'g', -1, 64) }
	for _, b := range buckets {
		rows = append(rows, []string{ms(b.Start), ms(b.End), strconv.FormatFloat(b.Percent, 'g', -1, 64), strconv.FormatInt(b.Count, 10)})
	}
	if err := w.WriteAll(rows); err != nil {
		return nil, fmt.Errorf("write csv: %w", err)
	}
	return buf.Bytes(), nil
}
