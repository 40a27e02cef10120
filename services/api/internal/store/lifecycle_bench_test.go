//go:build lifecyclebench

package store

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/internal/retention"
)

// TestLifecycleBench seeds BENCH_LIFECYCLE_RUNS finished runs of
// BENCH_LIFECYCLE_SECONDS seconds on 2 shards, created evenly over the
// last 60 days, in the database BENCH_LIFECYCLE_DATABASE_URL (which
// bench/lifecycle creates and drops), sets the project's retention to 7
// days of intervals and 30 days of runs, runs one retention pass with the
// job's defaults and prints the table sizes before and after as Markdown.
// It is a benchmark (bench/lifecycle), not part of make test.
func TestLifecycleBench(t *testing.T) {
	url := os.Getenv("BENCH_LIFECYCLE_DATABASE_URL")
	if url == "" {
		t.Fatal("set BENCH_LIFECYCLE_DATABASE_URL (bench/lifecycle does)")
	}
	n := envInt(t, "BENCH_LIFECYCLE_RUNS", 200000)
	secs := envInt(t, "BENCH_LIFECYCLE_SECONDS", 10)
	hdrBytes := envInt(t, "BENCH_LIFECYCLE_HDR_BYTES", 300)
	ctx := t.Context()
	s, err := Open(ctx, url, Options{MaxOpenConns: 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := Migrate(ctx, s.DB(), MigrateCmdUp, io.Discard); err != nil {
		t.Fatal(err)
	}
	db := s.conn(ctx)
	exec := func(q string, args ...any) time.Duration {
		t.Helper()
		start := time.Now()
		if err := db.Exec(q, args...).Error; err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return time.Since(start)
	}
	exec(`INSERT INTO orgs (id, slug, name) VALUES ('00000000-0000-0000-0000-0000000000aa', 'bench', 'bench')`)
	exec(`INSERT INTO projects (id, org_id, slug, name) VALUES ('00000000-0000-0000-0000-0000000000bb', '00000000-0000-0000-0000-0000000000aa', 'bench', 'bench')`)
	hdr := `decode(repeat(md5('x'), ` + strconv.Itoa(hdrBytes/16+1) + `), 'hex')`
	seed := exec(`INSERT INTO runs (id, project_id, name, status, verdict, source, spec, target, created_at, updated_at, ended_at, shard_count, count)
		SELECT gen_random_uuid(), '00000000-0000-0000-0000-0000000000bb', 'bench ' || g, 'completed', 'fail', 'api', '{}', 'http://t/',
			now() - g * (interval '60 days' / ?), now(), now(), 2, 1000 FROM generate_series(1, ?) g`, n, n)
	seed += exec(`INSERT INTO run_shards (run_id, shard, status, last_seq, final_received, count, final_snapshot)
		SELECT r.id, sh, 'done', ?, true, 500, `+hdr+` FROM runs r, generate_series(0, 1) sh`, secs)
	seed += exec(`INSERT INTO run_intervals (run_id, second, count, hdr, service_hdr, lag_hdr, ret_codes, snapshots, p50_us, p90_us, p99_us, max_us)
		SELECT r.id, s, 1000, `+hdr+`, `+hdr+`, `+hdr+`, '{"200": 1000}', 2, 200, 400, 900, 5000 FROM runs r, generate_series(0, ? - 1) s`, secs)
	seed += exec(`INSERT INTO run_snapshots (run_id, shard, seq) SELECT r.id, sh, q FROM runs r, generate_series(0, 1) sh, generate_series(1, ?) q`, secs)
	seed += exec(`INSERT INTO run_results (run_id, response, service, lag, count) SELECT id, ` + hdr + `, ` + hdr + `, ` + hdr + `, 1000 FROM runs`)
	exec(`VACUUM ANALYZE`)
	before := sizes(t, s)
	exec(`UPDATE projects SET interval_retention_days = 7, run_retention_days = 30`)

	job := retention.New(retention.Options{Store: s, Log: slog.New(slog.DiscardHandler)})
	start := time.Now()
	c, err := job.Pass(ctx)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	after := sizes(t, s)
	exec(`VACUUM ANALYZE`)
	vacuumed := sizes(t, s)

	var b strings.Builder
	fmt.Fprintf(&b, "Seeded %d runs × %d s × 2 shards (HDR values of %d bytes) in %s.\n\n", n, secs, hdrBytes, seed.Round(time.Second))
	fmt.Fprintf(&b, "Retention pass (7 days of intervals, 30 days of runs; batch 500 rows / 50 runs, 20 ms pause): %s; "+
		"%d runs dropped, intervals of %d runs dropped, %d rows of run_intervals/run_snapshots/run_written_urls deleted, %d transactions "+
		"(%.1f ms each on average, pauses included).\n\n",
		took.Round(time.Second), c.Runs, c.IntervalRuns, c.Rows, c.Batches, float64(took.Milliseconds())/float64(max(c.Batches, 1)))
	fmt.Fprintf(&b, "| table | rows before | table+TOAST before | indexes before | rows after | table+TOAST after | indexes after | after VACUUM (table+TOAST / indexes) |\n|---|---|---|---|---|---|---|---|\n")
	for _, tb := range []string{"runs", "run_shards", "run_intervals", "run_snapshots", "run_results"} {
		x, y, z := before[tb], after[tb], vacuumed[tb]
		fmt.Fprintf(&b, "| `%s` | %d | %s | %s | %d | %s | %s | %s / %s |\n", tb, x.rows, mb(x.table), mb(x.index), y.rows, mb(y.table), mb(y.index), mb(z.table), mb(z.index))
	}
	_, _ = os.Stdout.WriteString(b.String() + "\n")
}

// relSize is one table's row count and sizes in bytes.
type relSize struct{ rows, table, index int64 }

// sizes returns the row count, table size (with TOAST) and index size of
// the run tables.
func sizes(t *testing.T, s *Store) map[string]relSize {
	t.Helper()
	out := map[string]relSize{}
	for _, tb := range []string{"runs", "run_shards", "run_intervals", "run_snapshots", "run_results"} {
		var r struct{ Rows, Tbl, Idx int64 }
		err := s.conn(t.Context()).Raw(`SELECT (SELECT count(*) FROM `+tb+`) AS rows,
			pg_total_relation_size(?::regclass) - pg_indexes_size(?::regclass) AS tbl, pg_indexes_size(?::regclass) AS idx`, tb, tb, tb).Scan(&r).Error
		if err != nil {
			t.Fatal(err)
		}
		out[tb] = relSize{rows: r.Rows, table: r.Tbl, index: r.Idx}
	}
	return out
}

// mb formats bytes as MiB.
func mb(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// envInt reads a positive integer from the environment, or def.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}
