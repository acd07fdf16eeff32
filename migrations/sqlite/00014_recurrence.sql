-- +goose Up
-- The recurrence report over 100,000 incidents and 300,000 follow-ups: each factor tag carries a
-- copy of what the report filters, counts and sorts on, so that every figure is a range of one
-- narrow index instead of a lookup into a wide table per tag. Triggers keep the copies in the
-- same transaction as every change to what they copy, whichever process writes.
--
-- incident_factors.started_unix: the incident's start in Unix seconds (NULL when unknown).
-- incident_factors.live: the incident is not deleted.
-- follow_up_factors.fixed_unix: for a done follow-up with its completion time and its incident's
--   start known, the later of the two in Unix seconds, else NULL. An incident carrying the factor
--   came back after a fix when it started after the smallest of these.
-- follow_up_factors.live: the follow-up's incident is not deleted.
ALTER TABLE incident_factors ADD COLUMN started_unix INTEGER;
ALTER TABLE incident_factors ADD COLUMN live BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE follow_up_factors ADD COLUMN fixed_unix INTEGER;
ALTER TABLE follow_up_factors ADD COLUMN live BOOLEAN NOT NULL DEFAULT FALSE;

UPDATE incident_factors SET (started_unix, live) = (
    SELECT unixepoch(i.started_at), i.deleted_at IS NULL FROM incidents i WHERE i.id = incident_factors.incident_id);

UPDATE follow_up_factors SET (fixed_unix, live) = (
    SELECT CASE WHEN u.status = 'done' AND u.done_at IS NOT NULL AND i.started_at IS NOT NULL
            THEN max(unixepoch(u.done_at), unixepoch(i.started_at)) END,
        i.deleted_at IS NULL
    FROM follow_ups u JOIN incidents i ON i.id = u.incident_id WHERE u.id = follow_up_factors.follow_up_id);

-- The live column is in each index as well as in its condition: the report then reads the index
-- alone, without a lookup into the table per entry.
CREATE INDEX incident_factors_recurrence_idx ON incident_factors (factor_id, started_unix, incident_id, live) WHERE live;
CREATE INDEX follow_up_factors_listed_idx ON follow_up_factors (factor_id, follow_up_id, live) WHERE live;
CREATE INDEX follow_up_factors_fixed_idx ON follow_up_factors (factor_id, fixed_unix, follow_up_id, live)
    WHERE live AND fixed_unix IS NOT NULL;

-- +goose StatementBegin
CREATE TRIGGER incident_factors_recurrence_insert AFTER INSERT ON incident_factors BEGIN
    UPDATE incident_factors SET (started_unix, live) = (
        SELECT unixepoch(i.started_at), i.deleted_at IS NULL FROM incidents i WHERE i.id = new.incident_id)
    WHERE rowid = new.rowid;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_factors_recurrence_update AFTER UPDATE OF incident_id ON incident_factors BEGIN
    UPDATE incident_factors SET (started_unix, live) = (
        SELECT unixepoch(i.started_at), i.deleted_at IS NULL FROM incidents i WHERE i.id = new.incident_id)
    WHERE rowid = new.rowid;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER follow_up_factors_recurrence_insert AFTER INSERT ON follow_up_factors BEGIN
    UPDATE follow_up_factors SET (fixed_unix, live) = (
        SELECT CASE WHEN u.status = 'done' AND u.done_at IS NOT NULL AND i.started_at IS NOT NULL
                THEN max(unixepoch(u.done_at), unixepoch(i.started_at)) END,
            i.deleted_at IS NULL
        FROM follow_ups u JOIN incidents i ON i.id = u.incident_id WHERE u.id = new.follow_up_id)
    WHERE rowid = new.rowid;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER follow_up_factors_recurrence_update AFTER UPDATE OF follow_up_id ON follow_up_factors BEGIN
    UPDATE follow_up_factors SET (fixed_unix, live) = (
        SELECT CASE WHEN u.status = 'done' AND u.done_at IS NOT NULL AND i.started_at IS NOT NULL
                THEN max(unixepoch(u.done_at), unixepoch(i.started_at)) END,
            i.deleted_at IS NULL
        FROM follow_ups u JOIN incidents i ON i.id = u.incident_id WHERE u.id = new.follow_up_id)
    WHERE rowid = new.rowid;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incidents_recurrence_update AFTER UPDATE OF started_at, deleted_at ON incidents
WHEN old.started_at IS NOT new.started_at OR old.deleted_at IS NOT new.deleted_at
BEGIN
    UPDATE incident_factors SET started_unix = unixepoch(new.started_at), live = new.deleted_at IS NULL
    WHERE incident_id = new.id;
    UPDATE follow_up_factors SET (fixed_unix, live) = (
        SELECT CASE WHEN u.status = 'done' AND u.done_at IS NOT NULL AND new.started_at IS NOT NULL
                THEN max(unixepoch(u.done_at), unixepoch(new.started_at)) END,
            new.deleted_at IS NULL
        FROM follow_ups u WHERE u.id = follow_up_factors.follow_up_id)
    WHERE follow_up_id IN (SELECT id FROM follow_ups WHERE incident_id = new.id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER follow_ups_recurrence_update AFTER UPDATE OF status, done_at, incident_id ON follow_ups
WHEN old.status IS NOT new.status OR old.done_at IS NOT new.done_at OR old.incident_id IS NOT new.incident_id
BEGIN
    UPDATE follow_up_factors SET (fixed_unix, live) = (
        SELECT CASE WHEN new.status = 'done' AND new.done_at IS NOT NULL AND i.started_at IS NOT NULL
                THEN max(unixepoch(new.done_at), unixepoch(i.started_at)) END,
            i.deleted_at IS NULL
        FROM incidents i WHERE i.id = new.incident_id)
    WHERE follow_up_id = new.id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER follow_ups_recurrence_update;
DROP TRIGGER incidents_recurrence_update;
DROP TRIGGER follow_up_factors_recurrence_update;
DROP TRIGGER follow_up_factors_recurrence_insert;
DROP TRIGGER incident_factors_recurrence_update;
DROP TRIGGER incident_factors_recurrence_insert;
DROP INDEX follow_up_factors_fixed_idx;
DROP INDEX follow_up_factors_listed_idx;
DROP INDEX incident_factors_recurrence_idx;
ALTER TABLE follow_up_factors DROP COLUMN live;
ALTER TABLE follow_up_factors DROP COLUMN fixed_unix;
ALTER TABLE incident_factors DROP COLUMN live;
ALTER TABLE incident_factors DROP COLUMN started_unix;
