-- +goose Up
-- Images pasted or dropped into an incident's sections and timeline entries (issue 15): kept in
-- the database with the incident, so a backup and an export carry them. content_type is the
-- type read from the bytes at upload, never the one the browser claimed; sha256 lets the same
-- image pasted twice into one incident be stored once.
CREATE TABLE incident_images (
    id           INTEGER PRIMARY KEY,
    incident_id  INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    content_type TEXT NOT NULL,
    data         BLOB NOT NULL,
    size         INTEGER NOT NULL,
    width        INTEGER NOT NULL,
    height       INTEGER NOT NULL,
    sha256       TEXT NOT NULL,
    created_at   DATETIME NOT NULL,
    created_by   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX incident_images_incident ON incident_images (incident_id, sha256);

-- Incidents with a milestone known only to the day are few, and the insights count their
-- figures apart: they read those incidents' ids through this partial index, beside the covering
-- index of 00002, as they read the near misses.
CREATE INDEX incidents_milestone_days_idx ON incidents (id) WHERE milestone_days <> '';

-- +goose Down
DROP INDEX incidents_milestone_days_idx;
DROP TABLE incident_images;
