-- +goose Up
-- The rules of the wording check (models/language) each user has switched off; a rule with no row
-- is on. Rules are named by their ids, so a rule added later starts on for everyone.
CREATE TABLE language_rules_off (
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    rule    TEXT   NOT NULL,
    PRIMARY KEY (user_id, rule)
);

-- +goose Down
DROP TABLE language_rules_off;
