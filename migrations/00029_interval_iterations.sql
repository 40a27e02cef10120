-- A scenario run's iterations per second (issue 32): each second of
-- run_intervals (00001) counts the iterations its shards started, completed
-- and failed in it, from the interval snapshots' fields 33 to 35. Zero for
-- runs without a scenario and for seconds stored before 00029.

-- +goose Up
ALTER TABLE run_intervals
    ADD COLUMN iterations_started   bigint NOT NULL DEFAULT 0,
    ADD COLUMN iterations_completed bigint NOT NULL DEFAULT 0,
    ADD COLUMN iterations_failed    bigint NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE run_intervals
    DROP COLUMN iterations_failed, DROP COLUMN iterations_completed, DROP COLUMN iterations_started;
