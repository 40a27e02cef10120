-- Server latency (issue 14): a run whose spec names a latency_header records
-- the latency the target reported in that response header as a fourth HDR
-- histogram. run_results.server is its merge over the shards' finals (an
-- HdrHistogram encoding, pkg/hist); NULL when the run read no such header.

-- +goose Up
ALTER TABLE run_results ADD COLUMN server bytea;

-- +goose Down
ALTER TABLE run_results DROP COLUMN server;
