-- +goose Up
-- How many follow-ups of live incidents there are for each status, kind, priority, owner and due
-- date: overall (factor_id = 0, service_id = 0), per factor they address (service_id = 0) and per
-- service of their incident (factor_id = 0). Triggers keep it in the same transaction as every
-- change, so the counts on the follow-ups page are sums over this table instead of counts over
-- every follow-up. An unknown due date is kept as 9999-12-31.
CREATE TABLE follow_up_counts (
    status     TEXT NOT NULL,
    kind       TEXT NOT NULL,
    priority   TEXT NOT NULL,
    owner      TEXT NOT NULL,
    due_on     DATE NOT NULL,
    factor_id  INTEGER NOT NULL,
    service_id INTEGER NOT NULL,
    n          INTEGER NOT NULL,
    PRIMARY KEY (status, kind, priority, owner, due_on, factor_id, service_id)
);
CREATE INDEX follow_up_counts_dimension_idx ON follow_up_counts (factor_id, service_id);
-- The list sorted by priority reads this index in order.
CREATE INDEX follow_ups_priority_list_idx ON follow_ups (priority, COALESCE(due_on, '9999-12-31'), id);

INSERT INTO follow_up_counts (status, kind, priority, owner, due_on, factor_id, service_id, n)
SELECT u.status, u.kind, u.priority, u.owner, COALESCE(u.due_on, '9999-12-31'), 0, 0, count(*)
FROM follow_ups u JOIN incidents i ON i.id = u.incident_id AND i.deleted_at IS NULL
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO follow_up_counts (status, kind, priority, owner, due_on, factor_id, service_id, n)
SELECT u.status, u.kind, u.priority, u.owner, COALESCE(u.due_on, '9999-12-31'), ff.factor_id, 0, count(*)
FROM follow_ups u JOIN incidents i ON i.id = u.incident_id AND i.deleted_at IS NULL
JOIN follow_up_factors ff ON ff.follow_up_id = u.id
GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO follow_up_counts (status, kind, priority, owner, due_on, factor_id, service_id, n)
SELECT u.status, u.kind, u.priority, u.owner, COALESCE(u.due_on, '9999-12-31'), 0, s.service_id, count(*)
FROM follow_ups u JOIN incidents i ON i.id = u.incident_id AND i.deleted_at IS NULL
JOIN incident_services s ON s.incident_id = u.incident_id
GROUP BY 1, 2, 3, 4, 5, 7;

-- Inserting (follow-up, delta) here adds delta to every row the follow-up counts in: overall, its
-- factors and its incident's services. The view holds nothing; its trigger does the work, so the
-- triggers below say once what a follow-up counts in.
CREATE VIEW follow_up_count_changes (follow_up_id, incident_id, status, kind, priority, owner, due_on, delta) AS
SELECT 0, 0, '', '', '', '', NULL, 0 WHERE 0;

-- +goose StatementBegin
CREATE TRIGGER follow_up_count_changes_apply INSTEAD OF INSERT ON follow_up_count_changes BEGIN
    INSERT INTO follow_up_counts (status, kind, priority, owner, due_on, factor_id, service_id, n)
    VALUES (new.status, new.kind, new.priority, new.owner, COALESCE(new.due_on, '9999-12-31'), 0, 0, new.delta)
    ON CONFLICT (status, kind, priority, owner, due_on, factor_id, service_id) DO UPDATE SET n = n + excluded.n;
    INSERT INTO follow_up_counts (status, kind, priority, owner, due_on, factor_id, service_id, n)
    SELECT new.status, new.kind, new.priority, new.owner, COALESCE(new.due_on, '9999-12-31'), factor_id, 0, new.delta
    FROM follow_up_factors WHERE follow_up_id = new.follow_up_id
    ON CONFLICT (status, kind, priority, owner, due_on, factor_id, service_id) DO UPDATE SET n = n + excluded.n;
    INSERT INTO follow_up_counts (status, kind, priority, owner, due_on, factor_id, service_id, n)
    SELECT new.status, new.kind, new.priority, new.owner, COALESCE(new.due_on, '9999-12-31'), 0, service_id, new.delta
    FROM incident_services WHERE incident_id = new.incident_id
    ON CONFLICT (status, kind, priority, owner, due_on, factor_id, service_id) DO UPDATE SET n = n + excluded.n;
    DELETE FROM follow_up_counts WHERE n = 0 AND status = new.status AND kind = new.kind AND priority = new.priority
        AND owner = new.owner AND due_on = COALESCE(new.due_on, '9999-12-31');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER follow_up_counts_insert AFTER INSERT ON follow_ups
