-- Per-request timelines (issue 15): a uniform sample of at most 10,000 of a
-- run's requests, merged from its shards' samples (each weighted by the
-- requests it was drawn from), kept apart from run_results so that reading a
-- result does not read it.
--
-- samples is a gzip-compressed JSON array of
-- {intended_us, sent_us, latency_us, code, ok, entry} ordered by sent_us,
-- times in microseconds from the run's start; seen is the number of requests
-- the sample was drawn from.

-- +goose Up
CREATE TABLE run_timelines (
    run_id  uuid PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    seen    bigint NOT NULL,
    size    integer NOT NULL,
    samples bytea NOT NULL
);

-- +goose Down
DROP TABLE run_timelines;
