-- +goose Up
-- An alerting system that may open incidents and stamp their milestones: Alertmanager, Grafana,
-- PagerDuty or any JSON sender. The bearer token is kept only as its SHA-256; PagerDuty signs
-- with an HMAC, which cannot be checked against a hash, so its key is kept as given.
CREATE TABLE integrations (
    id            INTEGER PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('alertmanager', 'grafana', 'pagerduty', 'generic')),
    name          TEXT NOT NULL,
    secret_hash   TEXT NOT NULL,
    signing_key   TEXT NOT NULL DEFAULT '',
    mapping       TEXT NOT NULL DEFAULT '',
    created_at    DATETIME NOT NULL,
    last_used_at  DATETIME,
    revoked_at    DATETIME
);
CREATE INDEX integrations_secret_idx ON integrations (secret_hash);

-- Which incident an alert group (Alertmanager's groupKey, PagerDuty's incident id) opened; a
-- firing alert attaches to the newest open incident of its group.
CREATE TABLE alert_groups (
    id             INTEGER PRIMARY KEY,
    integration_id INTEGER NOT NULL REFERENCES integrations (id) ON DELETE CASCADE,
    dedup_key      TEXT NOT NULL,
    incident_id    INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    created_at     DATETIME NOT NULL
);
CREATE INDEX alert_groups_key_idx ON alert_groups (integration_id, dedup_key, incident_id);
CREATE INDEX alert_groups_incident_idx ON alert_groups (incident_id);

-- The last state each alert of an incident was seen in, so a notification repeated by the
-- sender adds no timeline entry and only a change of state does.
CREATE TABLE alert_states (
    incident_id  INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    fingerprint  TEXT NOT NULL,
    state        TEXT NOT NULL,
    updated_at   DATETIME NOT NULL,
    PRIMARY KEY (incident_id, fingerprint)
);

-- Where each milestone's time came from: typed by a person, imported from a file or status
-- page, set by an alert, or read from pasted text. No row: nobody recorded a source (milestones
-- older than this table).
CREATE TABLE milestone_sources (
    incident_id  INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    milestone    TEXT NOT NULL CHECK (milestone IN ('triggered_at', 'started_at', 'detected_at', 'acknowledged_at', 'mitigated_at', 'resolved_at')),
    kind         TEXT NOT NULL CHECK (kind IN ('typed', 'imported', 'alert', 'pasted')),
    detail       TEXT NOT NULL DEFAULT '',
    user_id      INTEGER,
    recorded_at  DATETIME NOT NULL,
    PRIMARY KEY (incident_id, milestone)
);

-- +goose Down
DROP TABLE milestone_sources;
DROP TABLE alert_states;
DROP TABLE alert_groups;
DROP TABLE integrations;
