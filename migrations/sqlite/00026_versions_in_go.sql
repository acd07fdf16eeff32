-- +goose Up
-- Derived marks move in Go now, in the store's write path (models/changes.go), in the same
-- transaction as the write: the triggers of 00008, 00012, 00016 and 00017 that moved the change
-- counters, the incident revisions, the "names" counter and the insight blocks are dropped, with
-- their tables. In their place one row per incident says when it last changed: every write
-- transaction sets, for each incident it touched, version to the store's next version (here the
-- highest so far plus one: SQLite has one writer at a time, so versions follow commit order) and
-- insights_version to the same when it changed what the insights read. Row 0 stands for the
-- names of services, regions and factors. Each process reads the rows whose version is above the
-- last it saw (one indexed statement per cached read) and drops exactly what they name.
DROP TRIGGER IF EXISTS insights_changed_incidents_insert;
DROP TRIGGER IF EXISTS insights_changed_incidents_update;
DROP TRIGGER IF EXISTS insights_changed_incidents_delete;
DROP TRIGGER IF EXISTS insights_changed_timeline_events_insert;
DROP TRIGGER IF EXISTS insights_changed_timeline_events_update;
DROP TRIGGER IF EXISTS insights_changed_timeline_events_delete;
DROP TRIGGER IF EXISTS insights_changed_impact_windows_insert;
DROP TRIGGER IF EXISTS insights_changed_impact_windows_update;
DROP TRIGGER IF EXISTS insights_changed_impact_windows_delete;
DROP TRIGGER IF EXISTS insights_changed_incident_services_insert;
DROP TRIGGER IF EXISTS insights_changed_incident_services_update;
DROP TRIGGER IF EXISTS insights_changed_incident_services_delete;
DROP TRIGGER IF EXISTS insights_changed_incident_regions_insert;
DROP TRIGGER IF EXISTS insights_changed_incident_regions_update;
DROP TRIGGER IF EXISTS insights_changed_incident_regions_delete;
DROP TRIGGER IF EXISTS insights_changed_incident_factors_insert;
DROP TRIGGER IF EXISTS insights_changed_incident_factors_update;
DROP TRIGGER IF EXISTS insights_changed_incident_factors_delete;
DROP TRIGGER IF EXISTS insights_changed_services_insert;
DROP TRIGGER IF EXISTS insights_changed_services_update;
DROP TRIGGER IF EXISTS insights_changed_services_delete;
DROP TRIGGER IF EXISTS insights_changed_regions_insert;
DROP TRIGGER IF EXISTS insights_changed_regions_update;
DROP TRIGGER IF EXISTS insights_changed_regions_delete;
DROP TRIGGER IF EXISTS insights_changed_factors_insert;
DROP TRIGGER IF EXISTS insights_changed_factors_update;
DROP TRIGGER IF EXISTS insights_changed_factors_delete;
DROP TRIGGER IF EXISTS incident_revision_timeline_events_insert;
DROP TRIGGER IF EXISTS incident_revision_timeline_events_update;
DROP TRIGGER IF EXISTS incident_revision_timeline_events_delete;
DROP TRIGGER IF EXISTS incident_revision_impact_windows_insert;
DROP TRIGGER IF EXISTS incident_revision_impact_windows_update;
DROP TRIGGER IF EXISTS incident_revision_impact_windows_delete;
DROP TRIGGER IF EXISTS incident_revision_follow_ups_insert;
DROP TRIGGER IF EXISTS incident_revision_follow_ups_update;
DROP TRIGGER IF EXISTS incident_revision_follow_ups_delete;
DROP TRIGGER IF EXISTS incident_revision_incident_services_insert;
DROP TRIGGER IF EXISTS incident_revision_incident_services_update;
DROP TRIGGER IF EXISTS incident_revision_incident_services_delete;
DROP TRIGGER IF EXISTS incident_revision_incident_regions_insert;
DROP TRIGGER IF EXISTS incident_revision_incident_regions_update;
DROP TRIGGER IF EXISTS incident_revision_incident_regions_delete;
DROP TRIGGER IF EXISTS incident_revision_incident_factors_insert;
DROP TRIGGER IF EXISTS incident_revision_incident_factors_update;
DROP TRIGGER IF EXISTS incident_revision_incident_factors_delete;
DROP TRIGGER IF EXISTS incident_revision_impact_window_services_insert;
DROP TRIGGER IF EXISTS incident_revision_impact_window_services_update;
DROP TRIGGER IF EXISTS incident_revision_impact_window_services_delete;
DROP TRIGGER IF EXISTS incident_revision_follow_up_factors_insert;
DROP TRIGGER IF EXISTS incident_revision_follow_up_factors_update;
DROP TRIGGER IF EXISTS incident_revision_follow_up_factors_delete;
DROP TRIGGER IF EXISTS names_changed_services;
DROP TRIGGER IF EXISTS names_changed_regions;
DROP TRIGGER IF EXISTS names_changed_factors;
DROP TRIGGER IF EXISTS incident_revision_links_insert;
DROP TRIGGER IF EXISTS incident_revision_links_update;
DROP TRIGGER IF EXISTS incident_revision_links_delete;
DROP TRIGGER IF EXISTS incident_revision_incidents_update;
DROP TRIGGER IF EXISTS incident_revision_incidents_delete;
DROP TRIGGER IF EXISTS incident_revision_similar_delete;
DROP TRIGGER IF EXISTS names_changed_factors_insert;
DROP TRIGGER IF EXISTS names_changed_factors_delete;
DROP TRIGGER IF EXISTS insight_blocks_incidents_insert;
DROP TRIGGER IF EXISTS insight_blocks_incidents_update;
DROP TRIGGER IF EXISTS insight_blocks_incidents_delete;
DROP TRIGGER IF EXISTS insight_blocks_timeline_events_insert;
DROP TRIGGER IF EXISTS insight_blocks_timeline_events_update;
DROP TRIGGER IF EXISTS insight_blocks_timeline_events_delete;
DROP TRIGGER IF EXISTS insight_blocks_impact_windows_insert;
DROP TRIGGER IF EXISTS insight_blocks_impact_windows_update;
DROP TRIGGER IF EXISTS insight_blocks_impact_windows_delete;
DROP TRIGGER IF EXISTS insight_blocks_incident_services_insert;
DROP TRIGGER IF EXISTS insight_blocks_incident_services_update;
DROP TRIGGER IF EXISTS insight_blocks_incident_services_delete;
DROP TRIGGER IF EXISTS insight_blocks_incident_regions_insert;
DROP TRIGGER IF EXISTS insight_blocks_incident_regions_update;
DROP TRIGGER IF EXISTS insight_blocks_incident_regions_delete;
DROP TRIGGER IF EXISTS insight_blocks_incident_factors_insert;
DROP TRIGGER IF EXISTS insight_blocks_incident_factors_update;
DROP TRIGGER IF EXISTS insight_blocks_incident_factors_delete;
DROP TABLE IF EXISTS change_counters;
DROP TABLE IF EXISTS incident_revisions;
DROP TABLE IF EXISTS insight_blocks;

