-- +goose Up
-- Postmortem templates (issue 18). The built-in templates live in Go (models/templates.go); the
-- ones admins write live here, each with its sections: a heading, the prompt shown beside the
-- editor, whether it is published and whether the completeness check asks for it. A template's
-- sections named like one of the incident's own sections (customer_impact, root_cause, …) only
-- give that section a prompt; the others are stored with each incident in incident_sections.
CREATE TABLE postmortem_templates (
    id          INTEGER PRIMARY KEY,
    slug        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    created_at  DATETIME NOT NULL,
    updated_at  DATETIME NOT NULL
);

CREATE TABLE template_sections (
    id          INTEGER PRIMARY KEY,
    template_id INTEGER NOT NULL REFERENCES postmortem_templates (id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    slug        TEXT NOT NULL,
    heading     TEXT NOT NULL,
    prompt      TEXT NOT NULL DEFAULT '',
    public      BOOLEAN NOT NULL DEFAULT FALSE,
    required    BOOLEAN NOT NULL DEFAULT FALSE,
    UNIQUE (template_id, slug)
);

-- The template a new incident of a severity starts with, by the template's slug (built-in or not).
CREATE TABLE template_defaults (
    severity      TEXT PRIMARY KEY,
    template_slug TEXT NOT NULL
);

-- An incident's sections beyond its own six, with the heading and public flag they were written
-- under, so exports and the public page need not look the template up.
CREATE TABLE incident_sections (
    id          INTEGER PRIMARY KEY,
    incident_id INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    slug        TEXT NOT NULL,
    heading     TEXT NOT NULL,
    body        TEXT NOT NULL DEFAULT '',
    public      BOOLEAN NOT NULL DEFAULT FALSE,
    UNIQUE (incident_id, slug)
);

-- A near miss had no customer impact: its figures are not asked for, and the insights and the
-- recurrence report count it apart.
ALTER TABLE incidents ADD COLUMN near_miss BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE incidents ADD COLUMN template_slug TEXT NOT NULL DEFAULT '';
-- Near misses are few: the insights' copy of every incident reads their ids through this index.
CREATE INDEX incidents_near_miss_idx ON incidents (id) WHERE near_miss;

-- +goose Down
DROP INDEX incidents_near_miss_idx;
ALTER TABLE incidents DROP COLUMN template_slug;
ALTER TABLE incidents DROP COLUMN near_miss;
DROP TABLE incident_sections;
DROP TABLE template_defaults;
DROP TABLE template_sections;
DROP TABLE postmortem_templates;
