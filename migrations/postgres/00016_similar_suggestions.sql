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

-- +goose Down
DROP TABLE similar_suggestions;
DROP TABLE similar_sets;
