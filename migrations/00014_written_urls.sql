-- Written URLs (issue 15): with record_written_urls, the URLs of a run's
-- successful writes (method not GET, HEAD or OPTIONS, status 2xx), as the
-- agents' interval snapshots carry them, at most 1,000,000 per run, so that
-- they can be downloaded and read back by a later run (urls_from_run).
--
-- A row is one URL of one snapshot: (run_id, shard, seq) is the snapshot's
-- key in run_snapshots and idx its place in the snapshot, so a redelivered
-- snapshot adds no row. The list reads in key order: by shard, then
-- snapshot, then place. run_shards.written_urls counts each shard's rows.

-- +goose Up
CREATE TABLE run_written_urls (
    run_id uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    shard  integer NOT NULL CHECK (shard >= 0),
    seq    bigint NOT NULL CHECK (seq >= 1),
    idx    integer NOT NULL CHECK (idx >= 0),
    url    text NOT NULL,
    PRIMARY KEY (run_id, shard, seq, idx)
);

ALTER TABLE run_shards ADD COLUMN written_urls bigint NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE run_shards DROP COLUMN written_urls;
DROP TABLE run_written_urls;
