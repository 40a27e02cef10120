-- A baseline of several runs (issue 30): a run may ask to be compared with
-- the last N (1 to 20) passing runs of its test, pooled, instead of the
-- newest one or a named run (baseline_request). baseline_pool records what
-- was pooled when the run was judged: {"runs": [ids, newest first],
-- "note": "..."} (the note says when fewer runs than asked were pooled);
-- NULL for runs that asked for no pool. baseline_run_id keeps the newest
-- pooled run.

-- +goose Up
ALTER TABLE runs ADD COLUMN baseline_last smallint
    CONSTRAINT runs_baseline_last_check CHECK (baseline_last BETWEEN 1 AND 20);
ALTER TABLE runs ADD COLUMN baseline_pool jsonb;
ALTER TABLE runs ADD CONSTRAINT runs_baseline_one_check
    CHECK (baseline_last IS NULL OR baseline_request IS NULL);

-- +goose Down
ALTER TABLE runs DROP CONSTRAINT runs_baseline_one_check;
ALTER TABLE runs DROP COLUMN baseline_pool;
ALTER TABLE runs DROP COLUMN baseline_last;
