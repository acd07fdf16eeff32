-- +goose Up
-- Instants outside the years 0001 to 9999 (in UTC, a day inside either end so every zone can show
-- them) could be saved before input was checked, and then could not be read back: JSON and
-- SQLite's text dates hold four-digit years only. Such a value is not known, so a milestone or an
-- optional end becomes empty; the required instants of timeline entries and impact windows move
-- to the nearest instant that can be kept, so the record stays and can be corrected.
UPDATE incidents SET triggered_at = NULL WHERE triggered_at < TIMESTAMPTZ '0001-01-02 00:00:00+00' OR triggered_at > TIMESTAMPTZ '9999-12-30 23:59:59.999999+00';
UPDATE incidents SET started_at = NULL WHERE started_at < TIMESTAMPTZ '0001-01-02 00:00:00+00' OR started_at > TIMESTAMPTZ '9999-12-30 23:59:59.999999+00';
UPDATE incidents SET detected_at = NULL WHERE detected_at < TIMESTAMPTZ '0001-01-02 00:00:00+00' OR detected_at > TIMESTAMPTZ '9999-12-30 23:59:59.999999+00';
UPDATE incidents SET acknowledged_at = NULL WHERE acknowledged_at < TIMESTAMPTZ '0001-01-02 00:00:00+00' OR acknowledged_at > TIMESTAMPTZ '9999-12-30 23:59:59.999999+00';
UPDATE incidents SET mitigated_at = NULL WHERE mitigated_at < TIMESTAMPTZ '0001-01-02 00:00:00+00' OR mitigated_at > TIMESTAMPTZ '9999-12-30 23:59:59.999999+00';
UPDATE incidents SET resolved_at = NULL WHERE resolved_at < TIMESTAMPTZ '0001-01-02 00:00:00+00' OR resolved_at > TIMESTAMPTZ '9999-12-30 23:59:59.999999+00';
UPDATE incidents SET published_at = NULL WHERE published_at < TIMESTAMPTZ '0001-01-02 00:00:00+00' OR published_at > TIMESTAMPTZ '9999-12-30 23:59:59.999999+00';
UPDATE impact_windows SET ended_at = NULL WHERE ended_at < TIMESTAMPTZ '0001-01-02 00:00:00+00' OR ended_at > TIMESTAMPTZ '9999-12-30 23:59:59.999999+00';
UPDATE follow_ups SET done_at = NULL WHERE done_at < TIMESTAMPTZ '0001-01-02 00:00:00+00' OR done_at > TIMESTAMPTZ '9999-12-30 23:59:59.999999+00';
UPDATE follow_ups SET due_on = NULL WHERE due_on < DATE '0001-01-02' OR due_on > DATE '9999-12-30';
UPDATE timeline_events SET at = LEAST(GREATEST(at, TIMESTAMPTZ '0001-01-02 00:00:00+00'), TIMESTAMPTZ '9999-12-30 23:59:59+00') WHERE at < TIMESTAMPTZ '0001-01-02 00:00:00+00' OR at > TIMESTAMPTZ '9999-12-30 23:59:59.999999+00';
UPDATE impact_windows SET started_at = LEAST(GREATEST(started_at, TIMESTAMPTZ '0001-01-02 00:00:00+00'), TIMESTAMPTZ '9999-12-30 23:59:59+00') WHERE started_at < TIMESTAMPTZ '0001-01-02 00:00:00+00' OR started_at > TIMESTAMPTZ '9999-12-30 23:59:59.999999+00';

-- +goose Down
-- Nothing to undo: the values that were moved could not be read.
SELECT 1;
