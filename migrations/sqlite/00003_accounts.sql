-- +goose Up
CREATE TABLE users (
    id            INTEGER PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL DEFAULT '',
    password_hash TEXT NOT NULL,
    role          TEXT NOT NULL,
    -- Bumped on a password change: sessions carrying an older epoch are no longer valid.
    session_epoch INTEGER NOT NULL DEFAULT 1,
    created_at    DATETIME NOT NULL,
    updated_at    DATETIME NOT NULL
);

CREATE TABLE sessions (
    token  TEXT PRIMARY KEY,
    data   BLOB NOT NULL,
    expiry DATETIME NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);

CREATE TABLE api_tokens (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   DATETIME NOT NULL,
    last_used_at DATETIME,
    revoked_at   DATETIME
);
CREATE INDEX api_tokens_user_idx ON api_tokens (user_id, id);

CREATE TABLE login_failures (
    id    INTEGER PRIMARY KEY,
    email TEXT NOT NULL,
    ip    TEXT NOT NULL,
    at    DATETIME NOT NULL
);
CREATE INDEX login_failures_email_idx ON login_failures (email, at);
CREATE INDEX login_failures_ip_idx ON login_failures (ip, at);

-- History is append-only: no foreign keys, so nothing deleted elsewhere can take it along.
CREATE TABLE audit_entries (
    id          INTEGER PRIMARY KEY,
    at          DATETIME NOT NULL,
    actor_id    INTEGER,
    actor       TEXT NOT NULL,
    action      TEXT NOT NULL,
    entity      TEXT NOT NULL,
    entity_id   INTEGER NOT NULL,
    incident_id INTEGER,
    changes     TEXT NOT NULL
);
CREATE INDEX audit_entries_incident_idx ON audit_entries (incident_id, at, id);
CREATE INDEX audit_entries_entity_idx ON audit_entries (entity, entity_id, at);

-- +goose Down
DROP TABLE audit_entries;
DROP TABLE login_failures;
DROP TABLE api_tokens;
DROP TABLE sessions;
DROP TABLE users;
