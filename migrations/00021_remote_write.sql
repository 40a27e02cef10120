-- Remote write (issue 29 §2): per project, the Prometheus remote-write
-- endpoint that barrage-api sends its running runs' figures to each
-- second. The URL (without userinfo), the header names and the basic-auth
-- username are in clear; the header values, the password and the bearer
-- token only in sealed_secrets: their JSON sealed with AES-256-GCM under
-- BARRAGE_SECRET_KEY (services/api/internal/sealer).

-- +goose Up
CREATE TABLE remote_writes (
    project_id     uuid PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    url            text NOT NULL,
    header_names   text[] NOT NULL DEFAULT '{}',
    auth           text NOT NULL DEFAULT 'none' CHECK (auth IN ('none', 'basic', 'bearer')),
    username       text NOT NULL DEFAULT '',
    sealed_secrets bytea NOT NULL,
    enabled        boolean NOT NULL DEFAULT true,
    updated_by     uuid REFERENCES users (id) ON DELETE SET NULL,
    updated_at     timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE remote_writes;
