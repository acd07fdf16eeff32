-- +goose Up
CREATE TABLE services (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    created_at DATETIME NOT NULL
);

CREATE TABLE regions (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    created_at DATETIME NOT NULL
);

CREATE TABLE incidents (
    id               INTEGER PRIMARY KEY,
    title            TEXT NOT NULL,
    summary          TEXT NOT NULL DEFAULT '',
    severity         TEXT NOT NULL,
    status           TEXT NOT NULL,
    detection_method TEXT NOT NULL DEFAULT '',
    customer_impact  TEXT NOT NULL DEFAULT '',
    root_cause       TEXT NOT NULL DEFAULT '',
    "trigger"        TEXT NOT NULL DEFAULT '',
    detection        TEXT NOT NULL DEFAULT '',
    response         TEXT NOT NULL DEFAULT '',
    lessons          TEXT NOT NULL DEFAULT '',
    time_zone        TEXT NOT NULL DEFAULT 'UTC',
    triggered_at     DATETIME,
    started_at       DATETIME,
    detected_at      DATETIME,
    acknowledged_at  DATETIME,
    mitigated_at     DATETIME,
    resolved_at      DATETIME,
    postmortem_state TEXT NOT NULL DEFAULT 'none',
    published_at     DATETIME,
    public           BOOLEAN NOT NULL DEFAULT FALSE,
    source           TEXT NOT NULL DEFAULT '',
    external_id      TEXT NOT NULL DEFAULT '',
    version          INTEGER NOT NULL DEFAULT 1,
    created_at       DATETIME NOT NULL,
    updated_at       DATETIME NOT NULL,
    deleted_at       DATETIME
);
-- The list page sorts by start, newest first; SQLite already puts NULLs last in DESC order.
CREATE INDEX incidents_started_idx ON incidents (started_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX incidents_status_started_idx ON incidents (status, started_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX incidents_severity_started_idx ON incidents (severity, started_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX incidents_source_external_idx ON incidents (source, external_id) WHERE external_id <> '';

CREATE TABLE incident_services (
    incident_id INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    service_id  INTEGER NOT NULL REFERENCES services (id) ON DELETE CASCADE,
    PRIMARY KEY (incident_id, service_id)
);
CREATE INDEX incident_services_service_idx ON incident_services (service_id, incident_id);

CREATE TABLE incident_regions (
    incident_id INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    region_id   INTEGER NOT NULL REFERENCES regions (id) ON DELETE CASCADE,
    PRIMARY KEY (incident_id, region_id)
);
CREATE INDEX incident_regions_region_idx ON incident_regions (region_id, incident_id);

CREATE TABLE timeline_events (
    id          INTEGER PRIMARY KEY,
    incident_id INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    at          DATETIME NOT NULL,
    kind        TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT '',
    body        TEXT NOT NULL DEFAULT '',
    public      BOOLEAN NOT NULL DEFAULT FALSE,
    created_at  DATETIME NOT NULL,
    updated_at  DATETIME NOT NULL
);
CREATE INDEX timeline_events_incident_idx ON timeline_events (incident_id, at, id);

CREATE TABLE impact_windows (
    id          INTEGER PRIMARY KEY,
    incident_id INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    started_at  DATETIME NOT NULL,
    ended_at    DATETIME,
    level       TEXT NOT NULL,
    note        TEXT NOT NULL DEFAULT '',
    created_at  DATETIME NOT NULL,
    updated_at  DATETIME NOT NULL
);
CREATE INDEX impact_windows_incident_idx ON impact_windows (incident_id, started_at, id);

CREATE TABLE impact_window_services (
    impact_window_id INTEGER NOT NULL REFERENCES impact_windows (id) ON DELETE CASCADE,
    service_id       INTEGER NOT NULL REFERENCES services (id) ON DELETE CASCADE,
    PRIMARY KEY (impact_window_id, service_id)
);

CREATE TABLE follow_ups (
    id           INTEGER PRIMARY KEY,
    incident_id  INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    title        TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    kind         TEXT NOT NULL,
    priority     TEXT NOT NULL,
    owner        TEXT NOT NULL DEFAULT '',
    due_on       DATE,
    status       TEXT NOT NULL,
    done_at      DATETIME,
    tracker_url  TEXT NOT NULL DEFAULT '',
    verification TEXT NOT NULL DEFAULT '',
    version      INTEGER NOT NULL DEFAULT 1,
    created_at   DATETIME NOT NULL,
    updated_at   DATETIME NOT NULL
);
CREATE INDEX follow_ups_incident_idx ON follow_ups (incident_id, id);
CREATE INDEX follow_ups_status_due_idx ON follow_ups (status, due_on);

-- +goose Down
DROP TABLE follow_ups;
DROP TABLE impact_window_services;
DROP TABLE impact_windows;
DROP TABLE timeline_events;
DROP TABLE incident_regions;
DROP TABLE incident_services;
DROP TABLE incidents;
DROP TABLE regions;
DROP TABLE services;
