-- A generator that is the bottleneck says so (issue 29 §4): a second of a
-- run is generator_limited when, for some shard, its agent used more than
-- 90 % of the cores it may use or the shard's send lag p99 exceeded 10 %
-- of the interval between its sends (services/api/internal/ingest/generator.go).
-- The result keeps how many seconds were, and the run the note its verdict
-- carries then. Rows stored before this migration were never judged: false,
-- 0 and ''.

-- +goose Up
ALTER TABLE run_intervals ADD COLUMN generator_limited boolean NOT NULL DEFAULT false;
ALTER TABLE run_results ADD COLUMN generator_limited_seconds integer NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN verdict_note text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE runs DROP COLUMN verdict_note;
ALTER TABLE run_results DROP COLUMN generator_limited_seconds;
ALTER TABLE run_intervals DROP COLUMN generator_limited;
