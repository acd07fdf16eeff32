-- +goose Up
-- How many live incidents there are for each status, severity and postmortem state, kept by a
-- trigger in the same transaction as every change, so the list page's total is a sum over at
-- most 64 rows instead of a count over every incident.
CREATE TABLE incident_counts (
    status           TEXT NOT NULL,
    severity         TEXT NOT NULL,
    postmortem_state TEXT NOT NULL,
    n                BIGINT NOT NULL,
    PRIMARY KEY (status, severity, postmortem_state)
);

INSERT INTO incident_counts (status, severity, postmortem_state, n)
SELECT status, severity, postmortem_state, count(*) FROM incidents WHERE deleted_at IS NULL
GROUP BY status, severity, postmortem_state;

-- +goose StatementBegin
CREATE FUNCTION incident_counts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE TRIGGER incident_counts_insert_delete AFTER INSERT OR DELETE ON incidents
FOR EACH ROW EXECUTE FUNCTION incident_counts_keep();

CREATE TRIGGER incident_counts_update AFTER UPDATE OF status, severity, postmortem_state, deleted_at ON incidents
FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.severity IS DISTINCT FROM NEW.severity
    OR OLD.postmortem_state IS DISTINCT FROM NEW.postmortem_state
    OR (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL))
EXECUTE FUNCTION incident_counts_keep();

-- +goose Down
DROP TRIGGER incident_counts_update ON incidents;
DROP TRIGGER incident_counts_insert_delete ON incidents;
DROP FUNCTION incident_counts_keep();
DROP TABLE incident_counts;
