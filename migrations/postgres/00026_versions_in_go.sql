-- +goose Up
-- Derived marks move in Go now, in the store's write path (models/changes.go), in the same
-- transaction as the write: the trigger functions of 00008, 00012, 00016 and 00017 that moved the
-- change counters (the 'insights' row every writer locked until it committed), the incident
-- revisions, the "names" counter and the insight blocks are dropped with their triggers and
-- tables. In their place one row per incident says which transaction last changed it: every write
-- transaction sets, for each incident it touched, version to its own transaction id
-- (pg_current_xact_id) and insights_version to the same when it changed what the insights read.
-- Writers of different incidents touch different rows, so nothing serialises them. Row 0 stands
-- for the names of services, regions and factors. Each process reads the rows whose version is at
-- or above the oldest transaction still running when it last looked (pg_snapshot_xmin), in the
-- same statement as that horizon, so a transaction that commits late is still seen.
DROP FUNCTION IF EXISTS insights_changed() CASCADE;
DROP FUNCTION IF EXISTS incident_revision_bump() CASCADE;
DROP FUNCTION IF EXISTS names_changed() CASCADE;
DROP FUNCTION IF EXISTS incident_revision_links_bump() CASCADE;
DROP FUNCTION IF EXISTS incident_revision_incidents_bump() CASCADE;
DROP FUNCTION IF EXISTS names_changed_factors_count() CASCADE;
DROP FUNCTION IF EXISTS insight_blocks_child() CASCADE;
DROP FUNCTION IF EXISTS insight_blocks_incident() CASCADE;
DROP FUNCTION IF EXISTS insight_blocks_truncate() CASCADE;
DROP FUNCTION IF EXISTS insight_blocks_move(BIGINT) CASCADE;
DROP TABLE IF EXISTS change_counters;
DROP TABLE IF EXISTS incident_revisions;
DROP TABLE IF EXISTS insight_blocks;

CREATE TABLE incident_versions (
    incident_id      BIGINT PRIMARY KEY,
    version          BIGINT NOT NULL,
    insights_version BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX incident_versions_version ON incident_versions (version);

-- +goose Down
-- The marks' triggers are not restored: migrating down past 00026 needs the earlier migrations
-- run again from an empty database, or a restore from `hindsight export native`.
DROP TABLE incident_versions;
CREATE TABLE change_counters (name TEXT PRIMARY KEY, n BIGINT NOT NULL);
INSERT INTO change_counters (name, n) VALUES ('insights', 0), ('names', 0);
CREATE TABLE incident_revisions (incident_id BIGINT PRIMARY KEY, n BIGINT NOT NULL);
CREATE TABLE insight_blocks (block BIGINT PRIMARY KEY, n BIGINT NOT NULL);
