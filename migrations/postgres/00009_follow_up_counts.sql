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
    factor_id  BIGINT NOT NULL,
    service_id BIGINT NOT NULL,
    n          BIGINT NOT NULL,
    PRIMARY KEY (status, kind, priority, owner, due_on, factor_id, service_id)
);
CREATE INDEX follow_up_counts_dimension_idx ON follow_up_counts (factor_id, service_id);
-- Changes to the counts wait here until their transaction commits, and are then added up and
-- applied once per key (follow_up_counts_fold): updating one counts row for every follow-up of a
-- large import would leave a row version per update that each next update walks past, so the
-- import would slow with the square of its size. Each transaction sees and folds only its own
-- rows. SQLite, with one writer and no row versions, applies changes at once and has no such
-- table.
CREATE TABLE follow_up_counts_pending (
    status     TEXT NOT NULL,
    kind       TEXT NOT NULL,
    priority   TEXT NOT NULL,
    owner      TEXT NOT NULL,
    due_on     DATE NOT NULL,
    factor_id  BIGINT NOT NULL,
    service_id BIGINT NOT NULL,
    delta      BIGINT NOT NULL
);

-- The list sorted by priority reads this index in order.
CREATE INDEX follow_ups_priority_list_idx ON follow_ups (priority, due_on ASC NULLS LAST, id);

INSERT INTO follow_up_counts (status, kind, priority, owner, due_on, factor_id, service_id, n)
SELECT u.status, u.kind, u.priority, u.owner, COALESCE(u.due_on, DATE '9999-12-31'), 0, 0, count(*)
FROM follow_ups u JOIN incidents i ON i.id = u.incident_id AND i.deleted_at IS NULL
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO follow_up_counts (status, kind, priority, owner, due_on, factor_id, service_id, n)
SELECT u.status, u.kind, u.priority, u.owner, COALESCE(u.due_on, DATE '9999-12-31'), ff.factor_id, 0, count(*)
FROM follow_ups u JOIN incidents i ON i.id = u.incident_id AND i.deleted_at IS NULL
JOIN follow_up_factors ff ON ff.follow_up_id = u.id
GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO follow_up_counts (status, kind, priority, owner, due_on, factor_id, service_id, n)
SELECT u.status, u.kind, u.priority, u.owner, COALESCE(u.due_on, DATE '9999-12-31'), 0, s.service_id, count(*)
FROM follow_ups u JOIN incidents i ON i.id = u.incident_id AND i.deleted_at IS NULL
JOIN incident_services s ON s.incident_id = u.incident_id
GROUP BY 1, 2, 3, 4, 5, 7;

-- +goose StatementBegin
CREATE FUNCTION follow_up_counts_live(incident BIGINT) RETURNS BOOLEAN LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM incidents WHERE id = incident AND deleted_at IS NULL)
$$;
-- +goose StatementEnd

-- Adds delta to every row a follow-up counts in: overall, its factors and its incident's
-- services.
-- +goose StatementBegin
CREATE FUNCTION follow_up_counts_add(u follow_ups, delta BIGINT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    due DATE := COALESCE(u.due_on, DATE '9999-12-31');
BEGIN
    INSERT INTO follow_up_counts_pending (status, kind, priority, owner, due_on, factor_id, service_id, delta)
    SELECT u.status, u.kind, u.priority, u.owner, due, 0, 0, delta
    UNION ALL
    SELECT u.status, u.kind, u.priority, u.owner, due, factor_id, 0, delta FROM follow_up_factors WHERE follow_up_id = u.id
    UNION ALL
    SELECT u.status, u.kind, u.priority, u.owner, due, 0, service_id, delta FROM incident_services WHERE incident_id = u.incident_id;
END;
$$;
-- +goose StatementEnd

-- At commit, the first pending change of the transaction folds them all; the flag, local to the
-- transaction, makes the others return at once. Rows that reach zero go.
-- +goose StatementBegin
CREATE FUNCTION follow_up_counts_fold() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('hindsight.follow_up_counts_folded', true) IS DISTINCT FROM 'on' THEN
        PERFORM set_config('hindsight.follow_up_counts_folded', 'on', true);
        WITH moved AS (DELETE FROM follow_up_counts_pending RETURNING *)
        INSERT INTO follow_up_counts (status, kind, priority, owner, due_on, factor_id, service_id, n)
        SELECT status, kind, priority, owner, due_on, factor_id, service_id, sum(delta) FROM moved
        GROUP BY status, kind, priority, owner, due_on, factor_id, service_id
        ON CONFLICT (status, kind, priority, owner, due_on, factor_id, service_id) DO UPDATE SET n = follow_up_counts.n + EXCLUDED.n;
        DELETE FROM follow_up_counts WHERE n = 0;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE CONSTRAINT TRIGGER follow_up_counts_fold AFTER INSERT ON follow_up_counts_pending
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION follow_up_counts_fold();

-- +goose StatementBegin
CREATE FUNCTION follow_up_counts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        IF follow_up_counts_live(OLD.incident_id) THEN
            PERFORM follow_up_counts_add(OLD, -1);
        END IF;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        IF follow_up_counts_live(NEW.incident_id) THEN
            PERFORM follow_up_counts_add(NEW, 1);
        END IF;
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER follow_up_counts_insert AFTER INSERT ON follow_ups
FOR EACH ROW EXECUTE FUNCTION follow_up_counts_keep();

CREATE TRIGGER follow_up_counts_update AFTER UPDATE OF status, kind, priority, owner, due_on, incident_id ON follow_ups
FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.kind IS DISTINCT FROM NEW.kind
    OR OLD.priority IS DISTINCT FROM NEW.priority OR OLD.owner IS DISTINCT FROM NEW.owner
    OR OLD.due_on IS DISTINCT FROM NEW.due_on OR OLD.incident_id IS DISTINCT FROM NEW.incident_id)
