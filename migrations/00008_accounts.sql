-- Sign-in hardening (issue 10): account lockout with backoff and session
-- rotation.
--
-- login_failures counts consecutive failed sign-ins per email address tried,
-- whether or not a user has it, so a locked account answers like an unknown
-- address (no oracle). A success resets the row; failures older than a day
-- no longer count. locked_until refuses sign-in until then.
--
-- sessions.replaced_by is the session a rotation issued in place of this
-- one: a replaced session keeps working for a short grace (its expires_at is
-- moved to the end of the grace) and is never rotated twice.

-- +goose Up
CREATE TABLE login_failures (
    email          text PRIMARY KEY, -- lower-cased
    failures       integer NOT NULL,
    last_failed_at timestamptz NOT NULL,
    locked_until   timestamptz
);
CREATE INDEX login_failures_last_idx ON login_failures (last_failed_at);
ALTER TABLE sessions ADD COLUMN replaced_by uuid;

-- +goose Down
ALTER TABLE sessions DROP COLUMN replaced_by;
DROP TABLE login_failures;
