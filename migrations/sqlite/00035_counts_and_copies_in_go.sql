-- +goose Up
-- The last derived state kept by triggers (issue 12, DESIGN §5) moves to the store's Go code:
-- - the list totals of 00007 and the follow-up counts of 00009 are no longer tables every write
--   updates: each process keeps them in memory, read again for the incidents the version feed of
--   00026 says changed (models/list_counts.go), so no write touches a shared counts row;
-- - the recurrence copies of 00014 (incident_factors.started_unix/live,
--   follow_up_factors.fixed_unix/live) stay, written by the write path for the incidents whose
--   start, deletion, factors or follow-ups changed (models/changes.go).
-- Only the full-text triggers of 00004 and 00026 remain.
DROP TRIGGER incident_counts_insert;
DROP TRIGGER incident_counts_delete;
DROP TRIGGER incident_counts_update;
DROP TRIGGER follow_up_counts_insert;
DROP TRIGGER follow_up_counts_update;
DROP TRIGGER follow_up_counts_delete;
DROP TRIGGER follow_up_counts_factor_insert;
DROP TRIGGER follow_up_counts_factor_delete;
DROP TRIGGER follow_up_counts_service_insert;
DROP TRIGGER follow_up_counts_service_delete;
DROP TRIGGER follow_up_counts_incident_deleted;
DROP TRIGGER follow_up_counts_incident_delete;
DROP TRIGGER follow_up_count_changes_apply;
DROP VIEW follow_up_count_changes;
DROP TABLE incident_counts;
DROP TABLE follow_up_counts;
DROP TRIGGER incident_factors_recurrence_insert;
DROP TRIGGER incident_factors_recurrence_update;
DROP TRIGGER follow_up_factors_recurrence_insert;
DROP TRIGGER follow_up_factors_recurrence_update;
DROP TRIGGER incidents_recurrence_update;
DROP TRIGGER follow_ups_recurrence_update;

-- +goose Down
-- The triggers are not restored: migrating down past 00035 needs the earlier migrations run
-- again from an empty database, or a restore from `hindsight export native`.
CREATE TABLE incident_counts (
    status           TEXT NOT NULL,
    severity         TEXT NOT NULL,
    postmortem_state TEXT NOT NULL,
    n                INTEGER NOT NULL,
    PRIMARY KEY (status, severity, postmortem_state)
);
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
