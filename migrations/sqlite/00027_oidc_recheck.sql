-- +goose Up
-- The provider's refresh token of an identity's last sign-in, sealed with a key derived from the
-- client secret (empty when the provider issued none), and when the provider last vouched for
-- the identity: the re-check asks the provider again with it and ends the account's sessions
-- when the provider refuses.
ALTER TABLE oidc_identities ADD COLUMN refresh_token TEXT NOT NULL DEFAULT '';
ALTER TABLE oidc_identities ADD COLUMN checked_at DATETIME;

-- +goose Down
ALTER TABLE oidc_identities DROP COLUMN checked_at;
ALTER TABLE oidc_identities DROP COLUMN refresh_token;
