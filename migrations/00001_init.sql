-- Barrage's first schema: tenancy (orgs, users, projects, memberships,
-- tokens, sessions), stored tests, runs with their shards, per-second
-- intervals and final results, the agent registry, the dispatch outbox,
-- idempotency keys and the audit log. Table names are the contract with
-- services/api/internal/store (docs/architecture.md §5).

-- +goose Up
CREATE TABLE orgs (
    id         uuid PRIMARY KEY,
    slug       text NOT NULL UNIQUE,
    name       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id            uuid PRIMARY KEY,
    org_id        uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    email         text NOT NULL,
    name          text NOT NULL DEFAULT '',
    password_hash text,
    is_admin      boolean NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL DEFAULT now(),
    disabled_at   timestamptz
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE projects (
    id          uuid PRIMARY KEY,
    org_id      uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    slug        text NOT NULL,
    name        text NOT NULL,
    description text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (org_id, slug)
);

CREATE TABLE memberships (
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       text NOT NULL CHECK (role IN ('viewer', 'runner', 'admin')),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, user_id)
);
CREATE INDEX memberships_user_idx ON memberships (user_id);

-- A token with no project acts with its user's own rights (the bootstrap
-- admin token); a project token is limited to that project and role.
CREATE TABLE api_tokens (
    id           uuid PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    project_id   uuid REFERENCES projects (id) ON DELETE CASCADE,
    role         text CHECK (role IN ('viewer', 'runner', 'admin')),
    name         text NOT NULL,
    hash         bytea NOT NULL UNIQUE,
    hint         text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz,
    last_used_at timestamptz,
    revoked_at   timestamptz,
    CHECK ((project_id IS NULL) = (role IS NULL))
);
CREATE INDEX api_tokens_project_idx ON api_tokens (project_id, created_at DESC, id DESC);

CREATE TABLE sessions (
    id           uuid PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    hash         bytea NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    revoked_at   timestamptz
);
CREATE INDEX sessions_user_idx ON sessions (user_id);

CREATE TABLE tests (
    id          uuid PRIMARY KEY,
    project_id  uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name        text NOT NULL,
    description text NOT NULL DEFAULT '',
    spec        jsonb NOT NULL,
    thresholds  text[] NOT NULL DEFAULT '{}',
    labels      jsonb NOT NULL DEFAULT '{}',
    schedule    text,
    created_by  uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project_id, name)
);
CREATE INDEX tests_list_idx ON tests (project_id, created_at DESC, id DESC);

CREATE TABLE agents (
    id             uuid PRIMARY KEY,
    name           text NOT NULL UNIQUE,
    labels         jsonb NOT NULL DEFAULT '{}',
    version        text NOT NULL DEFAULT '',
    capacity       integer NOT NULL DEFAULT 0,
    running_shards integer NOT NULL DEFAULT 0,
    rss_bytes      bigint NOT NULL DEFAULT 0,
    cpu_percent    double precision NOT NULL DEFAULT 0,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_seen_at   timestamptz NOT NULL DEFAULT now()
);

