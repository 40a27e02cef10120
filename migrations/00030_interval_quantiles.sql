-- The service and lag percentiles of each second (issue 31, "Big runs stay
-- fast"): run_intervals (00001) has kept the response time's p50, p90, p99
-- and max since it began; ingest now stores the same four of the service
-- time and the lag, so that a page of seconds is read without decoding two
-- HDR histograms a second. NULL for seconds stored before 00030, which are
-- read from their histograms as before.

-- +goose Up
ALTER TABLE run_intervals
    ADD COLUMN service_p50_us double precision,
    ADD COLUMN service_p90_us double precision,
    ADD COLUMN service_p99_us double precision,
    ADD COLUMN service_max_us double precision,
    ADD COLUMN lag_p50_us     double precision,
    ADD COLUMN lag_p90_us     double precision,
    ADD COLUMN lag_p99_us     double precision,
    ADD COLUMN lag_max_us     double precision;

-- +goose Down
ALTER TABLE run_intervals
    DROP COLUMN lag_max_us, DROP COLUMN lag_p99_us, DROP COLUMN lag_p90_us, DROP COLUMN lag_p50_us,
    DROP COLUMN service_max_us, DROP COLUMN service_p99_us, DROP COLUMN service_p90_us, DROP COLUMN service_p50_us;
