-- +goose Up
-- Webhook endpoints an admin configured: where events go, which ones, and the key they are
-- signed with (Standard Webhooks, "whsec_" + base64). The key signs, so it is kept as given.
CREATE TABLE webhook_endpoints (
    id              INTEGER PRIMARY KEY,
    url             TEXT NOT NULL,
    description     TEXT NOT NULL DEFAULT '',
    events          TEXT NOT NULL,
    format          TEXT NOT NULL DEFAULT 'standard',
    secret          TEXT NOT NULL,
    enabled         BOOLEAN NOT NULL DEFAULT TRUE,
    failing_since   DATETIME,
    disabled_at     DATETIME,
    disabled_reason TEXT NOT NULL DEFAULT '',
    created_at      DATETIME NOT NULL,
    updated_at      DATETIME NOT NULL
);

-- The outbox: one row per message and endpoint, written in the transaction of the change that
-- caused it, claimed by a worker for a lease (claimed_by, claimed_until) while it is sent.
CREATE TABLE webhook_deliveries (
    id              INTEGER PRIMARY KEY,
    endpoint_id     INTEGER NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    message_id      TEXT NOT NULL UNIQUE,
    event_type      TEXT NOT NULL,
    payload         TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending',
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at DATETIME NOT NULL,
    retry_until     DATETIME NOT NULL,
    claimed_by      TEXT NOT NULL DEFAULT '',
    claimed_until   DATETIME,
    last_status     INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT NOT NULL DEFAULT '',
    created_at      DATETIME NOT NULL,
    delivered_at    DATETIME
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (state, next_attempt_at);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);

-- Every attempt to send a delivery, for the admin's log.
CREATE TABLE webhook_attempts (
    id            INTEGER PRIMARY KEY,
    delivery_id   INTEGER NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    at            DATETIME NOT NULL,
    status_code   INTEGER NOT NULL DEFAULT 0,
    duration_ms   INTEGER NOT NULL DEFAULT 0,
    response_head TEXT NOT NULL DEFAULT '',
    error         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, id);

-- Follow-ups whose follow_up.overdue event went out: once each.
CREATE TABLE webhook_overdue_notices (
    follow_up_id INTEGER PRIMARY KEY REFERENCES follow_ups (id) ON DELETE CASCADE,
    at           DATETIME NOT NULL
);

-- +goose Down
DROP TABLE webhook_overdue_notices;
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
