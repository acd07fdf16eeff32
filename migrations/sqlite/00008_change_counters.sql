-- +goose Up
-- A counter that every change to what the insights read moves, in the same transaction as the
-- change: triggers keep it, so writes by any server process and by the CLI all count. A process
-- that cached insights reads it (one row) to tell whether its copy still holds.
CREATE TABLE change_counters (
    name TEXT PRIMARY KEY,
    n    INTEGER NOT NULL
);

INSERT INTO change_counters (name, n) VALUES ('insights', 0);

-- +goose StatementBegin
CREATE TRIGGER insights_changed_incidents_insert AFTER INSERT ON incidents BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_incidents_update AFTER UPDATE ON incidents BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_incidents_delete AFTER DELETE ON incidents BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_timeline_events_insert AFTER INSERT ON timeline_events BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_timeline_events_update AFTER UPDATE ON timeline_events BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_timeline_events_delete AFTER DELETE ON timeline_events BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_impact_windows_insert AFTER INSERT ON impact_windows BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_impact_windows_update AFTER UPDATE ON impact_windows BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_impact_windows_delete AFTER DELETE ON impact_windows BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_incident_services_insert AFTER INSERT ON incident_services BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_incident_services_update AFTER UPDATE ON incident_services BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_incident_services_delete AFTER DELETE ON incident_services BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_incident_regions_insert AFTER INSERT ON incident_regions BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_incident_regions_update AFTER UPDATE ON incident_regions BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_incident_regions_delete AFTER DELETE ON incident_regions BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_incident_factors_insert AFTER INSERT ON incident_factors BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_incident_factors_update AFTER UPDATE ON incident_factors BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_incident_factors_delete AFTER DELETE ON incident_factors BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_services_insert AFTER INSERT ON services BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_services_update AFTER UPDATE ON services BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_services_delete AFTER DELETE ON services BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_regions_insert AFTER INSERT ON regions BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_regions_update AFTER UPDATE ON regions BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_regions_delete AFTER DELETE ON regions BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_factors_insert AFTER INSERT ON factors BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_factors_update AFTER UPDATE ON factors BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER insights_changed_factors_delete AFTER DELETE ON factors BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER insights_changed_incidents_insert;
DROP TRIGGER insights_changed_incidents_update;
DROP TRIGGER insights_changed_incidents_delete;
DROP TRIGGER insights_changed_timeline_events_insert;
DROP TRIGGER insights_changed_timeline_events_update;
DROP TRIGGER insights_changed_timeline_events_delete;
DROP TRIGGER insights_changed_impact_windows_insert;
DROP TRIGGER insights_changed_impact_windows_update;
DROP TRIGGER insights_changed_impact_windows_delete;
DROP TRIGGER insights_changed_incident_services_insert;
DROP TRIGGER insights_changed_incident_services_update;
DROP TRIGGER insights_changed_incident_services_delete;
DROP TRIGGER insights_changed_incident_regions_insert;
DROP TRIGGER insights_changed_incident_regions_update;
DROP TRIGGER insights_changed_incident_regions_delete;
DROP TRIGGER insights_changed_incident_factors_insert;
DROP TRIGGER insights_changed_incident_factors_update;
DROP TRIGGER insights_changed_incident_factors_delete;
DROP TRIGGER insights_changed_services_insert;
DROP TRIGGER insights_changed_services_update;
DROP TRIGGER insights_changed_services_delete;
DROP TRIGGER insights_changed_regions_insert;
DROP TRIGGER insights_changed_regions_update;
DROP TRIGGER insights_changed_regions_delete;
DROP TRIGGER insights_changed_factors_insert;
DROP TRIGGER insights_changed_factors_update;
DROP TRIGGER insights_changed_factors_delete;
DROP TABLE change_counters;
