-- +goose Up
-- Instants outside the years 0001 to 9999 (in UTC, a day inside either end so every zone can show
-- them) could be saved before input was checked, and then could not be read back: JSON and
-- SQLite's text dates hold four-digit years only. Such a value is not known, so a milestone or an
-- optional end becomes empty; the required instants of timeline entries and impact windows move
-- to the nearest instant that can be kept, so the record stays and can be corrected.
UPDATE incidents SET triggered_at = NULL WHERE triggered_at IS NOT NULL AND (triggered_at NOT GLOB '[0-9][0-9][0-9][0-9]-*' OR triggered_at < '0001-01-02' OR triggered_at > '9999-12-30 23:59:59.999999999');
UPDATE incidents SET started_at = NULL WHERE started_at IS NOT NULL AND (started_at NOT GLOB '[0-9][0-9][0-9][0-9]-*' OR started_at < '0001-01-02' OR started_at > '9999-12-30 23:59:59.999999999');
UPDATE incidents SET detected_at = NULL WHERE detected_at IS NOT NULL AND (detected_at NOT GLOB '[0-9][0-9][0-9][0-9]-*' OR detected_at < '0001-01-02' OR detected_at > '9999-12-30 23:59:59.999999999');
UPDATE incidents SET acknowledged_at = NULL WHERE acknowledged_at IS NOT NULL AND (acknowledged_at NOT GLOB '[0-9][0-9][0-9][0-9]-*' OR acknowledged_at < '0001-01-02' OR acknowledged_at > '9999-12-30 23:59:59.999999999');
UPDATE incidents SET mitigated_at = NULL WHERE mitigated_at IS NOT NULL AND (mitigated_at NOT GLOB '[0-9][0-9][0-9][0-9]-*' OR mitigated_at < '0001-01-02' OR mitigated_at > '9999-12-30 23:59:59.999999999');
UPDATE incidents SET resolved_at = NULL WHERE resolved_at IS NOT NULL AND (resolved_at NOT GLOB '[0-9][0-9][0-9][0-9]-*' OR resolved_at < '0001-01-02' OR resolved_at > '9999-12-30 23:59:59.999999999');
UPDATE incidents SET published_at = NULL WHERE published_at IS NOT NULL AND (published_at NOT GLOB '[0-9][0-9][0-9][0-9]-*' OR published_at < '0001-01-02' OR published_at > '9999-12-30 23:59:59.999999999');
UPDATE impact_windows SET ended_at = NULL WHERE ended_at IS NOT NULL AND (ended_at NOT GLOB '[0-9][0-9][0-9][0-9]-*' OR ended_at < '0001-01-02' OR ended_at > '9999-12-30 23:59:59.999999999');
UPDATE follow_ups SET done_at = NULL WHERE done_at IS NOT NULL AND (done_at NOT GLOB '[0-9][0-9][0-9][0-9]-*' OR done_at < '0001-01-02' OR done_at > '9999-12-30 23:59:59.999999999');
UPDATE follow_ups SET due_on = NULL WHERE due_on IS NOT NULL AND (due_on NOT GLOB '[0-9][0-9][0-9][0-9]-*' OR due_on < '0001-01-02' OR due_on > '9999-12-30 23:59:59.999999999');
UPDATE timeline_events SET at = CASE WHEN at GLOB '-*' OR at < '0001-01-02' THEN '0001-01-02 00:00:00+00:00' ELSE '9999-12-30 23:59:59+00:00' END WHERE at IS NOT NULL AND (at NOT GLOB '[0-9][0-9][0-9][0-9]-*' OR at < '0001-01-02' OR at > '9999-12-30 23:59:59.999999999');
UPDATE impact_windows SET started_at = CASE WHEN started_at GLOB '-*' OR started_at < '0001-01-02' THEN '0001-01-02 00:00:00+00:00' ELSE '9999-12-30 23:59:59+00:00' END WHERE started_at IS NOT NULL AND (started_at NOT GLOB '[0-9][0-9][0-9][0-9]-*' OR started_at < '0001-01-02' OR started_at > '9999-12-30 23:59:59.999999999');

-- +goose Down
-- Nothing to undo: the values that were moved could not be read.
SELECT 1;
