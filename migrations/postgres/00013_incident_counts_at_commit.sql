-- +goose Up
-- The list totals of migration 00007 were updated row by row: a transaction writing many
-- incidents updated the same few counts rows again and again, each update leaving a row version
-- the next one walks past, so a large import slowed with the square of its size. Changes now wait
-- in incident_counts_pending and are added up and applied once per key when the transaction
-- commits, as migration 00009 does for follow-ups. Each transaction sees and folds only its own
-- rows.
CREATE TABLE incident_counts_pending (
    status           TEXT NOT NULL,
    severity         TEXT NOT NULL,
    postmortem_state TEXT NOT NULL,
    delta            BIGINT NOT NULL
);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION incident_counts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.deleted_at IS NULL THEN
        INSERT INTO incident_counts_pending VALUES (OLD.status, OLD.severity, OLD.postmortem_state, -1);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.deleted_at IS NULL THEN
        INSERT INTO incident_counts_pending VALUES (NEW.status, NEW.severity, NEW.postmortem_state, 1);
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION incident_counts_fold() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('hindsight.incident_counts_folded', true) IS DISTINCT FROM 'on' THEN
        PERFORM set_config('hindsight.incident_counts_folded', 'on', true);
        WITH moved AS (DELETE FROM incident_counts_pending RETURNING *)
        INSERT INTO incident_counts (status, severity, postmortem_state, n)
        SELECT status, severity, postmortem_state, sum(delta) FROM moved GROUP BY status, severity, postmortem_state
        ON CONFLICT (status, severity, postmortem_state) DO UPDATE SET n = incident_counts.n + EXCLUDED.n;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE CONSTRAINT TRIGGER incident_counts_fold AFTER INSERT ON incident_counts_pending
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION incident_counts_fold();

-- +goose Down
DROP TRIGGER incident_counts_fold ON incident_counts_pending;
DROP FUNCTION incident_counts_fold();

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION incident_counts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.deleted_at IS NULL THEN
        UPDATE incident_counts SET n = n - 1
        WHERE status = OLD.status AND severity = OLD.severity AND postmortem_state = OLD.postmortem_state;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.deleted_at IS NULL THEN
        INSERT INTO incident_counts (status, severity, postmortem_state, n)
        VALUES (NEW.status, NEW.severity, NEW.postmortem_state, 1)
        ON CONFLICT (status, severity, postmortem_state) DO UPDATE SET n = incident_counts.n + 1;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

DROP TABLE incident_counts_pending;
