-- +goose Up
-- A note is the team's own record and is never shown to customers. Notes saved public before
-- this rule (the add form ticked "Shown to customers" by default) leave the status page.
UPDATE timeline_events SET public = FALSE WHERE kind = 'note' AND public;
-- The Trash lists the incidents deleted in the last 30 days, most recently deleted first.
CREATE INDEX incidents_trash_idx ON incidents (deleted_at DESC, id DESC) WHERE deleted_at IS NOT NULL;

-- +goose Down
-- The notes made internal stay internal: which of them had been public is not kept.
DROP INDEX incidents_trash_idx;
