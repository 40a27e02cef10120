-- A scenario run's merged per-step results (issue 32, docs/scenarios.md):
-- iterations started, completed and failed, the iteration histogram and a
-- row per step (counts, codes, failed checks by name, histograms), as JSON
-- (services/api/internal/store/results_scenario.go). NULL for other runs.

-- +goose Up
ALTER TABLE run_results ADD COLUMN scenario jsonb;

-- +goose Down
ALTER TABLE run_results DROP COLUMN scenario;
