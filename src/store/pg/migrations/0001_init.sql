-- PostgreSQL schema: the same tables as the SQLite migrations of the same number
-- (src/store/migrations/), in PostgreSQL's types: BIGINT for integers, BOOLEAN for flags,
-- BYTEA for blobs, identity columns for ids. The version is the number of files applied
-- (table schema_version), checked as SQLite's user_version is.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
