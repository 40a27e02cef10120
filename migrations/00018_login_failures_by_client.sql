-- Sign-in lockout per email and client address (issue 25 item 4).
--
-- login_failures was keyed on the email alone, so anyone who knew an
-- address could keep its owner locked out. It is now keyed on the email and
-- the client address the failures came from (as barrage-api resolves it:
-- the peer, or X-Forwarded-For from BARRAGE_TRUSTED_PROXIES): a stranger's
-- failures lock the stranger's address only. client is '' for rows written
-- before this migration. How sign-in bounds guessing across addresses is in
-- docs/security.md ("The HTTP edge").

-- +goose Up
ALTER TABLE login_failures ADD COLUMN client text NOT NULL DEFAULT '';
ALTER TABLE login_failures DROP CONSTRAINT login_failures_pkey;
ALTER TABLE login_failures ADD PRIMARY KEY (email, client);

-- +goose Down
-- The counts are transient (a day at most): forgetting them is safe, and
-- one email may have several rows that the old key cannot hold.
DELETE FROM login_failures;
ALTER TABLE login_failures DROP CONSTRAINT login_failures_pkey;
ALTER TABLE login_failures DROP COLUMN client;
ALTER TABLE login_failures ADD PRIMARY KEY (email);
