-- Redaction (issue 10): a stored test keeps its redacted spec in clear in
-- tests.spec, for people and tools reading the database, and its real spec
-- (Authorization and other secret headers, URL userinfo, secret query
-- parameters) only in sealed_spec: its JSON sealed with AES-256-GCM under
-- the server's BARRAGE_SECRET_KEY (services/api/internal/sealer). A test
-- saved before this migration has no sealed_spec and its spec is the real
-- one until it is saved again.

-- +goose Up
ALTER TABLE tests ADD COLUMN sealed_spec bytea;

-- +goose Down
-- The secrets of tests saved since the up are lost: their spec is redacted.
ALTER TABLE tests DROP COLUMN sealed_spec;
