-- +goose Up
-- Set when an admin disables the account: it can no longer sign in by any means.
ALTER TABLE users ADD COLUMN disabled_at DATETIME;

-- Who an account is at an OpenID provider: the pair (issuer, subject) is the only identity a
-- provider promises stays the same, so accounts are found by it, never by email alone.
CREATE TABLE oidc_identities (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    issuer          TEXT NOT NULL,
    subject         TEXT NOT NULL,
    created_at      DATETIME NOT NULL,
    last_sign_in_at DATETIME NOT NULL,
    UNIQUE (issuer, subject)
);
CREATE INDEX oidc_identities_user_idx ON oidc_identities (user_id);

-- +goose Down
DROP TABLE oidc_identities;
ALTER TABLE users DROP COLUMN disabled_at;
