package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	apiclient "github.com/barrage-dev/barrage/services/api/client"

	"github.com/jackc/pgx/v5"

	"github.com/barrage-dev/barrage/pkg/hist"
)

// Shape of the seeded results and of the compare phase.
const (
	// resultVariants is how many distinct histogram pairs the results
	// share (by the first byte of the run id).
	resultVariants = 8
	// resultValues is the requests in each seeded histogram (a run of
	// 100 qps for 10 s).
	resultValues = 1000
	// comparePool is how many completed runs the compared ones are drawn from.
	comparePool = 5000
)

// compareSizes are the numbers of runs compared, one case each.
func compareSizes() []int { return []int{2, 5, 10} }

// resultSeed is what seeding run_results did.
type resultSeed struct {
	rows     int64
	took     time.Duration
	rowBytes int // response + service histogram bytes of one row
}

// seedResults gives every completed run a run_results row, as a finished
// two-shard run leaves one: merged response and service histograms
// (resultVariants pairs of resultValues log-normal latencies, encoded with
// pkg/hist), return codes and totals from the run's summary columns. One
// INSERT ... SELECT, then VACUUM (ANALYZE).
func seedResults(ctx context.Context, db *pgx.Conn) (resultSeed, error) {
	start := time.Now()
	rng := rand.New(rand.NewPCG(13, 13)) //nolint:gosec // deterministic bench data, not security
	responses, services := make([][]byte, resultVariants), make([][]byte, resultVariants)
	var out resultSeed
	for v := range resultVariants {
		resp, svc := hist.New(), hist.New()
		for range resultValues {
			us := math.Exp(6.5 + 0.1*float64(v) + 0.5*rng.NormFloat64()) // median ≈ 665 µs and up
			resp.RecordMicros(int64(us) + 20)
			svc.RecordMicros(int64(us))
		}
		var err error
		if responses[v], err = resp.Encode(); err != nil {
			return out, fmt.Errorf("encode a response histogram: %w", err)
		}
		if services[v], err = svc.Encode(); err != nil {
			return out, fmt.Errorf("encode a service histogram: %w", err)
		}
	}
	out.rowBytes = len(responses[0]) + len(services[0])
	tag, err := db.Exec(ctx, `
INSERT INTO run_results (run_id, response, service, ret_codes, count, errors, bytes_sent, bytes_received,
                         duration_us, shards, lost_shards, created_at)
SELECT r.id, ($1::bytea[])[1 + v.k], ($2::bytea[])[1 + v.k],
       jsonb_build_object('200', r.count - r.errors)
         || CASE WHEN r.errors > 0 THEN jsonb_build_object('503', r.errors) ELSE '{}'::jsonb END,
       r.count, r.errors, r.count * 120, r.count * 350, 10000000, 2, 0, r.ended_at
FROM runs r CROSS JOIN LATERAL (SELECT get_byte(uuid_send(r.id), 0) % $3 AS k) AS v
WHERE r.status = 'completed'`, responses, services, resultVariants)
	if err != nil {
		return out, fmt.Errorf("seed run_results: %w", err)
	}
	out.rows = tag.RowsAffected()
	if _, err := db.Exec(ctx, "VACUUM (ANALYZE) run_results"); err != nil {
		return out, fmt.Errorf("vacuum run_results: %w", err)
	}
	out.took = time.Since(start)
	return out, nil
}

// compareCase is one number of runs compared, timed repeatedly.
type compareCase struct {
	runs int
	lat  []time.Duration
}

// compares is what the compare phase measured.
type compares struct {
	seed  resultSeed
	pool  int
	cases []*compareCase
	usage phaseUsage
}

// measureCompare times GET /runs/compare of 2, 5 and 10 completed runs of
// the project drawn at random from comparePool of them, the cases taking
// turns; every answer must hold each run asked, with its figures.
func measureCompare(ctx context.Context, cfg config, cl *client, db *pgx.Conn, pr *probe, project string) (compares, error) {
	var out compares
	rows, err := db.Query(ctx, `SELECT id::text FROM runs WHERE project_id = $1::uuid AND status = 'completed'
		ORDER BY random() LIMIT $2`, project, comparePool)
	if err != nil {
		return out, fmt.Errorf("pick runs to compare: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(ids) < 10 {
		return out, fmt.Errorf("pick runs to compare: %d runs, %w", len(ids), err)
	}
	out.pool = len(ids)
	for _, n := range compareSizes() {
		out.cases = append(out.cases, &compareCase{runs: n})
	}
	rng := rand.New(rand.NewPCG(7, 7)) //nolint:gosec // which runs to compare, not security
	before := pr.sample()
	for round := range cfg.warmup + cfg.compareSamples {
		for _, c := range out.cases {
			lat, err := compareOnce(ctx, cl, pick(rng, ids, c.runs))
			if err != nil {
				return out, err
			}
			if round >= cfg.warmup {
				c.lat = append(c.lat, lat)
			}
		}
	}
	out.usage = pr.since(before, "compare: timed requests", len(out.cases)*(cfg.warmup+cfg.compareSamples))
	return out, nil
}

// pick returns n distinct ids drawn from ids.
func pick(rng *rand.Rand, ids []string, n int) []string {
	idx := rng.Perm(len(ids))[:n]
	out := make([]string, n)
	for i, j := range idx {
		out[i] = ids[j]
	}
	return out
}

// compareOnce sends one GET /runs/compare and checks its answer.
func compareOnce(ctx context.Context, cl *client, ids []string) (time.Duration, error) {
	q := url.Values{"ids": {strings.Join(ids, ",")}}
	status, data, lat, err := cl.do(ctx, http.MethodGet, "/runs/compare?"+q.Encode(), nil)
	if err != nil {
		return 0, err
	}
	if status != http.StatusOK {
		return 0, fmt.Errorf("GET /runs/compare of %d runs: status %d: %s", len(ids), status, snippet(data))
	}
	var page apiclient.RunComparison
	if err := json.Unmarshal(data, &page); err != nil {
		return 0, fmt.Errorf("GET /runs/compare: decode: %w", err)
	}
	if len(page.Items) != len(ids) {
		return 0, fmt.Errorf("GET /runs/compare of %d runs: %d items", len(ids), len(page.Items))
	}
	for i := range page.Items {
		it := &page.Items[i]
		count, p99 := deref(it.Count), deref(it.P99Us)
		if it.Id.String() != ids[i] || count <= 0 || p99 <= 0 {
			return 0, fmt.Errorf("GET /runs/compare: item %d is %s with count %d, p99 %.0f µs; want %s with figures",
				i, it.Id, count, p99, ids[i])
		}
	}
	return lat, nil
}

// deref returns *p, or zero when p is nil (a figure the run has not got).
func deref[T int64 | float64](p *T) T {
	if p == nil {
		return 0
	}
	return *p
}
