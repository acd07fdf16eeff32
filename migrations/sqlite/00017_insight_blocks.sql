-- +goose Up
-- A counter per block of 1,024 consecutive incident ids (block = id / 1024) that every change to
-- what the insights read of those incidents moves, in the same transaction, from triggers: any
-- server process and the CLI alike. A process keeps every incident's insight row in memory with
-- the counters it was read at; after a write it reads the counters, a hundred rows at 100,000
-- incidents, and reads again only the blocks whose counter moved. The counters are compared for
-- equality only, so the order in which concurrent writers commit does not matter. Rows are never
-- deleted: a counter that came back to an old value could hide a change. Only the columns the
-- insights read count: editing a title or a private note moves nothing here (the "insights"
-- counter of migration 00008 still moves, and the aggregates are recomputed from memory).
CREATE TABLE insight_blocks (
    block INTEGER PRIMARY KEY,
    n     INTEGER NOT NULL
);

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_incidents_insert AFTER INSERT ON incidents BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (new.id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_incidents_update AFTER UPDATE OF id, severity, detection_method, started_at, detected_at, acknowledged_at, mitigated_at, resolved_at, deleted_at ON incidents BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (old.id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
    INSERT INTO insight_blocks (block, n) VALUES (new.id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_incidents_delete AFTER DELETE ON incidents BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (old.id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_timeline_events_insert AFTER INSERT ON timeline_events
WHEN new.kind = 'status_update' AND new.public BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (new.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_timeline_events_update AFTER UPDATE OF incident_id, at, kind, public ON timeline_events
WHEN (old.kind = 'status_update' AND old.public) OR (new.kind = 'status_update' AND new.public) BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (old.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
    INSERT INTO insight_blocks (block, n) VALUES (new.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_timeline_events_delete AFTER DELETE ON timeline_events
WHEN old.kind = 'status_update' AND old.public BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (old.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_impact_windows_insert AFTER INSERT ON impact_windows BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (new.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_impact_windows_update AFTER UPDATE OF incident_id, started_at, ended_at ON impact_windows BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (old.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
    INSERT INTO insight_blocks (block, n) VALUES (new.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_impact_windows_delete AFTER DELETE ON impact_windows BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (old.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_incident_services_insert AFTER INSERT ON incident_services BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (new.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_incident_services_update AFTER UPDATE ON incident_services BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (old.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
    INSERT INTO insight_blocks (block, n) VALUES (new.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_incident_services_delete AFTER DELETE ON incident_services BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (old.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_incident_regions_insert AFTER INSERT ON incident_regions BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (new.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_incident_regions_update AFTER UPDATE ON incident_regions BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (old.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
    INSERT INTO insight_blocks (block, n) VALUES (new.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_incident_regions_delete AFTER DELETE ON incident_regions BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (old.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_incident_factors_insert AFTER INSERT ON incident_factors BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (new.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_incident_factors_update AFTER UPDATE ON incident_factors BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (old.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
    INSERT INTO insight_blocks (block, n) VALUES (new.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insight_blocks_incident_factors_delete AFTER DELETE ON incident_factors BEGIN
    INSERT INTO insight_blocks (block, n) VALUES (old.incident_id / 1024, 1)
    ON CONFLICT (block) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER insight_blocks_incident_factors_delete;
DROP TRIGGER insight_blocks_incident_factors_update;
DROP TRIGGER insight_blocks_incident_factors_insert;
DROP TRIGGER insight_blocks_incident_regions_delete;
DROP TRIGGER insight_blocks_incident_regions_update;
DROP TRIGGER insight_blocks_incident_regions_insert;
DROP TRIGGER insight_blocks_incident_services_delete;
DROP TRIGGER insight_blocks_incident_services_update;
DROP TRIGGER insight_blocks_incident_services_insert;
DROP TRIGGER insight_blocks_impact_windows_delete;
DROP TRIGGER insight_blocks_impact_windows_update;
DROP TRIGGER insight_blocks_impact_windows_insert;
DROP TRIGGER insight_blocks_timeline_events_delete;
DROP TRIGGER insight_blocks_timeline_events_update;
DROP TRIGGER insight_blocks_timeline_events_insert;
DROP TRIGGER insight_blocks_incidents_delete;
DROP TRIGGER insight_blocks_incidents_update;
DROP TRIGGER insight_blocks_incidents_insert;
DROP TABLE insight_blocks;
