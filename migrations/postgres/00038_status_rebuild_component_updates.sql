-- +goose Up
-- The status page rebuilt after a write (issue 16): its open incidents read from an index of the
-- open public ones alone, not by filtering every public incident; the uptime bars' impact
-- windows found by their end.
CREATE INDEX incidents_public_open_idx ON incidents (started_at DESC NULLS LAST, id DESC)
    WHERE public AND deleted_at IS NULL AND status <> 'resolved';
CREATE INDEX impact_windows_ended_idx ON impact_windows (ended_at, incident_id);
-- Statuspage's component_update webhooks: each component's status as subscribers were last told
-- it (the write path compares the status it works out with it), and a message's component with
-- its old and new status.
ALTER TABLE components ADD COLUMN announced_status TEXT NOT NULL DEFAULT 'operational';
ALTER TABLE subscriber_messages ADD COLUMN component_id BIGINT;
ALTER TABLE subscriber_messages ADD COLUMN old_status TEXT NOT NULL DEFAULT '';
ALTER TABLE subscriber_messages ADD COLUMN new_status TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE subscriber_messages DROP COLUMN new_status;
ALTER TABLE subscriber_messages DROP COLUMN old_status;
ALTER TABLE subscriber_messages DROP COLUMN component_id;
ALTER TABLE components DROP COLUMN announced_status;
DROP INDEX impact_windows_ended_idx;
DROP INDEX incidents_public_open_idx;
