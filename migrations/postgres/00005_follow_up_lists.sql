-- +goose Up
-- The follow-up list leaves out the follow-ups of deleted incidents through this small set.
CREATE INDEX incidents_deleted_idx ON incidents (id) WHERE deleted_at IS NOT NULL;
-- Counts by status under the other filters read only this index; the list sorted by due date,
-- undated last, reads it in order.
CREATE INDEX follow_ups_status_list_idx ON follow_ups (status, due_on ASC NULLS LAST, id) INCLUDE (owner, priority, kind);
CREATE INDEX follow_ups_due_list_idx ON follow_ups (due_on ASC NULLS LAST, id);
CREATE INDEX follow_ups_owner_list_idx ON follow_ups (owner, status, due_on ASC NULLS LAST, id);

-- +goose Down
DROP INDEX follow_ups_owner_list_idx;
DROP INDEX follow_ups_due_list_idx;
DROP INDEX follow_ups_status_list_idx;
DROP INDEX incidents_deleted_idx;
