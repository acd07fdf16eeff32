-- +goose Up
-- How many live incidents there are for each status, severity and postmortem state, kept by
-- triggers in the same transaction as every change, so the list page's total is a sum over at
-- most 64 rows instead of a count over every incident.
CREATE TABLE incident_counts (
    status           TEXT NOT NULL,
    severity         TEXT NOT NULL,
    postmortem_state TEXT NOT NULL,
    n                INTEGER NOT NULL,
    PRIMARY KEY (status, severity, postmortem_state)
);

INSERT INTO incident_counts (status, severity, postmortem_state, n)
SELECT status, severity, postmortem_state, count(*) FROM incidents WHERE deleted_at IS NULL
GROUP BY status, severity, postmortem_state;

-- +goose StatementBegin
CREATE TRIGGER incident_counts_insert AFTER INSERT ON incidents WHEN new.deleted_at IS NULL BEGIN
    INSERT INTO incident_counts (status, severity, postmortem_state, n)
    VALUES (new.status, new.severity, new.postmortem_state, 1)
    ON CONFLICT (status, severity, postmortem_state) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_counts_delete AFTER DELETE ON incidents WHEN old.deleted_at IS NULL BEGIN
    UPDATE incident_counts SET n = n - 1
    WHERE status = old.status AND severity = old.severity AND postmortem_state = old.postmortem_state;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_counts_update AFTER UPDATE OF status, severity, postmortem_state, deleted_at ON incidents
WHEN old.status IS NOT new.status OR old.severity IS NOT new.severity
    OR old.postmortem_state IS NOT new.postmortem_state OR (old.deleted_at IS NULL) <> (new.deleted_at IS NULL)
BEGIN
    UPDATE incident_counts SET n = n - 1
    WHERE old.deleted_at IS NULL
      AND status = old.status AND severity = old.severity AND postmortem_state = old.postmortem_state;
    INSERT INTO incident_counts (status, severity, postmortem_state, n)
    SELECT new.status, new.severity, new.postmortem_state, 1 WHERE new.deleted_at IS NULL
    ON CONFLICT (status, severity, postmortem_state) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER incident_counts_update;
DROP TRIGGER incident_counts_delete;
DROP TRIGGER incident_counts_insert;
DROP TABLE incident_counts;
