-- Capacity searches (issue 12): the API finds the highest qps that meets an
-- objective by running one short run per step (exponential probe, then
-- binary search) and judging each step on the merged per-second rows of
-- its run after the warm-up.
--
-- searches.spec is the redacted base spec (its qps is set per step);
-- objective is the threshold conjunction ("p(99) < 50ms and error_rate <
-- 0.1%"). outcome is set when the search completes: found, not_met (even
-- min_qps fails) or above_max (max_qps passes). best_qps is the highest
-- passing qps, first_fail_qps the lowest failing one.
-- search_steps holds one row per step: the run it started and the figures
-- of the seconds after the warm-up.

-- +goose Up
CREATE TABLE searches (
    id             uuid PRIMARY KEY,
    project_id     uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name           text NOT NULL DEFAULT '',
    spec           jsonb NOT NULL,
    objective      text NOT NULL,
    min_qps        double precision NOT NULL,
    max_qps        double precision NOT NULL,
    step_us        bigint NOT NULL,
    warmup_us      bigint NOT NULL,
    resolution     double precision NOT NULL,
    status         text NOT NULL CHECK (status IN ('running', 'completed', 'canceled', 'failed')),
    outcome        text NOT NULL DEFAULT '' CHECK (outcome IN ('', 'found', 'not_met', 'above_max')),
    best_qps       double precision,
    first_fail_qps double precision,
    message        text NOT NULL DEFAULT '',
    created_by     uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    finished_at    timestamptz
);
CREATE INDEX searches_project_idx ON searches (project_id, created_at DESC, id DESC);

CREATE TABLE search_steps (
    search_id     uuid NOT NULL REFERENCES searches (id) ON DELETE CASCADE,
    step          integer NOT NULL CHECK (step >= 0),
    qps           double precision NOT NULL,
    run_id        uuid REFERENCES runs (id) ON DELETE SET NULL,
    status        text NOT NULL CHECK (status IN ('running', 'passed', 'failed', 'error')),
    count         bigint NOT NULL DEFAULT 0,
    errors        bigint NOT NULL DEFAULT 0,
    achieved_qps  double precision NOT NULL DEFAULT 0,
    p50_us        double precision NOT NULL DEFAULT 0,
    p90_us        double precision NOT NULL DEFAULT 0,
    p99_us        double precision NOT NULL DEFAULT 0,
    max_us        double precision NOT NULL DEFAULT 0,
    outcomes      jsonb NOT NULL DEFAULT '[]',
    detail        text NOT NULL DEFAULT '',
    started_at    timestamptz NOT NULL,
    finished_at   timestamptz,
    PRIMARY KEY (search_id, step)
);

-- +goose Down
DROP TABLE search_steps;
DROP TABLE searches;
