-- +goose Up
-- Full-text search keeps each record's tsvector in a table of its own, as the SQLite schema keeps
-- its text in FTS5 tables of the same names. The GIN expression indexes of migration 00004 found
-- the matches, but ranking them with ts_rank computed every matching row's tsvector again from
-- its text: 1.4 to 2.6 s for a search over 300,000 follow-ups. A stored tsvector ranks for the
-- cost of reading it. A timeline entry's or follow-up's document also names its incident, so
-- that leaving out deleted incidents' records needs no visit to the record. Triggers keep the
-- documents in the same transaction as every change to what they copy, and deleting a record
-- deletes its document. Searches read a few thousand documents in key order and stop: with
-- parallel workers allowed, a prepared search's generic plan started two of them for that, which
-- cost more than the reading (100 to 150 ms on a busy machine against 10).
CREATE TABLE incidents_fts (
    id       BIGINT PRIMARY KEY REFERENCES incidents (id) ON DELETE CASCADE,
    document TSVECTOR NOT NULL
) WITH (parallel_workers = 0);
CREATE TABLE timeline_events_fts (
    id          BIGINT PRIMARY KEY REFERENCES timeline_events (id) ON DELETE CASCADE,
    incident_id BIGINT NOT NULL,
    document    TSVECTOR NOT NULL
) WITH (parallel_workers = 0);
CREATE TABLE follow_ups_fts (
    id          BIGINT PRIMARY KEY REFERENCES follow_ups (id) ON DELETE CASCADE,
    incident_id BIGINT NOT NULL,
    document    TSVECTOR NOT NULL
) WITH (parallel_workers = 0);

-- The text of each document, exactly as migration 00004 indexed it.
-- +goose StatementBegin
CREATE FUNCTION incidents_fts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO incidents_fts (id, document) VALUES (NEW.id, to_tsvector('english', NEW.title || ' ' || NEW.summary || ' ' ||
        NEW.customer_impact || ' ' || NEW.root_cause || ' ' || NEW."trigger" || ' ' || NEW.detection || ' ' || NEW.response || ' ' || NEW.lessons))
    ON CONFLICT (id) DO UPDATE SET document = EXCLUDED.document;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION timeline_events_fts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO timeline_events_fts (id, incident_id, document) VALUES (NEW.id, NEW.incident_id, to_tsvector('english', NEW.body))
    ON CONFLICT (id) DO UPDATE SET incident_id = EXCLUDED.incident_id, document = EXCLUDED.document;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION follow_ups_fts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO follow_ups_fts (id, incident_id, document)
    VALUES (NEW.id, NEW.incident_id, to_tsvector('english', NEW.title || ' ' || NEW.description || ' ' || NEW.verification))
    ON CONFLICT (id) DO UPDATE SET incident_id = EXCLUDED.incident_id, document = EXCLUDED.document;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER incidents_fts_insert AFTER INSERT ON incidents FOR EACH ROW EXECUTE FUNCTION incidents_fts_keep();
CREATE TRIGGER incidents_fts_update AFTER UPDATE OF title, summary, customer_impact, root_cause, "trigger", detection, response, lessons
    ON incidents FOR EACH ROW
    WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.summary IS DISTINCT FROM NEW.summary
        OR OLD.customer_impact IS DISTINCT FROM NEW.customer_impact OR OLD.root_cause IS DISTINCT FROM NEW.root_cause
        OR OLD."trigger" IS DISTINCT FROM NEW."trigger" OR OLD.detection IS DISTINCT FROM NEW.detection
        OR OLD.response IS DISTINCT FROM NEW.response OR OLD.lessons IS DISTINCT FROM NEW.lessons)
    EXECUTE FUNCTION incidents_fts_keep();
CREATE TRIGGER timeline_events_fts_insert AFTER INSERT ON timeline_events FOR EACH ROW EXECUTE FUNCTION timeline_events_fts_keep();
CREATE TRIGGER timeline_events_fts_update AFTER UPDATE OF body, incident_id ON timeline_events FOR EACH ROW
    WHEN (OLD.body IS DISTINCT FROM NEW.body OR OLD.incident_id IS DISTINCT FROM NEW.incident_id)
    EXECUTE FUNCTION timeline_events_fts_keep();
CREATE TRIGGER follow_ups_fts_insert AFTER INSERT ON follow_ups FOR EACH ROW EXECUTE FUNCTION follow_ups_fts_keep();
CREATE TRIGGER follow_ups_fts_update AFTER UPDATE OF title, description, verification, incident_id ON follow_ups FOR EACH ROW
    WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.description IS DISTINCT FROM NEW.description
        OR OLD.verification IS DISTINCT FROM NEW.verification OR OLD.incident_id IS DISTINCT FROM NEW.incident_id)
    EXECUTE FUNCTION follow_ups_fts_keep();

-- Records that existed before this migration.
INSERT INTO incidents_fts (id, document)
    SELECT id, to_tsvector('english', title || ' ' || summary || ' ' || customer_impact || ' ' || root_cause || ' ' || "trigger" || ' ' || detection || ' ' || response || ' ' || lessons)
    FROM incidents;
INSERT INTO timeline_events_fts (id, incident_id, document) SELECT id, incident_id, to_tsvector('english', body) FROM timeline_events;
INSERT INTO follow_ups_fts (id, incident_id, document)
    SELECT id, incident_id, to_tsvector('english', title || ' ' || description || ' ' || verification) FROM follow_ups;

CREATE INDEX incidents_fts_document_idx ON incidents_fts USING GIN (document);
CREATE INDEX timeline_events_fts_document_idx ON timeline_events_fts USING GIN (document);
CREATE INDEX follow_ups_fts_document_idx ON follow_ups_fts USING GIN (document);

-- Nothing searches the text of the records themselves any more.
DROP INDEX incidents_search_idx;
DROP INDEX timeline_events_search_idx;
DROP INDEX follow_ups_search_idx;

-- +goose Down
CREATE INDEX incidents_search_idx ON incidents USING GIN (to_tsvector('english',
    title || ' ' || summary || ' ' || customer_impact || ' ' || root_cause || ' ' || "trigger" || ' ' || detection || ' ' || response || ' ' || lessons));
CREATE INDEX timeline_events_search_idx ON timeline_events USING GIN (to_tsvector('english', body));
CREATE INDEX follow_ups_search_idx ON follow_ups USING GIN (to_tsvector('english', title || ' ' || description || ' ' || verification));
DROP TRIGGER follow_ups_fts_update ON follow_ups;
DROP TRIGGER follow_ups_fts_insert ON follow_ups;
DROP TRIGGER timeline_events_fts_update ON timeline_events;
DROP TRIGGER timeline_events_fts_insert ON timeline_events;
DROP TRIGGER incidents_fts_update ON incidents;
DROP TRIGGER incidents_fts_insert ON incidents;
DROP FUNCTION follow_ups_fts_keep();
DROP FUNCTION timeline_events_fts_keep();
DROP FUNCTION incidents_fts_keep();
DROP TABLE follow_ups_fts;
DROP TABLE timeline_events_fts;
DROP TABLE incidents_fts;
