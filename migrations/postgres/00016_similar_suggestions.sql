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
    incident_id BIGINT PRIMARY KEY REFERENCES incidents(id) ON DELETE CASCADE,
    basis       TEXT NOT NULL,
    computed_at BIGINT NOT NULL
);

CREATE TABLE similar_suggestions (
    incident_id BIGINT NOT NULL REFERENCES similar_sets(incident_id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    similar_id  BIGINT NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
    score       DOUBLE PRECISION NOT NULL,
    text_match  BOOLEAN NOT NULL,
    shares      TEXT NOT NULL,
    PRIMARY KEY (incident_id, position)
);

CREATE INDEX similar_suggestions_similar ON similar_suggestions (similar_id);

-- A link shows on both incidents' pages, so adding, changing or removing one moves both incidents'
-- revisions (migration 00012), which a kept incident page is checked against.
-- +goose StatementBegin
CREATE FUNCTION incident_revision_links_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    incident BIGINT;
BEGIN
    FOR incident IN
        SELECT x FROM (
            SELECT OLD.from_id AS x WHERE TG_OP <> 'INSERT' UNION SELECT OLD.to_id WHERE TG_OP <> 'INSERT'
            UNION SELECT NEW.from_id WHERE TG_OP <> 'DELETE' UNION SELECT NEW.to_id WHERE TG_OP <> 'DELETE'
        ) ends ORDER BY x
    LOOP
        INSERT INTO incident_revisions (incident_id, n) VALUES (incident, 1)
        ON CONFLICT (incident_id) DO UPDATE SET n = incident_revisions.n + 1;
    END LOOP;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER incident_revision_links AFTER INSERT OR UPDATE OR DELETE ON incident_links
    FOR EACH ROW EXECUTE FUNCTION incident_revision_links_bump();

-- An incident's page also shows other incidents' titles, starts and states (those it links to or
-- from, and its similar incidents) and the factor taxonomy (the follow-up form offers it). So
-- any change to an incident's row moves its own revision and those of the incidents whose pages
-- show it, and adding or removing a factor moves the "names" counter as renaming one does. A
-- page kept by its incident's revision, the names counter and its similar ranking is then right.
-- +goose StatementBegin
CREATE FUNCTION incident_revision_incidents_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'similar_suggestions' THEN
        INSERT INTO incident_revisions (incident_id, n) VALUES (OLD.incident_id, 1)
        ON CONFLICT (incident_id) DO UPDATE SET n = incident_revisions.n + 1;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO incident_revisions (incident_id, n) VALUES (OLD.id, 1)
        ON CONFLICT (incident_id) DO UPDATE SET n = incident_revisions.n + 1;
    ELSE
        INSERT INTO incident_revisions (incident_id, n)
            SELECT x, 1 FROM (
                SELECT NEW.id AS x
                UNION SELECT OLD.id
                UNION SELECT from_id FROM incident_links WHERE to_id IN (OLD.id, NEW.id)
                UNION SELECT to_id FROM incident_links WHERE from_id IN (OLD.id, NEW.id)
                UNION SELECT incident_id FROM similar_suggestions WHERE similar_id IN (OLD.id, NEW.id)
            ) shown ORDER BY x
            ON CONFLICT (incident_id) DO UPDATE SET n = incident_revisions.n + 1;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER incident_revision_incidents AFTER UPDATE OR DELETE ON incidents
    FOR EACH ROW EXECUTE FUNCTION incident_revision_incidents_bump();

CREATE TRIGGER incident_revision_similar AFTER DELETE ON similar_suggestions
    FOR EACH ROW EXECUTE FUNCTION incident_revision_incidents_bump();

-- +goose StatementBegin
CREATE FUNCTION names_changed_factors_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE change_counters SET n = n + 1 WHERE name = 'names';
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER names_changed_factors_count AFTER INSERT OR DELETE ON factors
    FOR EACH STATEMENT EXECUTE FUNCTION names_changed_factors_count();

-- +goose Down
DROP TRIGGER names_changed_factors_count ON factors;
DROP FUNCTION names_changed_factors_count();
DROP TRIGGER incident_revision_similar ON similar_suggestions;
DROP TRIGGER incident_revision_incidents ON incidents;
DROP FUNCTION incident_revision_incidents_bump();
DROP TRIGGER incident_revision_links ON incident_links;
DROP FUNCTION incident_revision_links_bump();
DROP TABLE similar_suggestions;
DROP TABLE similar_sets;
