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
    block BIGINT PRIMARY KEY,
    n     BIGINT NOT NULL
);

-- The insights counter of migration 00008 moved after each writing statement, once its rows were
-- locked: a transaction holding the counter's row could then wait for a row that another, waiting
-- for the counter, had locked, and the two deadlocked (two transactions writing several
-- incidents, or one statement adding status updates to several incidents, whose revisions of
-- migration 00012 are locked row by row). The counter now moves before the statement touches a
-- row, so a transaction writing these tables takes the counter's row lock before any other lock
-- on them and keeps it until it ends: such transactions run one after another and cannot
-- deadlock among themselves, nor on the blocks below, whose rows only the counter's holder locks.
DROP TRIGGER insights_changed ON incidents;
DROP TRIGGER insights_changed ON timeline_events;
DROP TRIGGER insights_changed ON impact_windows;
DROP TRIGGER insights_changed ON incident_services;
DROP TRIGGER insights_changed ON incident_regions;
DROP TRIGGER insights_changed ON incident_factors;
DROP TRIGGER insights_changed ON services;
DROP TRIGGER insights_changed ON regions;
DROP TRIGGER insights_changed ON factors;

CREATE TRIGGER insights_changed BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON incidents
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();
CREATE TRIGGER insights_changed BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON timeline_events
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();
CREATE TRIGGER insights_changed BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON impact_windows
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();
CREATE TRIGGER insights_changed BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON incident_services
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();
CREATE TRIGGER insights_changed BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON incident_regions
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();
CREATE TRIGGER insights_changed BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON incident_factors
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();
CREATE TRIGGER insights_changed BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON services
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();
CREATE TRIGGER insights_changed BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON regions
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();
CREATE TRIGGER insights_changed BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON factors
FOR EACH STATEMENT EXECUTE FUNCTION insights_changed();