-- runs keeps the (redacted) spec it ran with, and summary columns that lists
-- and comparisons read without touching the histograms.
CREATE TABLE runs (
    id              uuid PRIMARY KEY,
    project_id      uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    test_id         uuid REFERENCES tests (id) ON DELETE SET NULL,
    name            text NOT NULL DEFAULT '',
    status          text NOT NULL CHECK (status IN ('queued', 'dispatching', 'running', 'stopping', 'completed', 'failed', 'canceled')),
    verdict         text CHECK (verdict IN ('pass', 'fail', 'error')),
    source          text NOT NULL CHECK (source IN ('ui', 'api', 'schedule', 'import', 'sync')),
    spec            jsonb NOT NULL,
    thresholds      text[] NOT NULL DEFAULT '{}',
    labels          jsonb NOT NULL DEFAULT '{}',
    target          text NOT NULL,
    qps_requested   double precision NOT NULL DEFAULT 0,
    created_by      uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    started_at      timestamptz,
    ended_at        timestamptz,
    error           text NOT NULL DEFAULT '',
    count           bigint NOT NULL DEFAULT 0,
    errors          bigint NOT NULL DEFAULT 0,
    qps_actual      double precision,
    min_us          double precision,
    avg_us          double precision,
    p50_us          double precision,
    p90_us          double precision,
    p99_us          double precision,
    max_us          double precision
);
-- Keyset pagination: newest first within a project, across every project
-- (org admins), per test (which also serves ON DELETE SET NULL from tests)
-- or per status; labels are matched with @>.
CREATE INDEX runs_list_idx ON runs (project_id, created_at DESC, id DESC);
CREATE INDEX runs_created_idx ON runs (created_at DESC, id DESC);
CREATE INDEX runs_test_idx ON runs (test_id, created_at DESC, id DESC);
CREATE INDEX runs_status_idx ON runs (project_id, status, created_at DESC, id DESC);
CREATE INDEX runs_labels_idx ON runs USING gin (labels jsonb_path_ops);

CREATE TABLE run_shards (
    run_id         uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    shard          integer NOT NULL CHECK (shard >= 0),
    agent_id       uuid REFERENCES agents (id) ON DELETE SET NULL,
    qps            double precision NOT NULL DEFAULT 0,
    connections    integer NOT NULL DEFAULT 0,
    status         text NOT NULL DEFAULT 'assigned' CHECK (status IN ('assigned', 'running', 'done', 'lost')),
    last_seq       bigint NOT NULL DEFAULT -1,
    final_received boolean NOT NULL DEFAULT false,
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, shard)
);

CREATE TABLE run_intervals (
    run_id     uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    second     integer NOT NULL CHECK (second >= 0),
    count      bigint NOT NULL DEFAULT 0,
    errors     bigint NOT NULL DEFAULT 0,
    hdr        bytea NOT NULL,
    p50_us     double precision NOT NULL DEFAULT 0,
    p90_us     double precision NOT NULL DEFAULT 0,
    p99_us     double precision NOT NULL DEFAULT 0,
    max_us     double precision NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, second)
);

CREATE TABLE run_results (
    run_id      uuid PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    response    bytea,
    service     bytea,
    ret_codes   jsonb NOT NULL DEFAULT '{}',
    sizes       bytea,
    header_sizes bytea,
    fortio_json bytea,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- outbox rows are written in the transaction that changes a run and
-- published to NATS by the dispatcher afterwards.
CREATE TABLE outbox (
    id           bigserial PRIMARY KEY,
    topic        text NOT NULL,
    key          text NOT NULL,
    payload      jsonb NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    attempts     integer NOT NULL DEFAULT 0,
    published_at timestamptz
);
CREATE INDEX outbox_pending_idx ON outbox (id) WHERE published_at IS NULL;

CREATE TABLE idempotency_keys (
    project_id   uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    key          text NOT NULL,
    request_hash bytea NOT NULL,
    run_id       uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, key)
);

CREATE TABLE audit_log (
    id          bigserial PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    project_id  uuid REFERENCES projects (id) ON DELETE SET NULL,
    user_id     uuid REFERENCES users (id) ON DELETE SET NULL,
    token_id    uuid REFERENCES api_tokens (id) ON DELETE SET NULL,
    action      text NOT NULL,
    target_kind text NOT NULL,
    target_id   text NOT NULL,
    details     jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_project_idx ON audit_log (project_id, at DESC);

-- +goose Down
DROP TABLE audit_log;
DROP TABLE idempotency_keys;
DROP TABLE outbox;
DROP TABLE run_results;
DROP TABLE run_intervals;
DROP TABLE run_shards;
DROP TABLE runs;
DROP TABLE agents;
DROP TABLE tests;
DROP TABLE sessions;
DROP TABLE api_tokens;
DROP TABLE memberships;
DROP TABLE projects;
DROP TABLE users;
DROP TABLE orgs;
