-- +goose Up
-- The review of a postmortem and its debrief (issue 18, part 2). None of it is public: the status
-- page, feeds and public exports never read these tables.
--
-- A review asked of an account, and whether that reviewer approves (approved_at) now.
CREATE TABLE review_requests (
    id              INTEGER PRIMARY KEY,
    incident_id     INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    reviewer_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    requested_by_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
    requested_at    DATETIME NOT NULL,
    approved_at     DATETIME,
    UNIQUE (incident_id, reviewer_id)
);
CREATE INDEX review_requests_reviewer_idx ON review_requests (reviewer_id);

-- A thread of comments on one section of the postmortem (by its slug), resolved or not.
CREATE TABLE review_threads (
    id             INTEGER PRIMARY KEY,
    incident_id    INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    section        TEXT NOT NULL,
    author_id      INTEGER REFERENCES users (id) ON DELETE SET NULL,
    created_at     DATETIME NOT NULL,
    resolved_at    DATETIME,
    resolved_by_id INTEGER REFERENCES users (id) ON DELETE SET NULL
);
CREATE INDEX review_threads_incident_idx ON review_threads (incident_id);
CREATE INDEX review_threads_author_idx ON review_threads (author_id) WHERE resolved_at IS NULL;

CREATE TABLE review_comments (
    id          INTEGER PRIMARY KEY,
    thread_id   INTEGER NOT NULL REFERENCES review_threads (id) ON DELETE CASCADE,
    incident_id INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    author_id   INTEGER REFERENCES users (id) ON DELETE SET NULL,
    body        TEXT NOT NULL,
    created_at  DATETIME NOT NULL
);
CREATE INDEX review_comments_thread_idx ON review_comments (thread_id, id);

-- The debrief meeting of an incident, at most one, and its notes. uid and sequence are the
-- iCalendar invitation's, so a rescheduled meeting updates the one in people's calendars.
CREATE TABLE debriefs (
    incident_id      INTEGER PRIMARY KEY REFERENCES incidents (id) ON DELETE CASCADE,
    starts_at        DATETIME NOT NULL,
    duration_minutes INTEGER NOT NULL,
    facilitator_id   INTEGER REFERENCES users (id) ON DELETE SET NULL,
    note_taker_id    INTEGER REFERENCES users (id) ON DELETE SET NULL,
    notes            TEXT NOT NULL DEFAULT '',
    uid              TEXT NOT NULL UNIQUE,
    sequence         INTEGER NOT NULL DEFAULT 0,
    created_at       DATETIME NOT NULL,
    updated_at       DATETIME NOT NULL
);
CREATE INDEX debriefs_starts_at_idx ON debriefs (starts_at);

CREATE TABLE debrief_participants (
    incident_id INTEGER NOT NULL REFERENCES debriefs (incident_id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (incident_id, user_id)
);
CREATE INDEX debrief_participants_user_idx ON debrief_participants (user_id);

-- Invitations to a debrief, composed when sent (the whole message) and delivered by the outbox
-- worker through the SMTP server like subscribers' mail, retried with backoff.
CREATE TABLE debrief_invitations (
    id              INTEGER PRIMARY KEY,
    incident_id     INTEGER NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    address         TEXT NOT NULL,
    subject         TEXT NOT NULL,
    body            TEXT NOT NULL,
    calendar        TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at DATETIME NOT NULL,
    claimed_until   DATETIME,
    sent_at         DATETIME,
    failed_at       DATETIME,
    last_error      TEXT NOT NULL DEFAULT '',
    created_at      DATETIME NOT NULL
);
CREATE INDEX debrief_invitations_due_idx ON debrief_invitations (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL;
CREATE INDEX debrief_invitations_incident_idx ON debrief_invitations (incident_id);

-- +goose Down
DROP TABLE debrief_invitations;
DROP TABLE debrief_participants;
DROP TABLE debriefs;
DROP TABLE review_comments;
DROP TABLE review_threads;
DROP TABLE review_requests;