WHEN EXISTS (SELECT 1 FROM incidents WHERE id = new.incident_id AND deleted_at IS NULL) BEGIN
    INSERT INTO follow_up_count_changes VALUES (new.id, new.incident_id, new.status, new.kind, new.priority, new.owner, new.due_on, 1);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER follow_up_counts_update AFTER UPDATE OF status, kind, priority, owner, due_on, incident_id ON follow_ups
WHEN old.status IS NOT new.status OR old.kind IS NOT new.kind OR old.priority IS NOT new.priority
    OR old.owner IS NOT new.owner OR old.due_on IS NOT new.due_on OR old.incident_id IS NOT new.incident_id
BEGIN
    INSERT INTO follow_up_count_changes
    SELECT old.id, old.incident_id, old.status, old.kind, old.priority, old.owner, old.due_on, -1
    WHERE EXISTS (SELECT 1 FROM incidents WHERE id = old.incident_id AND deleted_at IS NULL);
    INSERT INTO follow_up_count_changes
    SELECT new.id, new.incident_id, new.status, new.kind, new.priority, new.owner, new.due_on, 1
    WHERE EXISTS (SELECT 1 FROM incidents WHERE id = new.incident_id AND deleted_at IS NULL);
END;
-- +goose StatementEnd

-- Before the delete, while the follow-up's factor tags still exist. When the delete cascades from
-- its incident, the incident is already gone and the incident's own trigger has counted it out.
-- +goose StatementBegin
CREATE TRIGGER follow_up_counts_delete BEFORE DELETE ON follow_ups
WHEN EXISTS (SELECT 1 FROM incidents WHERE id = old.incident_id AND deleted_at IS NULL) BEGIN
    INSERT INTO follow_up_count_changes VALUES (old.id, old.incident_id, old.status, old.kind, old.priority, old.owner, old.due_on, -1);
END;
-- +goose StatementEnd

-- A factor tag added or removed moves the follow-up in or out of that factor's rows only. When
-- the removal cascades from the follow-up, the follow-up is gone and was counted out already.
-- +goose StatementBegin
CREATE TRIGGER follow_up_counts_factor_insert AFTER INSERT ON follow_up_factors BEGIN
    INSERT INTO follow_up_counts (status, kind, priority, owner, due_on, factor_id, service_id, n)
    SELECT u.status, u.kind, u.priority, u.owner, COALESCE(u.due_on, '9999-12-31'), new.factor_id, 0, 1
    FROM follow_ups u JOIN incidents i ON i.id = u.incident_id AND i.deleted_at IS NULL WHERE u.id = new.follow_up_id
    ON CONFLICT (status, kind, priority, owner, due_on, factor_id, service_id) DO UPDATE SET n = n + excluded.n;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER follow_up_counts_factor_delete AFTER DELETE ON follow_up_factors BEGIN
    UPDATE follow_up_counts SET n = n - 1
    WHERE (status, kind, priority, owner, due_on, factor_id, service_id) IN (
        SELECT u.status, u.kind, u.priority, u.owner, COALESCE(u.due_on, '9999-12-31'), old.factor_id, 0
        FROM follow_ups u JOIN incidents i ON i.id = u.incident_id AND i.deleted_at IS NULL WHERE u.id = old.follow_up_id);
    DELETE FROM follow_up_counts WHERE n = 0 AND (status, kind, priority, owner, due_on, factor_id, service_id) IN (
        SELECT status, kind, priority, owner, COALESCE(due_on, '9999-12-31'), old.factor_id, 0 FROM follow_ups WHERE id = old.follow_up_id);