-- A block moves once per transaction, as the insights counter does: readers see the transaction's
-- changes all at once at commit, and a bulk import updating one row per statement would leave a
-- row version that the next update walks past. NULL moves every block, for TRUNCATE.
-- +goose StatementBegin
CREATE FUNCTION insight_blocks_move(moved BIGINT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    flag TEXT := 'hindsight.insight_block_' || replace(moved::TEXT, '-', 'm');
BEGIN
    IF moved IS NULL THEN
        UPDATE insight_blocks SET n = n + 1;
    ELSIF current_setting(flag, true) IS DISTINCT FROM 'on' THEN
        INSERT INTO insight_blocks (block, n) VALUES (moved, 1)
        ON CONFLICT (block) DO UPDATE SET n = insight_blocks.n + 1;
        PERFORM set_config(flag, 'on', true);
    END IF;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION insight_blocks_incident() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM insight_blocks_move(OLD.id / 1024);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM insight_blocks_move(NEW.id / 1024);
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION insight_blocks_child() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM insight_blocks_move(OLD.incident_id / 1024);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM insight_blocks_move(NEW.incident_id / 1024);
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION insight_blocks_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM insight_blocks_move(NULL);
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER insight_blocks AFTER INSERT OR DELETE OR UPDATE OF id, severity, detection_method, started_at, detected_at,
    acknowledged_at, mitigated_at, resolved_at, deleted_at ON incidents
FOR EACH ROW EXECUTE FUNCTION insight_blocks_incident();

-- Only public status updates make the first public update.
CREATE TRIGGER insight_blocks_insert AFTER INSERT ON timeline_events
FOR EACH ROW WHEN (NEW.kind = 'status_update' AND NEW.public) EXECUTE FUNCTION insight_blocks_child();
CREATE TRIGGER insight_blocks_update AFTER UPDATE OF incident_id, at, kind, public ON timeline_events
FOR EACH ROW WHEN (OLD.kind = 'status_update' AND OLD.public OR NEW.kind = 'status_update' AND NEW.public)
EXECUTE FUNCTION insight_blocks_child();
CREATE TRIGGER insight_blocks_delete AFTER DELETE ON timeline_events
FOR EACH ROW WHEN (OLD.kind = 'status_update' AND OLD.public) EXECUTE FUNCTION insight_blocks_child();

CREATE TRIGGER insight_blocks AFTER INSERT OR DELETE OR UPDATE OF incident_id, started_at, ended_at ON impact_windows
FOR EACH ROW EXECUTE FUNCTION insight_blocks_child();

CREATE TRIGGER insight_blocks AFTER INSERT OR UPDATE OR DELETE ON incident_services
FOR EACH ROW EXECUTE FUNCTION insight_blocks_child();

CREATE TRIGGER insight_blocks AFTER INSERT OR UPDATE OR DELETE ON incident_regions
FOR EACH ROW EXECUTE FUNCTION insight_blocks_child();

CREATE TRIGGER insight_blocks AFTER INSERT OR UPDATE OR DELETE ON incident_factors
FOR EACH ROW EXECUTE FUNCTION insight_blocks_child();

CREATE TRIGGER insight_blocks_truncate AFTER TRUNCATE ON incidents
FOR EACH STATEMENT EXECUTE FUNCTION insight_blocks_truncate();
CREATE TRIGGER insight_blocks_truncate AFTER TRUNCATE ON timeline_events
FOR EACH STATEMENT EXECUTE FUNCTION insight_blocks_truncate();
CREATE TRIGGER insight_blocks_truncate AFTER TRUNCATE ON impact_windows
FOR EACH STATEMENT EXECUTE FUNCTION insight_blocks_truncate();
CREATE TRIGGER insight_blocks_truncate AFTER TRUNCATE ON incident_services
FOR EACH STATEMENT EXECUTE FUNCTION insight_blocks_truncate();
CREATE TRIGGER insight_blocks_truncate AFTER TRUNCATE ON incident_regions
FOR EACH STATEMENT EXECUTE FUNCTION insight_blocks_truncate();
CREATE TRIGGER insight_blocks_truncate AFTER TRUNCATE ON incident_factors
FOR EACH STATEMENT EXECUTE FUNCTION insight_blocks_truncate();

-- +goose Down
DROP TRIGGER insight_blocks_truncate ON incident_factors;
DROP TRIGGER insight_blocks_truncate ON incident_regions;
DROP TRIGGER insight_blocks_truncate ON incident_services;
DROP TRIGGER insight_blocks_truncate ON impact_windows;
DROP TRIGGER insight_blocks_truncate ON timeline_events;
DROP TRIGGER insight_blocks_truncate ON incidents;
DROP TRIGGER insight_blocks ON incident_factors;
DROP TRIGGER insight_blocks ON incident_regions;
DROP TRIGGER insight_blocks ON incident_services;
DROP TRIGGER insight_blocks ON impact_windows;
DROP TRIGGER insight_blocks_delete ON timeline_events;
DROP TRIGGER insight_blocks_update ON timeline_events;
DROP TRIGGER insight_blocks_insert ON timeline_events;
DROP TRIGGER insight_blocks ON incidents;
DROP FUNCTION insight_blocks_truncate();
DROP FUNCTION insight_blocks_child();
DROP FUNCTION insight_blocks_incident();
DROP FUNCTION insight_blocks_move(BIGINT);
DROP TABLE insight_blocks;

DROP TRIGGER insights_changed ON incidents;
DROP TRIGGER insights_changed ON timeline_events;
DROP TRIGGER insights_changed ON impact_windows;
DROP TRIGGER insights_changed ON incident_services;
DROP TRIGGER insights_changed ON incident_regions;
DROP TRIGGER insights_changed ON incident_factors;
DROP TRIGGER insights_changed ON services;
DROP TRIGGER insights_changed ON regions;
DROP TRIGGER insights_changed ON factors;

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
