-- Distributed execution (docs/architecture.md §3): when a run's shards start and must
-- stop, whether it lost a shard, per-shard progress and final snapshot, the
-- dedupe keys of stored snapshots, and the three latency histograms of each
-- merged second and of the final result.

-- +goose Up
ALTER TABLE runs
    ADD COLUMN start_at timestamptz,
    ADD COLUMN deadline timestamptz,
    ADD COLUMN shard_count integer NOT NULL DEFAULT 0,
    ADD COLUMN degraded boolean NOT NULL DEFAULT false;
-- Sweeps look for runs with agents at work.
CREATE INDEX runs_active_idx ON runs (deadline) WHERE status IN ('dispatching', 'running', 'stopping');

-- Agent names default to the host name and need not be unique; ids are.
ALTER TABLE agents DROP CONSTRAINT agents_name_key;
CREATE INDEX agents_name_idx ON agents (name);

ALTER TABLE run_shards
    ADD COLUMN agent_name     text NOT NULL DEFAULT '',
    ADD COLUMN count          bigint NOT NULL DEFAULT 0,
    ADD COLUMN errors         bigint NOT NULL DEFAULT 0,
    ADD COLUMN final_snapshot bytea;
CREATE INDEX run_shards_agent_idx ON run_shards (agent_id);

-- One row per stored snapshot: a redelivered one hits the primary key and
-- is acked without being counted twice.
CREATE TABLE run_snapshots (
    run_id      uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    shard       integer NOT NULL CHECK (shard >= 0),
    seq         bigint NOT NULL CHECK (seq >= 1),
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, shard, seq)
);

-- hdr (from 00001) is the response-time histogram of the second; p*_us are
-- of it. The other two latencies, the codes and bytes are added here.
ALTER TABLE run_intervals
    ADD COLUMN service_hdr    bytea,
    ADD COLUMN lag_hdr        bytea,
    ADD COLUMN ret_codes      jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN bytes_sent     bigint NOT NULL DEFAULT 0,
    ADD COLUMN bytes_received bigint NOT NULL DEFAULT 0,
    ADD COLUMN snapshots      integer NOT NULL DEFAULT 0,
    ADD COLUMN updated_at     timestamptz NOT NULL DEFAULT now();

ALTER TABLE run_results
    ADD COLUMN lag            bytea,
    ADD COLUMN count          bigint NOT NULL DEFAULT 0,
    ADD COLUMN errors         bigint NOT NULL DEFAULT 0,
    ADD COLUMN bytes_sent     bigint NOT NULL DEFAULT 0,
    ADD COLUMN bytes_received bigint NOT NULL DEFAULT 0,
    ADD COLUMN duration_us    bigint NOT NULL DEFAULT 0,
    ADD COLUMN shards         integer NOT NULL DEFAULT 0,
    ADD COLUMN lost_shards    integer NOT NULL DEFAULT 0;

-- A row whose publish failed, or whose run waits for an agent, is retried
-- from not_before on.
ALTER TABLE outbox ADD COLUMN not_before timestamptz;

-- +goose Down
ALTER TABLE outbox DROP COLUMN not_before;
ALTER TABLE run_results
    DROP COLUMN lost_shards, DROP COLUMN shards, DROP COLUMN duration_us, DROP COLUMN bytes_received,
    DROP COLUMN bytes_sent, DROP COLUMN errors, DROP COLUMN count, DROP COLUMN lag;
ALTER TABLE run_intervals
    DROP COLUMN updated_at, DROP COLUMN snapshots, DROP COLUMN bytes_received, DROP COLUMN bytes_sent,
    DROP COLUMN ret_codes, DROP COLUMN lag_hdr, DROP COLUMN service_hdr;
DROP TABLE run_snapshots;
DROP INDEX run_shards_agent_idx;
ALTER TABLE run_shards
    DROP COLUMN final_snapshot, DROP COLUMN errors, DROP COLUMN count, DROP COLUMN agent_name;
DROP INDEX agents_name_idx;
ALTER TABLE agents ADD CONSTRAINT agents_name_key UNIQUE (name);
DROP INDEX runs_active_idx;
ALTER TABLE runs
    DROP COLUMN degraded, DROP COLUMN shard_count, DROP COLUMN deadline, DROP COLUMN start_at;
