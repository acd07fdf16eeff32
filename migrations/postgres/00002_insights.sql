-- +goose Up
-- The insights page reads every incident's milestones; this index covers them, so the scan
-- reads the index alone and a period filter is a range of it.
CREATE INDEX incidents_insights_idx ON incidents (started_at)
    INCLUDE (severity, detection_method, detected_at, acknowledged_at, mitigated_at, resolved_at)
    WHERE deleted_at IS NULL;
-- Each incident's first public status update, in the order MIN per incident wants.
CREATE INDEX timeline_events_public_updates_idx ON timeline_events (incident_id, at)
    WHERE kind = 'status_update' AND public;
-- Impact windows in incident order, for the union of each incident's windows.
CREATE INDEX impact_windows_insights_idx ON impact_windows (incident_id, started_at) INCLUDE (ended_at);

-- +goose Down
DROP INDEX impact_windows_insights_idx;
DROP INDEX timeline_events_public_updates_idx;
DROP INDEX incidents_insights_idx;
