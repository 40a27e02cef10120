-- Request phases (issue 28): a run's merged result keeps the HDR histogram
-- of each request phase that happened (dns, connect, tls, waiting,
-- receiving) as a JSON object from the phase's name to its encoding (the
-- base64 text of pkg/hist). NULL for runs without phases: other
-- protocols, imports and runs stored before this migration.

-- +goose Up
ALTER TABLE run_results ADD COLUMN phases jsonb;

-- +goose Down
ALTER TABLE run_results DROP COLUMN phases;
