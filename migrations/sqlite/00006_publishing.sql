-- +goose Up
-- Each publication of a postmortem keeps the public version exactly as it was reviewed, so the
-- status page shows that and nothing typed since, and a re-publish can be compared with it.
-- body is the public subset as JSON (models.PublicPostmortem).
CREATE TABLE postmortem_versions (
    id              INTEGER PRIMARY KEY,
    incident_id     INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    version         INTEGER NOT NULL,
    body            TEXT NOT NULL,
    published_at    DATETIME NOT NULL,
    published_by_id INTEGER,
    published_by    TEXT NOT NULL
);
CREATE UNIQUE INDEX postmortem_versions_incident_idx ON postmortem_versions (incident_id, version);

-- Site-wide settings that are not per user: the status page's name and time zone.
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- The status page lists the public incidents, newest start first.
CREATE INDEX incidents_public_started_idx ON incidents (started_at DESC, id DESC) WHERE public AND deleted_at IS NULL;

-- +goose Down
DROP INDEX incidents_public_started_idx;
DROP TABLE settings;
DROP TABLE postmortem_versions;