END;
-- +goose StatementEnd

-- A service added to or removed from an incident moves all its follow-ups in or out of that
-- service's rows.
-- +goose StatementBegin
CREATE TRIGGER follow_up_counts_service_insert AFTER INSERT ON incident_services
WHEN EXISTS (SELECT 1 FROM incidents WHERE id = new.incident_id AND deleted_at IS NULL) BEGIN
    INSERT INTO follow_up_counts (status, kind, priority, owner, due_on, factor_id, service_id, n)
    SELECT status, kind, priority, owner, COALESCE(due_on, '9999-12-31'), 0, new.service_id, count(*)
    FROM follow_ups WHERE incident_id = new.incident_id GROUP BY 1, 2, 3, 4, 5
    ON CONFLICT (status, kind, priority, owner, due_on, factor_id, service_id) DO UPDATE SET n = n + excluded.n;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER follow_up_counts_service_delete AFTER DELETE ON incident_services
WHEN EXISTS (SELECT 1 FROM incidents WHERE id = old.incident_id AND deleted_at IS NULL) BEGIN
    INSERT INTO follow_up_counts (status, kind, priority, owner, due_on, factor_id, service_id, n)
    SELECT status, kind, priority, owner, COALESCE(due_on, '9999-12-31'), 0, old.service_id, -count(*)
    FROM follow_ups WHERE incident_id = old.incident_id GROUP BY 1, 2, 3, 4, 5
    ON CONFLICT (status, kind, priority, owner, due_on, factor_id, service_id) DO UPDATE SET n = n + excluded.n;
    DELETE FROM follow_up_counts WHERE n = 0 AND (status, kind, priority, owner, due_on, factor_id, service_id) IN (
        SELECT status, kind, priority, owner, COALESCE(due_on, '9999-12-31'), 0, old.service_id FROM follow_ups WHERE incident_id = old.incident_id);
END;
-- +goose StatementEnd

-- An incident deleted or restored takes all its follow-ups out of the counts or back in; one
-- removed for good (while live) takes them out before its rows cascade away.
-- +goose StatementBegin
CREATE TRIGGER follow_up_counts_incident_deleted AFTER UPDATE OF deleted_at ON incidents
WHEN (old.deleted_at IS NULL) <> (new.deleted_at IS NULL) BEGIN
    INSERT INTO follow_up_count_changes
    SELECT id, incident_id, status, kind, priority, owner, due_on, CASE WHEN new.deleted_at IS NULL THEN 1 ELSE -1 END
    FROM follow_ups WHERE incident_id = new.id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER follow_up_counts_incident_delete BEFORE DELETE ON incidents WHEN old.deleted_at IS NULL BEGIN
    INSERT INTO follow_up_count_changes
    SELECT id, incident_id, status, kind, priority, owner, due_on, -1 FROM follow_ups WHERE incident_id = old.id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER follow_up_counts_incident_delete;
DROP TRIGGER follow_up_counts_incident_deleted;
DROP TRIGGER follow_up_counts_service_delete;
DROP TRIGGER follow_up_counts_service_insert;
DROP TRIGGER follow_up_counts_factor_delete;
DROP TRIGGER follow_up_counts_factor_insert;
DROP TRIGGER follow_up_counts_delete;
DROP TRIGGER follow_up_counts_update;
DROP TRIGGER follow_up_counts_insert;
DROP TRIGGER follow_up_count_changes_apply;
DROP VIEW follow_up_count_changes;
DROP INDEX follow_ups_priority_list_idx;
DROP TABLE follow_up_counts;
