-- Resumable capacity searches (issue 26): a search is driven by whichever
-- API replica holds its lease, not by the process that created it, so it
-- survives the loss of that process (docs/capacity-search.md).
--
-- sealed_spec is the real base spec (secret headers, URL userinfo and
-- secret query parameters included) as JSON sealed with AES-256-GCM under
-- the server's BARRAGE_SECRET_KEY (services/api/internal/sealer), which a
-- replica that resumes the search needs to start the next steps; spec
-- stays the redacted one. driver is the API process that drives the search
-- and lease_until when its lease ends unless it renews it; any replica
-- claims a running search whose lease ended. A search created before this
-- migration has no lease (nor sealed spec): it cannot be resumed, and an
-- API ends it as failed once it is left untouched for a minute.

-- +goose Up
ALTER TABLE searches
    ADD COLUMN sealed_spec bytea,
    ADD COLUMN driver uuid,
    ADD COLUMN lease_until timestamptz;
CREATE INDEX searches_lease_idx ON searches (lease_until) WHERE status = 'running';

-- +goose Down
-- Searches running at the down lose their leases; an API of the old
-- version ends them as failed a minute later.
DROP INDEX searches_lease_idx;
ALTER TABLE searches DROP COLUMN lease_until, DROP COLUMN driver, DROP COLUMN sealed_spec;
