-- +goose Up
-- follow_up_factors.kind: the follow-up's kind, copied beside fixed_unix so that the fixes-held
-- report (models/fixes_held.go) counts each factor's done fixes per kind, and how many an incident
-- came back after, as ranges of one narrow index instead of looking up 75,000 follow-ups at
-- 100,000 incidents. The store's write path writes it with the other recurrence copies
-- (models/recurrence_copies.go); doctor recomputes and compares it.
ALTER TABLE follow_up_factors ADD COLUMN kind TEXT NOT NULL DEFAULT '';
UPDATE follow_up_factors SET kind = (SELECT u.kind FROM follow_ups u WHERE u.id = follow_up_factors.follow_up_id);
CREATE INDEX follow_up_factors_kind_idx ON follow_up_factors (factor_id, kind, fixed_unix)
    WHERE live AND fixed_unix IS NOT NULL;

-- +goose Down
DROP INDEX follow_up_factors_kind_idx;
ALTER TABLE follow_up_factors DROP COLUMN kind;
