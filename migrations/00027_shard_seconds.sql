-- Per-agent lines (issue 31): each interval snapshot's row in run_snapshots
-- (00002) keeps a small summary of its shard's second, so that the run page
-- can draw one line per agent without keeping per-shard histograms. About 40
-- bytes a row; NULL on final snapshots, on rows stored before 00027 and on
-- a lost shard's snapshot that arrived after its run ended (not merged).
-- Retention drops them with the row (store/retention.go).

-- +goose Up
ALTER TABLE run_snapshots
    ADD COLUMN second          integer,
    ADD COLUMN count           bigint,
    ADD COLUMN errors          bigint,
    ADD COLUMN qps             real,
    ADD COLUMN service_p50_us  real,
    ADD COLUMN service_p99_us  real,
    ADD COLUMN response_p99_us real,
    ADD COLUMN lag_p99_us      real,
    ADD COLUMN cpu_used        real,
    ADD COLUMN cpu_cores       real;

-- +goose Down
ALTER TABLE run_snapshots
    DROP COLUMN cpu_cores, DROP COLUMN cpu_used, DROP COLUMN lag_p99_us, DROP COLUMN response_p99_us,
    DROP COLUMN service_p99_us, DROP COLUMN service_p50_us, DROP COLUMN qps, DROP COLUMN errors,
    DROP COLUMN count, DROP COLUMN second;
