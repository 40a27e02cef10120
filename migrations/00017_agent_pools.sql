-- Agent pools (issue 25 item 7): the pools an org admin restricts a
-- project's runs to. An agent's pool is bound in its NATS credential
-- (`barrage-api nats-auth ... -pool`); the dispatcher gives a run of a
-- project with pools only agents of one of them. Empty: every agent.

-- +goose Up
ALTER TABLE projects ADD COLUMN agent_pools text[] NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE projects DROP COLUMN agent_pools;
