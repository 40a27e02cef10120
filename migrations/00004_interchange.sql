-- Results interchange (issue 8): Fortio-compatible export, import of Fortio
-- results, and sync from index.tsv servers and bucket listings.
--
-- runs.seq numbers runs for Fortio's result IDs (YYYY-MM-DD-HHMMSS_<seq>_...),
-- which must be unique across every run /fortio/data serves.
-- run_results.fortio_json (00001) holds the bytes /fortio/data/<ID>.json
-- serves; fortio_md5 and fortio_size let index.tsv list them without
-- reading them.
-- run_imports keeps what an imported document said: its redacted original
-- is run_results.fortio_json; latency holds the figures and buckets derived
-- from it, since such a run has no HDR histograms.
-- sync_runs and sync_run_objects record each sync and each object's
-- outcome; synced_objects dedupes by (source, url, md5).

-- +goose Up
ALTER TABLE projects
    ADD COLUMN public_results boolean NOT NULL DEFAULT false,
    ADD COLUMN target_allow_list text[] NOT NULL DEFAULT '{}';

ALTER TABLE runs ADD COLUMN seq bigserial;
CREATE UNIQUE INDEX runs_seq_idx ON runs (seq);
-- /fortio/data lists completed runs newest first.
CREATE INDEX runs_completed_idx ON runs (project_id, ended_at DESC, id DESC) WHERE status = 'completed';

ALTER TABLE run_results
    ADD COLUMN fortio_md5  bytea,
    ADD COLUMN fortio_size bigint;

CREATE TABLE run_imports (
    run_id  uuid PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    format  text NOT NULL CHECK (format IN ('fortio', 'nighthawk')),
    origin  text NOT NULL DEFAULT '',
    latency jsonb NOT NULL
);

CREATE TABLE sync_sources (
    id               uuid PRIMARY KEY,
    project_id       uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name             text NOT NULL,
    url              text NOT NULL,
    kind             text NOT NULL DEFAULT 'auto' CHECK (kind IN ('auto', 'tsv', 's3v1', 's3v2')),
    interval_minutes integer NOT NULL DEFAULT 0 CHECK (interval_minutes >= 0),
    max_pages        integer NOT NULL DEFAULT 100 CHECK (max_pages > 0),
    max_objects      integer NOT NULL DEFAULT 1000 CHECK (max_objects > 0),
    next_run_at      timestamptz,
    created_by       uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project_id, url)
);
CREATE INDEX sync_sources_list_idx ON sync_sources (project_id, created_at DESC, id DESC);
-- The scheduler claims due sources.
CREATE INDEX sync_sources_due_idx ON sync_sources (next_run_at) WHERE next_run_at IS NOT NULL;

CREATE TABLE sync_runs (
    id         uuid PRIMARY KEY,
    source_id  uuid NOT NULL REFERENCES sync_sources (id) ON DELETE CASCADE,
    trigger    text NOT NULL CHECK (trigger IN ('manual', 'schedule')),
    status     text NOT NULL CHECK (status IN ('running', 'succeeded', 'partial', 'failed')),
    kind       text NOT NULL DEFAULT 'auto',
    started_at timestamptz NOT NULL DEFAULT now(),
    ended_at   timestamptz,
    pages      integer NOT NULL DEFAULT 0,
    imported   integer NOT NULL DEFAULT 0,
    unchanged  integer NOT NULL DEFAULT 0,
    skipped    integer NOT NULL DEFAULT 0,
    failed     integer NOT NULL DEFAULT 0,
    error      text NOT NULL DEFAULT ''
);
CREATE INDEX sync_runs_source_idx ON sync_runs (source_id, started_at DESC);
-- One sync of a source at a time, whichever API replica starts it.
CREATE UNIQUE INDEX sync_runs_running_idx ON sync_runs (source_id) WHERE status = 'running';

CREATE TABLE sync_run_objects (
    sync_run_id uuid NOT NULL REFERENCES sync_runs (id) ON DELETE CASCADE,
    idx         integer NOT NULL,
    url         text NOT NULL,
    size        bigint,
    md5         bytea,
    outcome     text NOT NULL CHECK (outcome IN ('imported', 'unchanged', 'skipped', 'failed')),
    reason      text NOT NULL DEFAULT '',
    run_id      uuid REFERENCES runs (id) ON DELETE SET NULL,
    PRIMARY KEY (sync_run_id, idx)
);

CREATE TABLE synced_objects (
    source_id  uuid NOT NULL REFERENCES sync_sources (id) ON DELETE CASCADE,
    url        text NOT NULL,
    md5        bytea NOT NULL,
    size       bigint NOT NULL,
    run_id     uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (source_id, url, md5)
);

-- +goose Down
DROP TABLE synced_objects;
DROP TABLE sync_run_objects;
DROP TABLE sync_runs;
DROP TABLE sync_sources;
DROP TABLE run_imports;
ALTER TABLE run_results DROP COLUMN fortio_size, DROP COLUMN fortio_md5;
DROP INDEX runs_completed_idx;
DROP INDEX runs_seq_idx;
ALTER TABLE runs DROP COLUMN seq;
ALTER TABLE projects DROP COLUMN target_allow_list, DROP COLUMN public_results;
