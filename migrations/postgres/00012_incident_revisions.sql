-- +goose Up
-- A revision per incident that every change to its timeline, impact windows, follow-ups and tags
-- moves, in the same transaction, from triggers: any server process and the CLI alike. A process
-- may keep an incident's nested records in memory and reuse them while the revision, and the
-- "names" counter that renaming a service, region or factor moves, stay the same. The incident's
-- own row is always read fresh. There is no foreign key: a delete cascading from an incident
-- may still move its revision.
CREATE TABLE incident_revisions (
    incident_id BIGINT PRIMARY KEY,
    n           BIGINT NOT NULL
);

INSERT INTO change_counters (name, n) VALUES ('names', 0);

-- +goose StatementBegin
CREATE FUNCTION incident_revision_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r JSONB;
    incident BIGINT;
BEGIN
    FOR r IN SELECT to_jsonb(x) FROM (SELECT OLD AS x WHERE TG_OP <> 'INSERT' UNION ALL SELECT NEW WHERE TG_OP <> 'DELETE') rows LOOP
        incident := CASE TG_TABLE_NAME
            WHEN 'impact_window_services' THEN (SELECT incident_id FROM impact_windows WHERE id = (r->>'impact_window_id')::BIGINT)
            WHEN 'follow_up_factors' THEN (SELECT incident_id FROM follow_ups WHERE id = (r->>'follow_up_id')::BIGINT)
            ELSE (r->>'incident_id')::BIGINT
        END;
        IF incident IS NOT NULL THEN
            INSERT INTO incident_revisions (incident_id, n) VALUES (incident, 1)
            ON CONFLICT (incident_id) DO UPDATE SET n = incident_revisions.n + 1;
        END IF;
    END LOOP;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION names_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'names';
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER incident_revision_timeline_events AFTER INSERT OR UPDATE OR DELETE ON timeline_events
FOR EACH ROW EXECUTE FUNCTION incident_revision_bump();

CREATE TRIGGER incident_revision_impact_windows AFTER INSERT OR UPDATE OR DELETE ON impact_windows
FOR EACH ROW EXECUTE FUNCTION incident_revision_bump();

CREATE TRIGGER incident_revision_follow_ups AFTER INSERT OR UPDATE OR DELETE ON follow_ups
FOR EACH ROW EXECUTE FUNCTION incident_revision_bump();

CREATE TRIGGER incident_revision_incident_services AFTER INSERT OR UPDATE OR DELETE ON incident_services
FOR EACH ROW EXECUTE FUNCTION incident_revision_bump();

CREATE TRIGGER incident_revision_incident_regions AFTER INSERT OR UPDATE OR DELETE ON incident_regions
FOR EACH ROW EXECUTE FUNCTION incident_revision_bump();

CREATE TRIGGER incident_revision_incident_factors AFTER INSERT OR UPDATE OR DELETE ON incident_factors
FOR EACH ROW EXECUTE FUNCTION incident_revision_bump();

CREATE TRIGGER incident_revision_impact_window_services AFTER INSERT OR UPDATE OR DELETE ON impact_window_services
FOR EACH ROW EXECUTE FUNCTION incident_revision_bump();

CREATE TRIGGER incident_revision_follow_up_factors AFTER INSERT OR UPDATE OR DELETE ON follow_up_factors
FOR EACH ROW EXECUTE FUNCTION incident_revision_bump();

CREATE TRIGGER names_changed_services AFTER UPDATE ON services
FOR EACH ROW EXECUTE FUNCTION names_changed();

CREATE TRIGGER names_changed_regions AFTER UPDATE ON regions
FOR EACH ROW EXECUTE FUNCTION names_changed();

CREATE TRIGGER names_changed_factors AFTER UPDATE ON factors
FOR EACH ROW EXECUTE FUNCTION names_changed();

-- +goose Down
DROP TRIGGER names_changed_factors ON factors;
DROP TRIGGER names_changed_regions ON regions;
DROP TRIGGER names_changed_services ON services;
DROP TRIGGER incident_revision_follow_up_factors ON follow_up_factors;
DROP TRIGGER incident_revision_impact_window_services ON impact_window_services;
DROP TRIGGER incident_revision_incident_factors ON incident_factors;
DROP TRIGGER incident_revision_incident_regions ON incident_regions;
DROP TRIGGER incident_revision_incident_services ON incident_services;
DROP TRIGGER incident_revision_follow_ups ON follow_ups;
DROP TRIGGER incident_revision_impact_windows ON impact_windows;
DROP TRIGGER incident_revision_timeline_events ON timeline_events;
DROP FUNCTION names_changed();
DROP FUNCTION incident_revision_bump();
DELETE FROM change_counters WHERE name = 'names';
DROP TABLE incident_revisions;
