//go:build accuracy

package accuracy_test

import (
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/testcert"
	"github.com/barrage-dev/barrage/services/agent/internal/cli"
	"github.com/barrage-dev/barrage/services/agent/internal/report"
)

// phaseCounts are the counts of a native result's request phases, -1 for
// a phase it does not have.
type phaseCounts struct{ dns, connect, tls, waiting, receiving int64 }

func countsOf(p *report.Phases) phaseCounts {
	n := func(l *report.Latency) int64 {
		if l == nil {
			return -1
		}
		return l.Count
	}
	if p == nil {
		return phaseCounts{-1, -1, -1, -1, -1}
	}
	return phaseCounts{n(p.DNS), n(p.Connect), n(p.TLS), n(p.Waiting), n(p.Receiving)}
}

// p50 returns l's median in seconds.
func p50(t *testing.T, l *report.Latency) float64 {
	t.Helper()
	for _, q := range l.Percentiles {
		if q.P == 50 {
			return q.Value
		}
	}
	t.Fatal("no p50 in the result")
	return 0
}

// TestPhasesAgainstEcho: `barrage-agent load` against the real
// barrage-echo records each request's phases in the native JSON. Over
// keep-alive, connect (and TLS) count exactly the connections and waiting
// and receiving every request; with a new connection per request, connect
// and TLS count every request; a name (localhost) has a DNS phase, an IP
// none; h2 over TLS records the same phases; the echo's 20 ms delay is in
// waiting. The text output has the phase lines.
func TestPhasesAgainstEcho(t *testing.T) {
	cert, key, _ := testcert.Write(t)
	plain := startEcho(t)
	tls := startEcho(t, "-cert", cert, "-key", key)
	port := plain.http[strings.LastIndex(plain.http, ":")+1:]
	for _, c := range []struct {
		name string
		args []string
		want phaseCounts
	}{
		{"http keep-alive", []string{"-c", "4", "-n", "200", "http://" + plain.http + "/?delay=20ms"}, phaseCounts{-1, 4, -1, 200, 200}},
		{"http by name", []string{"-c", "2", "-n", "40", "http://localhost:" + port + "/?delay=20ms"}, phaseCounts{2, 2, -1, 40, 40}},
		{"https keep-alive", []string{"-k", "-c", "3", "-n", "60", "https://" + tls.http + "/?delay=20ms"}, phaseCounts{-1, 3, 3, 60, 60}},
		{"https per request", []string{"-k", "-max-requests-per-connection", "1", "-c", "2", "-n", "30", "https://" + tls.http + "/?delay=20ms"},
			phaseCounts{-1, 30, 30, 30, 30}},
		{"h2", []string{"-k", "-alpn", "h2", "-c", "2", "-n", "40", "https://" + tls.http + "/?delay=20ms"}, phaseCounts{-1, 2, 2, 40, 40}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stderr, res := agentLoad(t, append([]string{"-qps", "80"}, c.args...)...)
			if code != cli.ExitOK || res.Errors != 0 {
				t.Fatalf("exit %d errors %d codes %v\n%s", code, res.Errors, res.RetCodes, stderr)
			}
			if got := countsOf(res.Phases); got != c.want {
				t.Fatalf("phase counts (dns, connect, tls, waiting, receiving) %+v, want %+v", got, c.want)
			}
			if w := p50(t, res.Phases.Waiting); w < 0.020 || w > p50(t, &res.Service) {
				t.Errorf("waiting p50 %.4fs, want ≥ the echo's 20 ms delay and ≤ the service p50 %.4fs", w, p50(t, &res.Service))
			}
		})
	}
	var stdout, stderr strings.Builder
	code := cli.Main(runCtx(t), []string{"barrage-agent", "load", "-k", "-qps", "80", "-c", "2", "-n", "20", "https://" + tls.http + "/"}, nil, &stdout, &stderr)
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	for _, line := range []string{"Where the time goes", "  connect           2 ", "  tls               2 ", "  waiting          20 ", "  receiving        20 "} {
		if !strings.Contains(stdout.String(), line) {
			t.Errorf("text output has no %q:\n%s", line, stdout.String())
		}
	}
}
