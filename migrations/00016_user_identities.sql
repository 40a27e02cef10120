-- OIDC identities (issue 25 item 6): a user signs in through the identity
-- provider only with an identity linked to them, found by the provider's
-- issuer and the subject it names the person by, never by the email the
-- provider reports. A link is made when auto-provisioning creates the user
-- or when a signed-in user links an identity to their account explicitly.
-- email is the address the provider reported when the link was made, for
-- people reading the table.

-- +goose Up
CREATE TABLE user_identities (
    issuer     text NOT NULL,
    subject    text NOT NULL,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email      text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (issuer, subject)
);
CREATE INDEX user_identities_user_idx ON user_identities (user_id);

-- +goose Down
DROP TABLE user_identities;
