-- Data lifecycle (issue 26): pinned runs, per-project retention, and the
-- indexes that deleting a run needs.
--
-- runs.pinned keeps a run from retention and from a delete without
-- force. runs.intervals_dropped_at is when retention dropped the run's
-- per-second rows (run_intervals, run_snapshots and run_shards'
-- final_snapshot); its summary and merged result (run_results) stay.
--
-- projects.interval_retention_days drops the per-second rows of the
-- project's runs that many days after they were created; run_retention_days
-- drops the whole runs. NULL keeps them forever. Pinned runs keep
-- everything, and runs that are a baseline are not dropped
-- (docs/reliability.md, "Data lifecycle").
--
-- Deleting a run sets NULL or cascades through every table that refers to
-- runs; without an index on the referring column each delete scans that
-- table, so the referring columns that no primary key leads get one.

-- +goose Up
ALTER TABLE runs
    ADD COLUMN pinned boolean NOT NULL DEFAULT false,
    ADD COLUMN intervals_dropped_at timestamptz;
ALTER TABLE projects
    ADD COLUMN interval_retention_days integer CHECK (interval_retention_days > 0),
    ADD COLUMN run_retention_days      integer CHECK (run_retention_days > 0);

-- Retention looks for a project's old runs whose per-second rows remain.
CREATE INDEX runs_intervals_kept_idx ON runs (project_id, created_at) WHERE intervals_dropped_at IS NULL;
CREATE INDEX runs_baseline_run_idx ON runs (baseline_run_id) WHERE baseline_run_id IS NOT NULL;
CREATE INDEX runs_baseline_request_idx ON runs (baseline_request) WHERE baseline_request IS NOT NULL;
CREATE INDEX idempotency_keys_run_idx ON idempotency_keys (run_id);
CREATE INDEX sync_run_objects_run_idx ON sync_run_objects (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX synced_objects_run_idx ON synced_objects (run_id);
CREATE INDEX search_steps_run_idx ON search_steps (run_id) WHERE run_id IS NOT NULL;

-- +goose Down
DROP INDEX search_steps_run_idx;
DROP INDEX synced_objects_run_idx;
DROP INDEX sync_run_objects_run_idx;
DROP INDEX idempotency_keys_run_idx;
DROP INDEX runs_baseline_request_idx;
DROP INDEX runs_baseline_run_idx;
DROP INDEX runs_intervals_kept_idx;
ALTER TABLE projects DROP COLUMN run_retention_days, DROP COLUMN interval_retention_days;
ALTER TABLE runs DROP COLUMN intervals_dropped_at, DROP COLUMN pinned;