EXECUTE FUNCTION follow_up_counts_keep();

-- Before the delete, while the follow-up's factor tags still exist. When the delete cascades from
-- its incident, the incident is already gone and the incident's own trigger has counted it out.
CREATE TRIGGER follow_up_counts_delete BEFORE DELETE ON follow_ups
FOR EACH ROW EXECUTE FUNCTION follow_up_counts_keep();

-- A factor tag added or removed moves the follow-up in or out of that factor's rows only; a
-- service added to or removed from an incident moves all its follow-ups in or out of that
-- service's rows. When the removal cascades from a deleted follow-up or incident, it was counted
-- out already.
-- +goose StatementBegin
CREATE FUNCTION follow_up_counts_keep_tags() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    delta BIGINT := 1;
    tag RECORD;
BEGIN
    IF TG_OP = 'INSERT' THEN
        tag := NEW;
    ELSE
        tag := OLD;
        delta := -1;
    END IF;
    IF TG_TABLE_NAME = 'follow_up_factors' THEN
        INSERT INTO follow_up_counts_pending (status, kind, priority, owner, due_on, factor_id, service_id, delta)
        SELECT u.status, u.kind, u.priority, u.owner, COALESCE(u.due_on, DATE '9999-12-31'), tag.factor_id, 0, delta
        FROM follow_ups u WHERE u.id = tag.follow_up_id AND follow_up_counts_live(u.incident_id);
    ELSIF follow_up_counts_live(tag.incident_id) THEN
        INSERT INTO follow_up_counts_pending (status, kind, priority, owner, due_on, factor_id, service_id, delta)
        SELECT status, kind, priority, owner, COALESCE(due_on, DATE '9999-12-31'), 0, tag.service_id, delta
        FROM follow_ups WHERE incident_id = tag.incident_id;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER follow_up_counts_factors AFTER INSERT OR DELETE ON follow_up_factors
FOR EACH ROW EXECUTE FUNCTION follow_up_counts_keep_tags();

CREATE TRIGGER follow_up_counts_services AFTER INSERT OR DELETE ON incident_services
FOR EACH ROW EXECUTE FUNCTION follow_up_counts_keep_tags();

-- An incident deleted or restored takes all its follow-ups out of the counts or back in; one
-- removed for good (while live) takes them out before its rows cascade away.
-- +goose StatementBegin
CREATE FUNCTION follow_up_counts_keep_incident() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    u follow_ups;
BEGIN
    IF TG_OP = 'DELETE' THEN
        FOR u IN SELECT * FROM follow_ups WHERE incident_id = OLD.id LOOP
            PERFORM follow_up_counts_add(u, -1);
        END LOOP;
        RETURN OLD;
    END IF;
    FOR u IN SELECT * FROM follow_ups WHERE incident_id = NEW.id LOOP
        PERFORM follow_up_counts_add(u, CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END);
    END LOOP;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER follow_up_counts_incident_deleted AFTER UPDATE OF deleted_at ON incidents
FOR EACH ROW WHEN ((OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL))
EXECUTE FUNCTION follow_up_counts_keep_incident();

CREATE TRIGGER follow_up_counts_incident_delete BEFORE DELETE ON incidents
FOR EACH ROW WHEN (OLD.deleted_at IS NULL)
EXECUTE FUNCTION follow_up_counts_keep_incident();

-- +goose Down
DROP TRIGGER follow_up_counts_incident_delete ON incidents;
DROP TRIGGER follow_up_counts_incident_deleted ON incidents;
DROP FUNCTION follow_up_counts_keep_incident();
DROP TRIGGER follow_up_counts_services ON incident_services;
DROP TRIGGER follow_up_counts_factors ON follow_up_factors;
DROP FUNCTION follow_up_counts_keep_tags();
DROP TRIGGER follow_up_counts_delete ON follow_ups;
DROP TRIGGER follow_up_counts_update ON follow_ups;
DROP TRIGGER follow_up_counts_insert ON follow_ups;
DROP FUNCTION follow_up_counts_keep();
DROP FUNCTION follow_up_counts_add(follow_ups, BIGINT);
DROP TRIGGER follow_up_counts_fold ON follow_up_counts_pending;
DROP FUNCTION follow_up_counts_fold();
DROP TABLE follow_up_counts_pending;
DROP FUNCTION follow_up_counts_live(BIGINT);
DROP INDEX follow_ups_priority_list_idx;
DROP TABLE follow_up_counts;
