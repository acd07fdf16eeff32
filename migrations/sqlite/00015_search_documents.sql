-- +goose Up
-- Nothing to do on SQLite: its FTS5 tables (migration 00004) already keep each record's indexed
-- text apart from the record, which PostgreSQL's migration 00015 now does with stored tsvectors.
-- The version is kept so that both dialects number their migrations alike.

-- +goose Down
