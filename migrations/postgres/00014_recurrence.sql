-- +goose Up
-- The recurrence report over 100,000 incidents and 300,000 follow-ups: each factor tag carries a
-- copy of what the report filters, counts and sorts on, so that every figure is a range of one
-- narrow index instead of a join to a wide table per tag. Triggers keep the copies in the same
-- transaction as every change to what they copy, whichever process writes.
--
-- incident_factors.started_unix: the incident's start in Unix seconds (NULL when unknown).
-- incident_factors.live: the incident is not deleted.
-- follow_up_factors.fixed_unix: for a done follow-up with its completion time and its incident's
--   start known, the later of the two in Unix seconds, else NULL. An incident carrying the factor
--   came back after a fix when it started after the smallest of these.
-- follow_up_factors.live: the follow-up's incident is not deleted.
ALTER TABLE incident_factors ADD COLUMN started_unix BIGINT, ADD COLUMN live BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE follow_up_factors ADD COLUMN fixed_unix BIGINT, ADD COLUMN live BOOLEAN NOT NULL DEFAULT FALSE;

-- Unix seconds, rounded down; stored instants are whole seconds anyway.
-- +goose StatementBegin
CREATE FUNCTION recurrence_unix(t TIMESTAMPTZ) RETURNS BIGINT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CAST(floor(EXTRACT(EPOCH FROM t)) AS BIGINT)
$$;
-- +goose StatementEnd

-- The later of a fix's completion and its incident's start, when it is a fix at all.
-- +goose StatementBegin
CREATE FUNCTION recurrence_fixed(status TEXT, done_at TIMESTAMPTZ, started_at TIMESTAMPTZ) RETURNS BIGINT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN status = 'done' AND done_at IS NOT NULL AND started_at IS NOT NULL
        THEN recurrence_unix(GREATEST(done_at, started_at)) END
$$;
-- +goose StatementEnd

UPDATE incident_factors SET started_unix = recurrence_unix(i.started_at), live = i.deleted_at IS NULL
FROM incidents i WHERE i.id = incident_factors.incident_id;

UPDATE follow_up_factors SET fixed_unix = recurrence_fixed(u.status, u.done_at, i.started_at), live = i.deleted_at IS NULL
FROM follow_ups u JOIN incidents i ON i.id = u.incident_id WHERE u.id = follow_up_factors.follow_up_id;

CREATE INDEX incident_factors_recurrence_idx ON incident_factors (factor_id, started_unix DESC NULLS LAST, incident_id DESC) WHERE live;
CREATE INDEX follow_up_factors_listed_idx ON follow_up_factors (factor_id, follow_up_id) WHERE live;
CREATE INDEX follow_up_factors_fixed_idx ON follow_up_factors (factor_id, fixed_unix, follow_up_id)
    WHERE live AND fixed_unix IS NOT NULL;

-- +goose StatementBegin
CREATE FUNCTION incident_factors_recurrence() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT recurrence_unix(i.started_at), i.deleted_at IS NULL INTO NEW.started_unix, NEW.live
    FROM incidents i WHERE i.id = NEW.incident_id;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER incident_factors_recurrence BEFORE INSERT OR UPDATE OF incident_id ON incident_factors
FOR EACH ROW EXECUTE FUNCTION incident_factors_recurrence();

-- +goose StatementBegin
CREATE FUNCTION follow_up_factors_recurrence() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT recurrence_fixed(u.status, u.done_at, i.started_at), i.deleted_at IS NULL
    INTO NEW.fixed_unix, NEW.live
    FROM follow_ups u JOIN incidents i ON i.id = u.incident_id WHERE u.id = NEW.follow_up_id;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER follow_up_factors_recurrence BEFORE INSERT OR UPDATE OF follow_up_id ON follow_up_factors
FOR EACH ROW EXECUTE FUNCTION follow_up_factors_recurrence();

-- +goose StatementBegin
CREATE FUNCTION incidents_recurrence() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE incident_factors SET started_unix = recurrence_unix(NEW.started_at), live = NEW.deleted_at IS NULL
    WHERE incident_id = NEW.id;
    UPDATE follow_up_factors SET fixed_unix = recurrence_fixed(u.status, u.done_at, NEW.started_at),
        live = NEW.deleted_at IS NULL
    FROM follow_ups u WHERE u.incident_id = NEW.id AND follow_up_factors.follow_up_id = u.id;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER incidents_recurrence AFTER UPDATE OF started_at, deleted_at ON incidents
FOR EACH ROW WHEN (OLD.started_at IS DISTINCT FROM NEW.started_at OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
EXECUTE FUNCTION incidents_recurrence();

-- +goose StatementBegin
CREATE FUNCTION follow_ups_recurrence() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE follow_up_factors SET fixed_unix = recurrence_fixed(NEW.status, NEW.done_at, i.started_at),
        live = i.deleted_at IS NULL
    FROM incidents i WHERE i.id = NEW.incident_id AND follow_up_factors.follow_up_id = NEW.id;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER follow_ups_recurrence AFTER UPDATE OF status, done_at, incident_id ON follow_ups
FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.done_at IS DISTINCT FROM NEW.done_at
    OR OLD.incident_id IS DISTINCT FROM NEW.incident_id)
EXECUTE FUNCTION follow_ups_recurrence();

-- +goose Down
DROP TRIGGER follow_ups_recurrence ON follow_ups;
DROP FUNCTION follow_ups_recurrence();
DROP TRIGGER incidents_recurrence ON incidents;
DROP FUNCTION incidents_recurrence();
DROP TRIGGER follow_up_factors_recurrence ON follow_up_factors;
DROP FUNCTION follow_up_factors_recurrence();
DROP TRIGGER incident_factors_recurrence ON incident_factors;
DROP FUNCTION incident_factors_recurrence();
DROP INDEX follow_up_factors_fixed_idx;
DROP INDEX follow_up_factors_listed_idx;
DROP INDEX incident_factors_recurrence_idx;
ALTER TABLE follow_up_factors DROP COLUMN live, DROP COLUMN fixed_unix;
ALTER TABLE incident_factors DROP COLUMN live, DROP COLUMN started_unix;
DROP FUNCTION recurrence_fixed(TEXT, TIMESTAMPTZ, TIMESTAMPTZ);
DROP FUNCTION recurrence_unix(TIMESTAMPTZ);
