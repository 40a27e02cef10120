-- Thresholds and verdicts (issue 9): each finished run keeps the outcome of
-- every threshold it was judged by, and the baseline run its baseline forms
-- ("p(99) < baseline * 1.10") were compared with.
--
-- The outcomes are a jsonb array on the run rather than a table: they are
-- written once, in the update that finishes the run, and only ever read
-- with their run (GET /runs/{id}, the JUnit report), never queried one by
-- one. NULL means the run was not judged (not finished, or canceled).
-- Each element: {"expression", "metric", "unit", "observed", "limit",
-- "pass", "error"}.

-- +goose Up
ALTER TABLE runs
    ADD COLUMN threshold_results jsonb,
    ADD COLUMN baseline_run_id uuid REFERENCES runs (id) ON DELETE SET NULL;
-- The baseline of a run is the newest earlier passing run of its test.
CREATE INDEX runs_baseline_idx ON runs (test_id, created_at DESC)
    WHERE status = 'completed' AND verdict = 'pass';

-- +goose Down
DROP INDEX runs_baseline_idx;
ALTER TABLE runs DROP COLUMN baseline_run_id, DROP COLUMN threshold_results;
