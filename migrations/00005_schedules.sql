-- CI gate, second part (issue 9): test schedules, a run's explicit
-- baseline, allow_partial, and the abort threshold that stopped a run.
--
-- tests.schedule (00001) is a 5-field cron expression; timezone is the IANA
-- zone it is read in; next_run_at is when it next fires (NULL without a
-- schedule), claimed by the scheduler that holds the leader lock.
-- runs.baseline_request is the baseline the caller asked for (the
-- finisher compares with it instead of the last passing run); the
-- baseline actually used stays in baseline_run_id (00003).

-- +goose Up
ALTER TABLE tests
    ADD COLUMN timezone text NOT NULL DEFAULT 'UTC',
    ADD COLUMN next_run_at timestamptz;
CREATE INDEX tests_due_idx ON tests (next_run_at) WHERE next_run_at IS NOT NULL;

ALTER TABLE runs
    ADD COLUMN allow_partial boolean NOT NULL DEFAULT false,
    ADD COLUMN baseline_request uuid REFERENCES runs (id) ON DELETE SET NULL,
    ADD COLUMN aborted_by text NOT NULL DEFAULT '';
-- The scheduler skips a tick while the test's previous scheduled run is active.
CREATE INDEX runs_scheduled_active_idx ON runs (test_id)
    WHERE source = 'schedule' AND status IN ('queued', 'dispatching', 'running', 'stopping');

-- +goose Down
DROP INDEX runs_scheduled_active_idx;
ALTER TABLE runs DROP COLUMN aborted_by, DROP COLUMN baseline_request, DROP COLUMN allow_partial;
DROP INDEX tests_due_idx;
ALTER TABLE tests DROP COLUMN next_run_at, DROP COLUMN timezone;
