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
		"remote_writes", "run_imports", "run_intervals", "run_results", "run_shards", "run_snapshots", "run_timelines", "run_written_urls", "runs", "search_steps", "searches", "sessions",
		"sync_run_objects", "sync_runs", "sync_sources", "synced_objects", "tests", "user_identities", "users",
	}
	before04 := slices.DeleteFunc(slices.Clone(want), func(name string) bool {
		return name == "run_imports" || name == "remote_writes" || name == "echo_profiles" || name == "login_failures" || name == "run_timelines" || name == "run_written_urls" || strings.HasPrefix(name, "sync") || strings.HasPrefix(name, "search") || name == "user_identities"
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
	if !hasColumn(t, s, "runs", "pinned") || !hasColumn(t, s, "runs", "intervals_dropped_at") ||
		!hasColumn(t, s, "projects", "interval_retention_days") || !hasColumn(t, s, "projects", "run_retention_days") {
		t.Error("runs.pinned, runs.intervals_dropped_at or the projects' retention columns of 00020 missing after up")
	}
	if !verdictAllowed(t, s, "inconclusive") {
		t.Error("verdict inconclusive of 00022 refused after up")
	}
	if !hasColumn(t, s, "run_results", "phases") {
		t.Error("run_results.phases of 00023 missing after up")
	}
	if !hasColumn(t, s, "runs", "baseline_last") || !hasColumn(t, s, "runs", "baseline_pool") {
		t.Error("runs.baseline_last or runs.baseline_pool of 00025 missing after up")
	}
	if !hasColumn(t, s, "tests", "baseline_last") {
		t.Error("tests.baseline_last of 00026 missing after up")
	}
	if !hasColumn(t, s, "run_snapshots", "second") || !hasColumn(t, s, "run_snapshots", "cpu_cores") {
		t.Error("run_snapshots.second or run_snapshots.cpu_cores of 00027 missing after up")
	}
	if !hasColumn(t, s, "run_results", "scenario") {
		t.Error("run_results.scenario of 00028 missing after up")
	}
	if !hasColumn(t, s, "run_intervals", "iterations_started") || !hasColumn(t, s, "run_intervals", "iterations_failed") {
		t.Error("run_intervals.iterations_started or iterations_failed of 00029 missing after up")
	}
	if !hasColumn(t, s, "run_intervals", "service_p50_us") || !hasColumn(t, s, "run_intervals", "lag_max_us") {
		t.Error("run_intervals.service_p50_us or lag_max_us of 00030 missing after up")
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00030_interval_quantiles.sql") || hasColumn(t, s, "run_intervals", "service_p50_us") {
		t.Errorf("down of 00030 printed %q, or run_intervals.service_p50_us is still there", out)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00029_interval_iterations.sql") || hasColumn(t, s, "run_intervals", "iterations_started") {
		t.Errorf("down of 00029 printed %q, or run_intervals.iterations_started is still there", out)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00028_result_scenario.sql") || hasColumn(t, s, "run_results", "scenario") {
		t.Errorf("down of 00028 printed %q, or run_results.scenario is still there", out)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00027_shard_seconds.sql") || hasColumn(t, s, "run_snapshots", "second") {
		t.Errorf("down of 00027 printed %q, or run_snapshots.second is still there", out)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00026_test_baseline_last.sql") || hasColumn(t, s, "tests", "baseline_last") {
		t.Errorf("down of 00026 printed %q, or tests.baseline_last is still there", out)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00025_baseline_last.sql") ||
		hasColumn(t, s, "runs", "baseline_last") || hasColumn(t, s, "runs", "baseline_pool") {
		t.Errorf("down of 00025 printed %q, or a column it added is still there", out)
	}
	limitedCols := func() []bool {
		return []bool{hasColumn(t, s, "run_intervals", "generator_limited"), hasColumn(t, s, "run_results", "generator_limited_seconds"),
			hasColumn(t, s, "runs", "verdict_note")}
	}
	if cols := limitedCols(); slices.Contains(cols, false) {
		t.Errorf("run_intervals.generator_limited, run_results.generator_limited_seconds, runs.verdict_note of 00024 after up: %v", cols)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00024_generator_limited.sql") || slices.Contains(limitedCols(), true) {
		t.Errorf("down of 00024 printed %q, or its columns are still there: %v", out, limitedCols())
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00023_request_phases.sql") || hasColumn(t, s, "run_results", "phases") {
		t.Errorf("down of 00023 printed %q, or run_results.phases is still there", out)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00022_inconclusive_verdict.sql") || !verdictAllowed(t, s, "pass") ||
		verdictAllowed(t, s, "inconclusive") {
		t.Errorf("down of 00022 printed %q, or verdict inconclusive is still allowed", out)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00021_remote_write.sql") || slices.Contains(tables(t, s), "remote_writes") {
		t.Errorf("down of 00021 printed %q, or remote_writes is still there", out)
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00020_data_lifecycle.sql") ||
		hasColumn(t, s, "runs", "pinned") || hasColumn(t, s, "runs", "intervals_dropped_at") || hasColumn(t, s, "projects", "run_retention_days") {
		t.Errorf("down of 00020 printed %q, or a column it added is still there", out)
	}
	if !hasColumn(t, s, "searches", "lease_until") || !hasColumn(t, s, "searches", "sealed_spec") {
		t.Error("searches.lease_until or searches.sealed_spec of 00019 missing after up")
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00019_search_leases.sql") ||
		hasColumn(t, s, "searches", "lease_until") || hasColumn(t, s, "searches", "driver") || hasColumn(t, s, "searches", "sealed_spec") {
		t.Errorf("down of 00019 printed %q, or a column of searches it added is still there", out)
	}
	if !hasColumn(t, s, "login_failures", "client") {
		t.Error("login_failures.client of 00018 missing after up")
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00018_login_failures_by_client.sql") || hasColumn(t, s, "login_failures", "client") {
		t.Errorf("down of 00018 printed %q, or login_failures.client is still there", out)
	}
	if !hasColumn(t, s, "projects", "agent_pools") {
		t.Error("projects.agent_pools of 00017 missing after up")
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00017_agent_pools.sql") || hasColumn(t, s, "projects", "agent_pools") {
		t.Errorf("down of 00017 printed %q, or projects.agent_pools is still there", out)
	}
	if !hasColumn(t, s, "user_identities", "subject") {
		t.Error("user_identities of 00016 missing after up")
	}
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00016_user_identities.sql") || slices.Contains(tables(t, s), "user_identities") {
		t.Errorf("down of 00016 printed %q, or user_identities is still there", out)
	}
	if !hasColumn(t, s, "run_written_urls", "url") || !hasColumn(t, s, "run_shards", "written_urls") {
		t.Error("run_written_urls or run_shards.written_urls of 00014 missing after up")
	}
	grandfatherTargetPolicy(t, s, run)
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

// grandfatherTargetPolicy rolls 00015 back, stores a project whose
// allow-list a project admin set before organisation policies existed,
// applies 00015 again and checks that the list stays in force: granted to
// that project, under an organisation policy of "*" (docs/security.md,
// "Target policy"). It leaves 00015 rolled back.
func grandfatherTargetPolicy(t *testing.T, s *Store, run func(string) string) {
	t.Helper()
	if out := run(MigrateCmdDown); !strings.Contains(out, "rolled back 00015_target_policy.sql") ||
		hasColumn(t, s, "orgs", "target_allow_list") || hasColumn(t, s, "projects", "target_allow_granted") {
		t.Errorf("down of 00015 printed %q, or orgs.target_allow_list or projects.target_allow_granted is still there", out)
	}
	ctx := ctxT(t)
	const org, proj = "00000000-0000-7000-8000-00000000000a", "00000000-0000-7000-8000-00000000000b"
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO orgs (id, slug, name) VALUES ($1, 'o', 'O')`, org); err != nil {
		t.Fatalf("insert an organisation of before 00015: %v", err)
	}
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO projects (id, org_id, slug, name, target_allow_list)
		VALUES ($1, $2, 'p', 'P', '{10.0.0.0/8,unix:/run/app.sock,*}')`, proj, org); err != nil {
		t.Fatalf("insert a project of before 00015: %v", err)
	}
	if out := run(MigrateCmdUp); !strings.Contains(out, "applied 00015_target_policy.sql") {
		t.Errorf("up of 00015 printed %q", out)
	}
	var policy, granted textArray
	if err := s.DB().QueryRowContext(ctx, `SELECT o.target_allow_list, p.target_allow_granted FROM projects p JOIN orgs o ON o.id = p.org_id
		WHERE p.id = $1`, proj).Scan(&policy, &granted); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(policy, []string{"*"}) || !slices.Equal(granted, []string{"10.0.0.0/8", "unix:/run/app.sock", "*"}) {
		t.Errorf("after 00015: org policy %q, project granted %q; want [*] and the project's whole list", policy, granted)
	}
	if _, err := s.DB().ExecContext(ctx, `DELETE FROM orgs WHERE id = $1`, org); err != nil {
		t.Fatal(err)
	}
	// Up applied the later migrations too: roll back to before 00015 again.
	// Bounded well above the migrations there are after 00015, so that a new one needs no change here.
	const most = 100
	for range most {
		if out := run(MigrateCmdDown); strings.Contains(out, "rolled back 00015_target_policy.sql") {
			return
		}
	}
	t.Errorf("%d downs did not roll 00015 back again", most)
}

// verdictAllowed reports whether the runs table's check accepts verdict v.
func verdictAllowed(tb testing.TB, s *Store, v string) bool {
	tb.Helper()
	var ok bool
	err := s.conn(ctxT(tb)).Raw(`SELECT pg_get_constraintdef(oid) LIKE '%' || ? || '%' FROM pg_constraint WHERE conname = 'runs_verdict_check'`,
		"'"+v+"'").Scan(&ok).Error
	if err != nil {
		tb.Fatal(err)
	}
	return ok
}
