-- Per-project limits (issue 10): a project admin's caps on what the
-- project's runs may ask for, each at most the deployment's own
-- (BARRAGE_MAX_*; the API checks that on every change). NULL is the
-- deployment's limit. max_concurrent_runs counts the project's runs that
-- are queued, dispatching, running or stopping.

-- +goose Up
ALTER TABLE projects
    ADD COLUMN max_qps              double precision CHECK (max_qps > 0),
    ADD COLUMN max_connections      integer CHECK (max_connections > 0),
    ADD COLUMN max_duration_seconds integer CHECK (max_duration_seconds > 0),
    ADD COLUMN max_agents           integer CHECK (max_agents > 0),
    ADD COLUMN max_concurrent_runs  integer CHECK (max_concurrent_runs > 0);

-- +goose Down
ALTER TABLE projects
    DROP COLUMN max_qps,
    DROP COLUMN max_connections,
    DROP COLUMN max_duration_seconds,
    DROP COLUMN max_agents,
    DROP COLUMN max_concurrent_runs;