CREATE TABLE incident_versions (
    incident_id      INTEGER PRIMARY KEY,
    version          INTEGER NOT NULL,
    insights_version INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX incident_versions_version ON incident_versions (version);

-- The search documents stay in triggers (DESIGN §5 keeps full-text indexing the one derived state
-- a trigger may hold): these three are the FTS5 update triggers of 00004 written again, so that an
-- edit updates its document in place, one statement instead of a delete and an insert. They keep
-- no mark and no count.
DROP TRIGGER incidents_fts_update;
DROP TRIGGER timeline_events_fts_update;
DROP TRIGGER follow_ups_fts_update;
-- +goose StatementBegin
CREATE TRIGGER incidents_fts_update AFTER UPDATE OF title, summary, customer_impact, root_cause, "trigger", detection, response, lessons ON incidents BEGIN
    UPDATE incidents_fts SET title = new.title, summary = new.summary,
        narrative = new.customer_impact || ' ' || new.root_cause || ' ' || new."trigger" || ' ' || new.detection || ' ' || new.response || ' ' || new.lessons
    WHERE rowid = old.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER timeline_events_fts_update AFTER UPDATE OF body ON timeline_events BEGIN
    UPDATE timeline_events_fts SET body = new.body WHERE rowid = old.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER follow_ups_fts_update AFTER UPDATE OF title, description, verification ON follow_ups BEGIN
    UPDATE follow_ups_fts SET title = new.title, description = new.description, verification = new.verification WHERE rowid = old.id;
END;
-- +goose StatementEnd

-- +goose Down
-- The marks' triggers are not restored: migrating down past 00026 needs the earlier migrations
-- run again from an empty database, or a restore from `hindsight export native`.
DROP TABLE incident_versions;
CREATE TABLE change_counters (name TEXT PRIMARY KEY, n INTEGER NOT NULL);
INSERT INTO change_counters (name, n) VALUES ('insights', 0), ('names', 0);
CREATE TABLE incident_revisions (incident_id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
CREATE TABLE insight_blocks (block INTEGER PRIMARY KEY, n INTEGER NOT NULL);
DROP TRIGGER incidents_fts_update;
DROP TRIGGER timeline_events_fts_update;
DROP TRIGGER follow_ups_fts_update;
-- +goose StatementBegin
CREATE TRIGGER incidents_fts_update AFTER UPDATE OF title, summary, customer_impact, root_cause, "trigger", detection, response, lessons ON incidents BEGIN
    DELETE FROM incidents_fts WHERE rowid = old.id;
    INSERT INTO incidents_fts (rowid, title, summary, narrative) VALUES (new.id, new.title, new.summary,
        new.customer_impact || ' ' || new.root_cause || ' ' || new."trigger" || ' ' || new.detection || ' ' || new.response || ' ' || new.lessons);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER timeline_events_fts_update AFTER UPDATE OF body ON timeline_events BEGIN
    DELETE FROM timeline_events_fts WHERE rowid = old.id;
    INSERT INTO timeline_events_fts (rowid, body) VALUES (new.id, new.body);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER follow_ups_fts_update AFTER UPDATE OF title, description, verification ON follow_ups BEGIN
    DELETE FROM follow_ups_fts WHERE rowid = old.id;
    INSERT INTO follow_ups_fts (rowid, title, description, verification) VALUES (new.id, new.title, new.description, new.verification);
END;
-- +goose StatementEnd
