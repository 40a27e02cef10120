-- A stored test's default pooled baseline (issue 30): its runs, scheduled or
-- started without a baseline of their own, are compared with the test's
-- last baseline_last (1 to 20) passing runs, pooled, as runs.baseline_last
-- (00025) asks per run. NULL keeps the newest passing run.

-- +goose Up
ALTER TABLE tests ADD COLUMN baseline_last smallint
    CONSTRAINT tests_baseline_last_check CHECK (baseline_last BETWEEN 1 AND 20);

-- +goose Down
ALTER TABLE tests DROP COLUMN baseline_last;
