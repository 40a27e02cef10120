//go:build verdictsbench

package app

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/barrage-dev/barrage/services/api/client"
)

// neverPasses is a threshold no run meets: the judged runs of a pooled
// campaign carry it so that none of them, whatever its other outcomes,
// is a passing run of the test, which the pool would then take in. Only
// the baseline runs are pooled. Its outcome comes after benchThresholds'
// and is not tallied.
const neverPasses = "count < 0"

// benchPool is one worker's pooled baseline: a stored test whose spec is
// set before each of its runs (the target's delays change, the test does
// not, as when a service regresses), whose baseline runs pass and are
// pooled, and whose judged runs ask for its last n passing runs.
type benchPool struct {
	b          *bench
	test, name string
	n          int
}

// newPool creates worker w's test and fills its pool with n - 1 baseline
// runs, so that the first pair's baseline completes it.
func (b *bench) newPool(w int) (*benchPool, error) {
	name := "verdicts-pool-" + strconv.Itoa(w)
	status, _, raw := b.e.do(b.t, http.MethodPost, "/tests", b.e.AdminToken,
		map[string]any{"project": "default", "name": name, "spec": b.spec(0)})
	if status != http.StatusCreated {
		return nil, fmt.Errorf("create test: %d %s", status, raw)
	}
	p := &benchPool{b: b, test: decode[client.Test](b.t, raw).Id.String(), name: name, n: b.d.pool}
	for range p.n - 1 {
		body, err := p.baseline()
		if err != nil {
			return nil, err
		}
		r, err := b.run(body)
		if err != nil {
			return nil, fmt.Errorf("fill the pool: %w", err)
		}
		if r.Status != "completed" || r.Degraded {
			return nil, fmt.Errorf("pool run ended %s (degraded %v)", r.Status, r.Degraded)
		}
		b.profiled("base", r)
	}
	return p, nil
}

// setSpec points the test at the echo with delays change percent longer.
func (p *benchPool) setSpec(change float64) error {
	status, _, raw := p.b.e.do(p.b.t, http.MethodPut, "/tests/"+p.test, p.b.e.AdminToken,
		map[string]any{"name": p.name, "spec": p.b.spec(change)})
	if status != http.StatusOK {
		return fmt.Errorf("set the test's spec: %d %s", status, raw)
	}
	return nil
}

// baseline sets the test's spec to the baseline's and returns the body
// of a baseline run of it: no thresholds, so it passes and joins the pool.
func (p *benchPool) baseline() (map[string]any, error) {
	if err := p.setSpec(0); err != nil {
		return nil, err
	}
	return map[string]any{"test": p.test, "name": "verdicts-base"}, nil
}

// judged returns the body of a judged run with delays change percent
// longer, against the test's last n passing runs.
func (p *benchPool) judged(change float64) (map[string]any, error) {
	if err := p.setSpec(change); err != nil {
		return nil, err
	}
	return map[string]any{"test": p.test, "name": "verdicts-pair", "baseline_last": p.n,
		"thresholds": append(append([]string{}, benchThresholds...), neverPasses)}, nil
}
