package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/barrage-dev/barrage/pkg/hist"
)

// barWidth is the width of the longest bar of the text histogram.
const barWidth = 40

// WriteText writes the human summary of r: rate achieved, the latencies,
// a compact histogram of the primary one, result codes and bytes.
func WriteText(w io.Writer, r *Result) error {
	var b strings.Builder
	target := "max"
	if r.RequestedQPS > 0 {
		target = fmt.Sprintf("%g", r.RequestedQPS)
	}
	conns := fmt.Sprintf("%d connections", r.Connections)
	if n := r.Spec.Streams(); n > 1 {
		conns += fmt.Sprintf(" × %d streams", n)
	}
	fmt.Fprintf(&b, "Ended after %.3fs: %d calls, %.1f qps (target %s), %s, %d errors (%.2f %%)\n",
		r.DurationSeconds, r.Count, r.ActualQPS, target, conns, r.Errors, percent(r.Errors, r.Count))
	if r.Aborted {
		fmt.Fprintf(&b, "Aborted on code %d\n", r.Spec.AbortOn)
	}
	if r.Dropped > 0 {
		fmt.Fprintf(&b, "Dropped %d scheduled calls: the target or the %d connections could not keep up with the rate\n",
			r.Dropped, r.Connections)
	}
	writeLatency(&b, "Response time (from intended send; coordinated omission corrected)", &r.Response, r.Primary == "response")
	writeLatency(&b, "Service time (from actual send)", &r.Service, r.Primary == "service")
	writeLatency(&b, "Lag (intended → actual send)", &r.Lag, false)
	if r.Server != nil {
		writeLatency(&b, fmt.Sprintf("Server time (reported in %s by %d of %d responses)", r.Spec.LatencyHeader, r.Server.Count, r.Count),
			r.Server, false)
	}
	writePhases(&b, r.Phases)
	if err := writeHistogram(&b, r.PrimaryLatency(), r.Primary); err != nil {
		return err
	}
	b.WriteString("Codes:\n")
	for _, code := range r.sortedCodes() {
		n := r.RetCodes[code]
		fmt.Fprintf(&b, "  %-10s %10d  (%.1f %%)\n", code, n, percent(n, r.Count))
	}
	if r.Count > 0 {
		fmt.Fprintf(&b, "Bytes: sent %d (%.0f per call), received %d (%.0f per call)\n",
			r.BytesSent, float64(r.BytesSent)/float64(r.Count), r.BytesReceived, float64(r.BytesReceived)/float64(r.Count))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeLatency(b *strings.Builder, title string, l *Latency, primary bool) {
	mark := ""
	if primary {
		mark = " [primary]"
	}
	fmt.Fprintf(b, "%s%s:\n", title, mark)
	if l.Count == 0 {
		b.WriteString("  no data\n")
		return
	}
	fmt.Fprintf(b, "  min %s  avg %s ± %s  max %s\n ", FormatSeconds(l.Min), FormatSeconds(l.Mean), FormatSeconds(l.StdDev), FormatSeconds(l.Max))
	for _, p := range l.Percentiles {
		fmt.Fprintf(b, " p%g %s", p.P, FormatSeconds(p.Value))
	}
	b.WriteString("\n")
}

// writeHistogram prints the Fortio-bucket view of the primary histogram as bars.
func writeHistogram(b *strings.Builder, l *Latency, name string) error {
	if l.Count == 0 {
		return nil
	}
	h, err := hist.Decode([]byte(l.HDR))
	if err != nil {
		return fmt.Errorf("decode %s histogram: %w", name, err)
	}
	buckets := h.Fortio(nil).Data
	var most int64
	for _, bk := range buckets {
		most = max(most, bk.Count)
	}
	fmt.Fprintf(b, "Histogram (%s time):\n", name)
	for _, bk := range buckets {
		bar := strings.Repeat("█", int(float64(barWidth)*float64(bk.Count)/float64(most)+0.5))
		fmt.Fprintf(b, "  %9s – %-9s %-*s %6.2f %% %d\n", FormatSeconds(bk.Start), FormatSeconds(bk.End), barWidth, bar, bk.Percent, bk.Count)
	}
	return nil
}

func percent(n, total int64) float64 {
	if total == 0 {
		return 0
	}
	return 100 * float64(n) / float64(total)
}
