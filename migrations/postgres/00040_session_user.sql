-- +goose Up
-- The account a session is signed in as, written with the session: a request reads its session
-- and its account in one statement (models/session_store.go).
ALTER TABLE sessions ADD COLUMN user_id BIGINT;

-- +goose Down
ALTER TABLE sessions DROP COLUMN user_id;
