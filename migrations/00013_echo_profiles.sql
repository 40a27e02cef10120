-- Managed echo fault profiles (issue 12): named sets of barrage-echo default
-- parameters ("status=503:5&delay=100ms:10") stored per project and pushed
-- to registered echo servers over NATS (bucket barrage_echo_profiles).
--
-- runs.echo_profile records the profile active on the echo a run targeted at
-- submit time: {echo, profile_id, name, content}; NULL when the target was no
-- managed echo or NATS was unavailable.

-- +goose Up
CREATE TABLE echo_profiles (
    id         uuid PRIMARY KEY,
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name       text NOT NULL,
    content    text NOT NULL,
    created_by uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (project_id, name)
);

ALTER TABLE runs ADD COLUMN echo_profile jsonb;

-- +goose Down
ALTER TABLE runs DROP COLUMN echo_profile;
DROP TABLE echo_profiles;
