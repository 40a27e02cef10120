package store

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
)

// tables lists the public tables other than goose's.
func tables(tb testing.TB, s *Store) []string {
	tb.Helper()
	rows, err := s.DB().QueryContext(ctxT(tb), `SELECT tablename FROM pg_tables
		WHERE schemaname = 'public' AND tablename <> 'goose_db_version' ORDER BY tablename`)
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			tb.Fatal(err)
		}
		out = append(out, name)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// hasColumn reports whether table has column.
func hasColumn(tb testing.TB, s *Store, table, column string) bool {
	tb.Helper()
	var n int
	err := s.DB().QueryRowContext(ctxT(tb),
		"SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND column_name = $2",
		table, column).Scan(&n)
	if err != nil {
		tb.Fatal(err)
	}
	return n == 1
}

func TestMigrateUpDownUp(t *testing.T) {
	t.Parallel()
	s := mustOpen(t)
	ctx := ctxT(t)
	run := func(cmd string) string {
		t.Helper()
		var out bytes.Buffer
		if err := s.Migrate(ctx, cmd, &out); err != nil {
			t.Fatalf("migrate %s: %v", cmd, err)
		}
		return out.String()
	}
	want := []string{
		"agents", "api_tokens", "audit_log", "echo_profiles", "idempotency_keys", "login_failures", "memberships", "orgs", "outbox", "projects",
		"run_imports", "run_intervals", "run_results", "run_shards", "run_snapshots", "run_timelines", "run_written_urls", "runs", "search_steps", "searches", "sessions",
		"sync_run_objects", "sync_runs", "sync_sources", "synced_objects", "tests", "users",
	}
	before04 := slices.DeleteFunc(slices.Clone(want), func(name string) bool {
		return name == "run_imports" || name == "echo_profiles" || name == "login_failures" || name == "run_timelines" || name == "run_written_urls" || strings.HasPrefix(name, "sync") || strings.HasPrefix(name, "search")
	})

	if out := run(MigrateCmdStatus); !strings.HasPrefix(out, "pending  00001_init.sql") {
		t.Errorf("status before up = %q, want 00001_init.sql pending", out)
	}
	if out := run(MigrateCmdUp); !strings.Contains(out, "applied 00001_init.sql") || !strings.Contains(out, "applied 00002_distributed.sql") ||
		!strings.Contains(out, "applied 00003_thresholds.sql") || !strings.Contains(out, "applied 00004_interchange.sql") {
		t.Errorf("up printed %q", out)
	}
	if !hasColumn(t, s, "runs", "threshold_results") || !hasColumn(t, s, "runs", "baseline_run_id") {
		t.Errorf("runs lacks the verdict columns of 00003 after up")
	}
	if got := tables(t, s); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("tables after up = %v, want %v", got, want)
	}
	if out := run(MigrateCmdUp); out != "no pending migrations\n" {
		t.Errorf("second up printed %q", out)
	}
	if out := run(MigrateCmdStatus); !strings.HasPrefix(out, "applied  00001_init.sql at ") {
		t.Errorf("status after up = %q, want 00001_init.sql applied", out)
	}
	if !hasColumn(t, s, "tests", "sealed_spec") {
		t.Error("tests lacks sealed_spec of 00006 after up")
	}
	if !hasColumn(t, s, "login_failures", "locked_until") || !hasColumn(t, s, "sessions", "replaced_by") {
		t.Error("login_failures.locked_until or sessions.replaced_by of 00008 missing after up")
	}
	if !hasColumn(t, s, "run_written_urls", "url") || !hasColumn(t, s, "run_shards", "written_urls") {
		t.Error("run_written_urls or run_shards.written_urls of 00014 missing after up")
	}
	if !hasColumn(t, s, "searches", "lease_until") || !hasColumn(t, s, "searches", "sealed_spec") {
		t.Error("searches.lease_until or searches.sealed_spec of 00019 missing after up")
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00019_search_leases.sql") ||
		hasColumn(t, s, "searches", "lease_until") || hasColumn(t, s, "searches", "driver") || hasColumn(t, s, "searches", "sealed_spec") {
		t.Errorf("down of 00019 printed %q, or a column of searches it added is still there", out)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00014_written_urls.sql") ||
		slices.Contains(tables(t, s), "run_written_urls") || hasColumn(t, s, "run_shards", "written_urls") {
		t.Errorf("down of 00014 printed %q, or run_written_urls or run_shards.written_urls is still there", out)
	}
	if !hasColumn(t, s, "echo_profiles", "content") || !hasColumn(t, s, "runs", "echo_profile") {
		t.Error("echo_profiles or runs.echo_profile of 00013 missing after up")
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00013_echo_profiles.sql") ||
		slices.Contains(tables(t, s), "echo_profiles") || hasColumn(t, s, "runs", "echo_profile") {
		t.Errorf("down of 00013 printed %q, or echo_profiles or runs.echo_profile is still there", out)
	}
	if !hasColumn(t, s, "run_timelines", "samples") {
		t.Error("run_timelines of 00012 missing after up")
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00012_timelines.sql") || slices.Contains(tables(t, s), "run_timelines") {
		t.Errorf("down of 00012 printed %q, or run_timelines is still there", out)
	}
	if !hasColumn(t, s, "run_results", "server") {
		t.Error("run_results.server of 00011 missing after up")
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00011_server_latency.sql") || hasColumn(t, s, "run_results", "server") {
		t.Errorf("down of 00011 printed %q, or run_results.server is still there", out)
	}
	if !hasColumn(t, s, "run_results", "entries") {
		t.Error("run_results lacks entries of 00010 after up")
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00010_entries.sql") || hasColumn(t, s, "run_results", "entries") {
		t.Errorf("down of 00010 printed %q, or run_results.entries is still there", out)
	}
	if !hasColumn(t, s, "searches", "best_qps") || !hasColumn(t, s, "search_steps", "p99_us") {
		t.Error("searches.best_qps or search_steps.p99_us of 00009 missing after up")
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00009_searches.sql") || hasColumn(t, s, "searches", "id") {
		t.Errorf("down of 00009 printed %q, or searches is still there", out)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00008_accounts.sql") || hasColumn(t, s, "login_failures", "failures") {
		t.Errorf("down of 00008 printed %q, or login_failures is still there", out)
	}
	if !hasColumn(t, s, "projects", "max_concurrent_runs") || !hasColumn(t, s, "projects", "max_duration_seconds") {
		t.Error("projects lacks the limit columns of 00007 after up")
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00007_project_limits.sql") || hasColumn(t, s, "projects", "max_qps") {
		t.Errorf("down of 00007 printed %q, or projects.max_qps is still there", out)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00006_sealed_secrets.sql") || hasColumn(t, s, "tests", "sealed_spec") {
		t.Errorf("down of 00006 printed %q, or tests.sealed_spec is still there", out)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00005_schedules.sql") || hasColumn(t, s, "runs", "allow_partial") {
		t.Errorf("down of 00005 printed %q, or runs.allow_partial is still there", out)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00004_interchange.sql") {
		t.Errorf("down of 00004 printed %q", out)
	}
	if got := tables(t, s); strings.Join(got, ",") != strings.Join(before04, ",") || hasColumn(t, s, "runs", "seq") || hasColumn(t, s, "projects", "public_results") {
		t.Errorf("after the down of 00004: tables %v, or runs.seq or projects.public_results still there", got)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00003_thresholds.sql") {
		t.Errorf("first down printed %q", out)
	}
	if got := tables(t, s); len(got) != len(before04) || hasColumn(t, s, "runs", "threshold_results") || hasColumn(t, s, "runs", "baseline_run_id") {
		t.Errorf("after one down: tables %v, verdict columns still there or tables gone", got)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00002_distributed.sql") {
		t.Errorf("second down printed %q", out)
	}
	if got := tables(t, s); slices.Contains(got, "run_snapshots") || !slices.Contains(got, "runs") {
		t.Errorf("tables after two downs = %v, want 00001's tables only", got)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00001_init.sql") {
		t.Errorf("third down printed %q", out)
	}
	if got := tables(t, s); len(got) != 0 {
		t.Errorf("tables after down = %v, want none", got)
	}
	if out := run(MigrateCmdStatus); !strings.HasPrefix(out, "pending  00001_init.sql") {
		t.Errorf("status after down = %q", out)
	}
	run(MigrateCmdUp)
	if got := tables(t, s); len(got) != len(want) {
		t.Errorf("tables after up again = %v, want %v", got, want)
	}
	if err := Migrate(ctx, s.DB(), "sideways", io.Discard); err == nil || !strings.Contains(err.Error(), `unknown command "sideways"`) {
		t.Errorf("unknown command: err = %v", err)
	}
}

// TestMigrateUpConcurrent starts several migrators at once, as replicas
// starting together do: the session lock lets each migration run once.
func TestMigrateUpConcurrent(t *testing.T) {
	t.Parallel()
	s := mustOpen(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = s.MigrateUp(ctxT(t)) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("migrator %d: %v", i, err)
		}
	}
	var applied int
	if err := s.DB().QueryRowContext(ctxT(t), "SELECT count(*) FROM goose_db_version WHERE version_id = 1 AND is_applied").Scan(&applied); err != nil {
		t.Fatal(err)
	}
	if applied != 1 {
		t.Errorf("migration 1 recorded %d times, want 1", applied)
	}
}
