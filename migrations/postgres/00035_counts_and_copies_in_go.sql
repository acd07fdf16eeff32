-- +goose Up
-- The last derived state kept by triggers (issue 12, DESIGN §5) moves to the store's Go code:
-- - the list totals of 00007/00013 and the follow-up counts of 00009 are no longer tables every
--   write updates (and every writer of the same key waited on at commit): each process keeps
--   them in memory, read again for the incidents the version feed of 00026 says changed
--   (models/list_counts.go);
-- - the recurrence copies of 00014 (incident_factors.started_unix/live,
--   follow_up_factors.fixed_unix/live) stay, written by the write path for the incidents whose
--   start, deletion, factors or follow-ups changed (models/changes.go).
-- Only the full-text triggers of 00004/00015 remain. recurrence_unix and recurrence_fixed stay:
-- they are plain functions the write path's statements call.
DROP TRIGGER incident_counts_update ON incidents;
DROP TRIGGER incident_counts_insert_delete ON incidents;
DROP FUNCTION incident_counts_keep();
DROP TRIGGER incident_counts_fold ON incident_counts_pending;
DROP FUNCTION incident_counts_fold();
DROP TABLE incident_counts_pending;
DROP TABLE incident_counts;
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
DROP TABLE follow_up_counts;
DROP TRIGGER follow_ups_recurrence ON follow_ups;
DROP FUNCTION follow_ups_recurrence();
DROP TRIGGER incidents_recurrence ON incidents;
DROP FUNCTION incidents_recurrence();
DROP TRIGGER follow_up_factors_recurrence ON follow_up_factors;
DROP FUNCTION follow_up_factors_recurrence();
DROP TRIGGER incident_factors_recurrence ON incident_factors;
DROP FUNCTION incident_factors_recurrence();

-- +goose Down
-- The triggers are not restored: migrating down past 00035 needs the earlier migrations run
-- again from an empty database, or a restore from `hindsight export native`.
CREATE TABLE incident_counts (
    status           TEXT NOT NULL,
    severity         TEXT NOT NULL,
    postmortem_state TEXT NOT NULL,
    n                BIGINT NOT NULL,
    PRIMARY KEY (status, severity, postmortem_state)
);
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
