-- +goose Up
CREATE TABLE factors (
    id          INTEGER PRIMARY KEY,
    slug        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    created_at  DATETIME NOT NULL,
    updated_at  DATETIME NOT NULL
);

CREATE TABLE incident_factors (
    incident_id INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    factor_id   INTEGER NOT NULL REFERENCES factors (id) ON DELETE CASCADE,
    PRIMARY KEY (incident_id, factor_id)
);
CREATE INDEX incident_factors_factor_idx ON incident_factors (factor_id, incident_id);

CREATE TABLE follow_up_factors (
    follow_up_id INTEGER NOT NULL REFERENCES follow_ups (id) ON DELETE CASCADE,
    factor_id    INTEGER NOT NULL REFERENCES factors (id) ON DELETE CASCADE,
    PRIMARY KEY (follow_up_id, factor_id)
);
CREATE INDEX follow_up_factors_factor_idx ON follow_up_factors (factor_id, follow_up_id);

CREATE TABLE incident_links (
    id         INTEGER PRIMARY KEY,
    from_id    INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    to_id      INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    created_at DATETIME NOT NULL,
    UNIQUE (from_id, to_id, kind)
);
CREATE INDEX incident_links_to_idx ON incident_links (to_id, from_id);

-- Secret links to an owner's follow-up due dates as iCalendar; only the hash is kept.
CREATE TABLE calendar_feeds (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    owner      TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at DATETIME NOT NULL,
    revoked_at DATETIME
);

CREATE INDEX follow_ups_owner_idx ON follow_ups (owner, status, due_on);
CREATE INDEX follow_ups_due_idx ON follow_ups (due_on, id);

-- Full-text search. SQLite keeps FTS5 tables in step with their sources through triggers; the
-- PostgreSQL schema indexes the same text with GIN expression indexes instead.
CREATE VIRTUAL TABLE incidents_fts USING fts5(title, summary, narrative, tokenize = 'porter unicode61');
CREATE VIRTUAL TABLE timeline_events_fts USING fts5(body, tokenize = 'porter unicode61');
CREATE VIRTUAL TABLE follow_ups_fts USING fts5(title, description, verification, tokenize = 'porter unicode61');

-- +goose StatementBegin
CREATE TRIGGER incidents_fts_insert AFTER INSERT ON incidents BEGIN
    INSERT INTO incidents_fts (rowid, title, summary, narrative) VALUES (new.id, new.title, new.summary,
        new.customer_impact || ' ' || new.root_cause || ' ' || new."trigger" || ' ' || new.detection || ' ' || new.response || ' ' || new.lessons);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER incidents_fts_update AFTER UPDATE OF title, summary, customer_impact, root_cause, "trigger", detection, response, lessons ON incidents BEGIN
    DELETE FROM incidents_fts WHERE rowid = old.id;
    INSERT INTO incidents_fts (rowid, title, summary, narrative) VALUES (new.id, new.title, new.summary,
        new.customer_impact || ' ' || new.root_cause || ' ' || new."trigger" || ' ' || new.detection || ' ' || new.response || ' ' || new.lessons);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER incidents_fts_delete AFTER DELETE ON incidents BEGIN
    DELETE FROM incidents_fts WHERE rowid = old.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER timeline_events_fts_insert AFTER INSERT ON timeline_events BEGIN
    INSERT INTO timeline_events_fts (rowid, body) VALUES (new.id, new.body);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER timeline_events_fts_update AFTER UPDATE OF body ON timeline_events BEGIN
    DELETE FROM timeline_events_fts WHERE rowid = old.id;
    INSERT INTO timeline_events_fts (rowid, body) VALUES (new.id, new.body);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER timeline_events_fts_delete AFTER DELETE ON timeline_events BEGIN
    DELETE FROM timeline_events_fts WHERE rowid = old.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER follow_ups_fts_insert AFTER INSERT ON follow_ups BEGIN
    INSERT INTO follow_ups_fts (rowid, title, description, verification) VALUES (new.id, new.title, new.description, new.verification);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER follow_ups_fts_update AFTER UPDATE OF title, description, verification ON follow_ups BEGIN
    DELETE FROM follow_ups_fts WHERE rowid = old.id;
    INSERT INTO follow_ups_fts (rowid, title, description, verification) VALUES (new.id, new.title, new.description, new.verification);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER follow_ups_fts_delete AFTER DELETE ON follow_ups BEGIN
    DELETE FROM follow_ups_fts WHERE rowid = old.id;
END;
-- +goose StatementEnd

-- Rows that existed before this migration.
INSERT INTO incidents_fts (rowid, title, summary, narrative)
    SELECT id, title, summary, customer_impact || ' ' || root_cause || ' ' || "trigger" || ' ' || detection || ' ' || response || ' ' || lessons FROM incidents;
INSERT INTO timeline_events_fts (rowid, body) SELECT id, body FROM timeline_events;
INSERT INTO follow_ups_fts (rowid, title, description, verification) SELECT id, title, description, verification FROM follow_ups;

-- The starting taxonomy, read off the postmortems the project was created from.
INSERT INTO factors (slug, name, description, created_at, updated_at) VALUES
    ('retry-amplification', 'Retry amplification', 'Retries and duplicate calls multiplied the load on a struggling dependency.', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
    ('health-checks-removed-capacity', 'Health checks removed working capacity', 'Health or readiness checks took slow but working instances out of rotation, shrinking capacity when it was most needed.', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
    ('cold-caches', 'Cold caches after restart', 'Instances restarted with empty caches and could not serve at normal speed.', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
    ('capacity-headroom', 'Too little capacity headroom', 'The service ran too close to its capacity to absorb a surge or a rollout.', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
    ('change-error', 'Change or deploy error', 'A change or deployment introduced the fault or reached more than intended.', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
    ('configuration-error', 'Configuration error', 'A setting was wrong, stale or left in a temporary state.', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
    ('alerting-on-failures-not-latency', 'Alerting on failures but not on latency', 'Monitors watched errors or total failure, so a slowdown went unnoticed.', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
    ('failover-disabled', 'Failover disabled', 'Automatic failover or traffic shifting was turned off.', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
    ('timeout-mismatch', 'Timeouts longer or shorter than the path needs', 'A timeout was too long to fail fast or too short for the path it guarded.', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP);

-- +goose Down
DROP TRIGGER follow_ups_fts_delete;
DROP TRIGGER follow_ups_fts_update;
DROP TRIGGER follow_ups_fts_insert;
DROP TRIGGER timeline_events_fts_delete;
DROP TRIGGER timeline_events_fts_update;
DROP TRIGGER timeline_events_fts_insert;
DROP TRIGGER incidents_fts_delete;
DROP TRIGGER incidents_fts_update;
DROP TRIGGER incidents_fts_insert;
DROP TABLE follow_ups_fts;
DROP TABLE timeline_events_fts;
DROP TABLE incidents_fts;
DROP INDEX follow_ups_due_idx;
DROP INDEX follow_ups_owner_idx;
DROP TABLE calendar_feeds;
DROP TABLE incident_links;
DROP TABLE follow_up_factors;
DROP TABLE incident_factors;
DROP TABLE factors;
