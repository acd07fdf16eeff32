-- +goose Up
-- A revision per incident that every change to its timeline, impact windows, follow-ups and tags
-- moves, in the same transaction, from triggers: any server process and the CLI alike. A process
-- may keep an incident's nested records in memory and reuse them while the revision, and the
-- "names" counter that renaming a service, region or factor moves, stay the same. The incident's
-- own row is always read fresh. There is no foreign key: a delete cascading from an incident
-- may still move its revision.
CREATE TABLE incident_revisions (
    incident_id INTEGER PRIMARY KEY,
    n           INTEGER NOT NULL
);

INSERT INTO change_counters (name, n) VALUES ('names', 0);

-- +goose StatementBegin
CREATE TRIGGER incident_revision_timeline_events_insert AFTER INSERT ON timeline_events BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (new.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_timeline_events_update AFTER UPDATE ON timeline_events BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
    INSERT INTO incident_revisions (incident_id, n) VALUES (new.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_timeline_events_delete AFTER DELETE ON timeline_events BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_impact_windows_insert AFTER INSERT ON impact_windows BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (new.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_impact_windows_update AFTER UPDATE ON impact_windows BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
    INSERT INTO incident_revisions (incident_id, n) VALUES (new.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_impact_windows_delete AFTER DELETE ON impact_windows BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_follow_ups_insert AFTER INSERT ON follow_ups BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (new.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_follow_ups_update AFTER UPDATE ON follow_ups BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
    INSERT INTO incident_revisions (incident_id, n) VALUES (new.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_follow_ups_delete AFTER DELETE ON follow_ups BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_incident_services_insert AFTER INSERT ON incident_services BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (new.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_incident_services_update AFTER UPDATE ON incident_services BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
    INSERT INTO incident_revisions (incident_id, n) VALUES (new.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_incident_services_delete AFTER DELETE ON incident_services BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_incident_regions_insert AFTER INSERT ON incident_regions BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (new.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_incident_regions_update AFTER UPDATE ON incident_regions BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
    INSERT INTO incident_revisions (incident_id, n) VALUES (new.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_incident_regions_delete AFTER DELETE ON incident_regions BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_incident_factors_insert AFTER INSERT ON incident_factors BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (new.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_incident_factors_update AFTER UPDATE ON incident_factors BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
    INSERT INTO incident_revisions (incident_id, n) VALUES (new.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_incident_factors_delete AFTER DELETE ON incident_factors BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_impact_window_services_insert AFTER INSERT ON impact_window_services BEGIN
    INSERT INTO incident_revisions (incident_id, n) SELECT incident_id, 1 FROM impact_windows WHERE id = new.impact_window_id
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_impact_window_services_update AFTER UPDATE ON impact_window_services BEGIN
    INSERT INTO incident_revisions (incident_id, n) SELECT incident_id, 1 FROM impact_windows WHERE id = old.impact_window_id
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
    INSERT INTO incident_revisions (incident_id, n) SELECT incident_id, 1 FROM impact_windows WHERE id = new.impact_window_id
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_impact_window_services_delete AFTER DELETE ON impact_window_services BEGIN
    INSERT INTO incident_revisions (incident_id, n) SELECT incident_id, 1 FROM impact_windows WHERE id = old.impact_window_id
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_follow_up_factors_insert AFTER INSERT ON follow_up_factors BEGIN
    INSERT INTO incident_revisions (incident_id, n) SELECT incident_id, 1 FROM follow_ups WHERE id = new.follow_up_id
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_follow_up_factors_update AFTER UPDATE ON follow_up_factors BEGIN
    INSERT INTO incident_revisions (incident_id, n) SELECT incident_id, 1 FROM follow_ups WHERE id = old.follow_up_id
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
    INSERT INTO incident_revisions (incident_id, n) SELECT incident_id, 1 FROM follow_ups WHERE id = new.follow_up_id
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_follow_up_factors_delete AFTER DELETE ON follow_up_factors BEGIN
    INSERT INTO incident_revisions (incident_id, n) SELECT incident_id, 1 FROM follow_ups WHERE id = old.follow_up_id
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER names_changed_services AFTER UPDATE ON services BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'names';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER names_changed_regions AFTER UPDATE ON regions BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'names';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER names_changed_factors AFTER UPDATE ON factors BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'names';
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER names_changed_factors;
DROP TRIGGER names_changed_regions;
DROP TRIGGER names_changed_services;
DROP TRIGGER incident_revision_follow_up_factors_delete;
DROP TRIGGER incident_revision_follow_up_factors_update;
DROP TRIGGER incident_revision_follow_up_factors_insert;
DROP TRIGGER incident_revision_impact_window_services_delete;
DROP TRIGGER incident_revision_impact_window_services_update;
DROP TRIGGER incident_revision_impact_window_services_insert;
DROP TRIGGER incident_revision_incident_factors_delete;
DROP TRIGGER incident_revision_incident_factors_update;
DROP TRIGGER incident_revision_incident_factors_insert;
DROP TRIGGER incident_revision_incident_regions_delete;
DROP TRIGGER incident_revision_incident_regions_update;
DROP TRIGGER incident_revision_incident_regions_insert;
DROP TRIGGER incident_revision_incident_services_delete;
DROP TRIGGER incident_revision_incident_services_update;
DROP TRIGGER incident_revision_incident_services_insert;
DROP TRIGGER incident_revision_follow_ups_delete;
DROP TRIGGER incident_revision_follow_ups_update;
DROP TRIGGER incident_revision_follow_ups_insert;
DROP TRIGGER incident_revision_impact_windows_delete;
DROP TRIGGER incident_revision_impact_windows_update;
DROP TRIGGER incident_revision_impact_windows_insert;
DROP TRIGGER incident_revision_timeline_events_delete;
DROP TRIGGER incident_revision_timeline_events_update;
DROP TRIGGER incident_revision_timeline_events_insert;
DELETE FROM change_counters WHERE name = 'names';
DROP TABLE incident_revisions;
