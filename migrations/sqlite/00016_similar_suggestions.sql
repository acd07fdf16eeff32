-- +goose Up
-- Each incident's similar earlier incidents, ranked once and kept, so that viewing an incident
-- reads five rows instead of ranking up to a thousand candidates. similar_sets says a ranking
-- exists for an incident, what it was ranked from (basis: a hash of the incident's title, summary,
-- start, services and factors; a different basis means rank again) and when (Unix seconds; an old
-- ranking is served and refreshed in the background, since other incidents change too). The
-- suggestions keep only what the ranking decided: titles and starts are read from the incidents
-- when shown, deleted incidents are left out then, and shares holds the ids of the shared factors
-- ("f3") and services ("s12"), named from the viewed incident's own tags.
CREATE TABLE similar_sets (
    incident_id INTEGER PRIMARY KEY REFERENCES incidents(id) ON DELETE CASCADE,
    basis       TEXT NOT NULL,
    computed_at INTEGER NOT NULL
);

CREATE TABLE similar_suggestions (
    incident_id INTEGER NOT NULL REFERENCES similar_sets(incident_id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    similar_id  INTEGER NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
    score       REAL NOT NULL,
    text_match  BOOLEAN NOT NULL,
    shares      TEXT NOT NULL,
    PRIMARY KEY (incident_id, position)
);

CREATE INDEX similar_suggestions_similar ON similar_suggestions (similar_id);

-- A link shows on both incidents' pages, so adding, changing or removing one moves both incidents'
-- revisions (migration 00012), which a kept incident page is checked against.
-- +goose StatementBegin
CREATE TRIGGER incident_revision_links_insert AFTER INSERT ON incident_links BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (new.from_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
    INSERT INTO incident_revisions (incident_id, n) VALUES (new.to_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_links_update AFTER UPDATE ON incident_links BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.from_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.to_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
    INSERT INTO incident_revisions (incident_id, n) VALUES (new.from_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
    INSERT INTO incident_revisions (incident_id, n) VALUES (new.to_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_links_delete AFTER DELETE ON incident_links BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.from_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.to_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- An incident's page also shows other incidents' titles, starts and states (those it links to or
-- from, and its similar incidents) and the factor taxonomy (the follow-up form offers it). So
-- any change to an incident's row moves its own revision and those of the incidents whose pages
-- show it, and adding or removing a factor moves the "names" counter as renaming one does. A
-- page kept by its incident's revision, the names counter and its similar ranking is then right.
-- +goose StatementBegin
CREATE TRIGGER incident_revision_incidents_update AFTER UPDATE ON incidents BEGIN
    INSERT INTO incident_revisions (incident_id, n)
        SELECT x, 1 FROM (
            SELECT new.id AS x
            UNION SELECT old.id
            UNION SELECT from_id FROM incident_links WHERE to_id IN (old.id, new.id)
            UNION SELECT to_id FROM incident_links WHERE from_id IN (old.id, new.id)
            UNION SELECT incident_id FROM similar_suggestions WHERE similar_id IN (old.id, new.id)
        ) WHERE true
        ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_incidents_delete AFTER DELETE ON incidents BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER incident_revision_similar_delete AFTER DELETE ON similar_suggestions BEGIN
    INSERT INTO incident_revisions (incident_id, n) VALUES (old.incident_id, 1)
    ON CONFLICT (incident_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER names_changed_factors_insert AFTER INSERT ON factors BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'names';
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER names_changed_factors_delete AFTER DELETE ON factors BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'names';
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER names_changed_factors_delete;
DROP TRIGGER names_changed_factors_insert;
DROP TRIGGER incident_revision_similar_delete;
DROP TRIGGER incident_revision_incidents_delete;
DROP TRIGGER incident_revision_incidents_update;
DROP TRIGGER incident_revision_links_delete;
DROP TRIGGER incident_revision_links_update;
DROP TRIGGER incident_revision_links_insert;
DROP TABLE similar_suggestions;
DROP TABLE similar_sets;
