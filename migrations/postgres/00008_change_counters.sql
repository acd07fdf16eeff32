-- +goose Up
-- A counter that every change to what the insights read moves, in the same transaction as the
-- change: triggers keep it, once per transaction, so writes by any server process and by the
-- CLI all count. A process that cached insights reads it (one row) to tell whether its copy still
-- holds; no memory is shared between processes. The counter's row stays locked from a writing
-- statement until its transaction ends, so transactions writing these tables queue behind one
-- another there; they are short.
CREATE TABLE change_counters (
    name TEXT PRIMARY KEY,
    n    BIGINT NOT NULL
);

INSERT INTO change_counters (name, n) VALUES ('insights', 0);

-- Once per transaction is enough, since the counter moves when the transaction commits; and
-- it is needed: each update of one row in one transaction leaves a row version that the next
-- update walks past, so a bulk import or fill would slow down with the square of its statements.
-- The flag is local to the transaction (and undone with a rolled-back savepoint).
-- +goose StatementBegin
CREATE FUNCTION insights_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('hindsight.insights_changed', true) IS DISTINCT FROM 'on' THEN
        UPDATE change_counters SET n = n + 1 WHERE name = 'insights';
        PERFORM set_config('hindsight.insights_changed', 'on', true);
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER insights_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON incidents
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();

CREATE TRIGGER insights_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON timeline_events
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();

CREATE TRIGGER insights_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON impact_windows
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();

CREATE TRIGGER insights_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON incident_services
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();

CREATE TRIGGER insights_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON incident_regions
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();

CREATE TRIGGER insights_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON incident_factors
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();

CREATE TRIGGER insights_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON services
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();

CREATE TRIGGER insights_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON regions
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();

CREATE TRIGGER insights_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON factors
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();

-- +goose Down
DROP TRIGGER insights_changed ON incidents;
DROP TRIGGER insights_changed ON timeline_events;
DROP TRIGGER insights_changed ON impact_windows;
DROP TRIGGER insights_changed ON incident_services;
DROP TRIGGER insights_changed ON incident_regions;
DROP TRIGGER insights_changed ON incident_factors;
DROP TRIGGER insights_changed ON services;
DROP TRIGGER insights_changed ON regions;
DROP TRIGGER insights_changed ON factors;
DROP FUNCTION insights_changed();
DROP TABLE change_counters;
