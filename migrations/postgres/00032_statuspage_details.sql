-- +goose Up
-- What an imported Statuspage incident says that Hindsight does not model, kept so that the
-- status page's API and `hindsight export statuspage` write it back as the source had it.
-- reminder_intervals is the source's JSON value, "null" included; SQL NULL when the source had
-- no such key, so an export leaves the key out as the source did.
CREATE TABLE statuspage_incidents (
    incident_id        BIGINT PRIMARY KEY REFERENCES incidents (id) ON DELETE CASCADE,
    shortlink          TEXT NOT NULL DEFAULT '',
    reminder_intervals TEXT
);

-- The same for an imported update (a public status update on the timeline). affected_components
-- is the source's list as JSON, every component it named with its old and new status; NULL when
-- the source had null. display_at keeps the source's milliseconds, which the timeline's instant
-- (whole seconds) drops; it is written back only while that instant is unchanged.
CREATE TABLE statuspage_updates (
    event_id              BIGINT PRIMARY KEY REFERENCES timeline_events (id) ON DELETE CASCADE,
    deliver_notifications BOOLEAN NOT NULL,
    affected_components   TEXT,
    display_at            TIMESTAMPTZ
);

-- The status page's logo, uploaded by an admin: one row at most. The content type is the one
-- detected from the bytes when it was uploaded, never the one the browser claimed.
CREATE TABLE status_logo (
    id           SMALLINT PRIMARY KEY CHECK (id = 1),
    content_type TEXT NOT NULL,
    data         BYTEA NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE status_logo;
DROP TABLE statuspage_updates;
DROP TABLE statuspage_incidents;
