-- +goose Up
-- The insights page reads every incident's milestones as Unix seconds. These indexes hold those
-- seconds already computed, so a scan of 100,000 incidents parses no date text: SQLite reads an
-- indexed expression's value from a covering index instead of evaluating it again.
CREATE INDEX incidents_insights_idx ON incidents (
    unixepoch(started_at), severity, detection_method, unixepoch(detected_at),
    unixepoch(acknowledged_at), unixepoch(mitigated_at), unixepoch(resolved_at)
) WHERE deleted_at IS NULL;
-- Each incident's first public status update, in the order MIN per incident wants.
CREATE INDEX timeline_events_public_updates_idx ON timeline_events (incident_id, unixepoch(at))
    WHERE kind = 'status_update' AND public;
-- Impact windows in incident order, for the union of each incident's windows.
CREATE INDEX impact_windows_insights_idx ON impact_windows (incident_id, unixepoch(started_at), unixepoch(ended_at));

-- +goose Down
DROP INDEX impact_windows_insights_idx;
DROP INDEX timeline_events_public_updates_idx;
DROP INDEX incidents_insights_idx;
