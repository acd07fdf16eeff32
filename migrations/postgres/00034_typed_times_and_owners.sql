-- +goose Up
-- Times people type (issue 15): the account's own time zone, which forms default to (empty:
-- the browser's, which the page then remembers here); the milestones of an incident known only
-- to the day, by name, comma-separated, so their figures are shown as approximate and counted
-- apart; and a follow-up's owner as an account where the typed owner is one, so "Mine" and the
-- per-owner calendar follow the person, not the spelling.
ALTER TABLE users ADD COLUMN time_zone TEXT NOT NULL DEFAULT '';
ALTER TABLE incidents ADD COLUMN milestone_days TEXT NOT NULL DEFAULT '';
ALTER TABLE follow_ups ADD COLUMN owner_id BIGINT REFERENCES users (id) ON DELETE SET NULL;
CREATE INDEX follow_ups_owner_id ON follow_ups (owner_id);

-- +goose Down
DROP INDEX follow_ups_owner_id;
ALTER TABLE follow_ups DROP COLUMN owner_id;
ALTER TABLE incidents DROP COLUMN milestone_days;
ALTER TABLE users DROP COLUMN time_zone;
