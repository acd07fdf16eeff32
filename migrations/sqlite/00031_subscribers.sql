-- +goose Up
-- People and programs that follow the status page: an email address (confirmed by a link before
-- anything else is sent to it) or a webhook URL. token is the key of the subscriber's links
-- (confirm, unsubscribe); it is kept in the clear because every message carries it.
CREATE TABLE subscribers (
    id           INTEGER PRIMARY KEY,
    kind         TEXT NOT NULL CHECK (kind IN ('email', 'webhook')),
    address      TEXT NOT NULL,
    token        TEXT NOT NULL UNIQUE,
    confirmed_at DATETIME,
    created_at   DATETIME NOT NULL,
    updated_at   DATETIME NOT NULL,
    UNIQUE (kind, address)
);

-- The components a subscriber follows, by name; none means all of them. A plain name, so that
-- components can become records of their own and these be mapped onto them.
CREATE TABLE subscriber_components (
    subscriber_id INTEGER NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    component     TEXT NOT NULL,
    PRIMARY KEY (subscriber_id, component)
);
CREATE INDEX subscriber_components_component_idx ON subscriber_components (component);

-- The outbox: what is to be told (a public update, a published postmortem, a confirmation),
-- written in the transaction that made it public, and one delivery per subscriber, retried with
-- backoff until it is sent or given up.
CREATE TABLE subscriber_messages (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,
    incident_id INTEGER REFERENCES incidents (id) ON DELETE CASCADE,
    event_id    INTEGER,
    created_at  DATETIME NOT NULL
);

CREATE TABLE subscriber_deliveries (
    id              INTEGER PRIMARY KEY,
    message_id      INTEGER NOT NULL REFERENCES subscriber_messages (id) ON DELETE CASCADE,
    subscriber_id   INTEGER NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at DATETIME NOT NULL,
    claim           TEXT,
    claimed_until   DATETIME,
    sent_at         DATETIME,
    failed_at       DATETIME,
    last_error      TEXT NOT NULL DEFAULT '',
    created_at      DATETIME NOT NULL
);
CREATE INDEX subscriber_deliveries_due_idx ON subscriber_deliveries (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL;
CREATE INDEX subscriber_deliveries_message_idx ON subscriber_deliveries (message_id);
CREATE INDEX subscriber_deliveries_subscriber_idx ON subscriber_deliveries (subscriber_id);

-- Subscribe requests, counted per address and per client address so that the form cannot be
-- used to flood someone's inbox with confirmation mail.
CREATE TABLE subscribe_attempts (
    id      INTEGER PRIMARY KEY,
    address TEXT NOT NULL,
    ip      TEXT NOT NULL,
    at      DATETIME NOT NULL
);
CREATE INDEX subscribe_attempts_address_idx ON subscribe_attempts (address, at);
CREATE INDEX subscribe_attempts_ip_idx ON subscribe_attempts (ip, at);

-- +goose Down
DROP TABLE subscribe_attempts;
DROP TABLE subscriber_deliveries;
DROP TABLE subscriber_messages;
DROP TABLE subscriber_components;
DROP TABLE subscribers;
