-- Request mixes (issue 15): the merged result of each entry of a run's
-- request mix, kept beside the run's total.
--
-- run_results.entries is a JSON array, in the spec's order, of
-- {index, count, errors, ret_codes, bytes_sent, bytes_received, service, response}
-- where service and response are HdrHistogram encodings (pkg/hist, base64
-- text). NULL for a run without a mix.

-- +goose Up
ALTER TABLE run_results ADD COLUMN entries jsonb;

-- +goose Down
ALTER TABLE run_results DROP COLUMN entries;
