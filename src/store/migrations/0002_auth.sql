-- Console users. roles is a comma-separated list, first role decides restriction
-- (ROLE_USER = restricted to assigned groups). password_hash is an argon2id PHC string.
CREATE TABLE users (
    id            INTEGER PRIMARY KEY,
    username      TEXT NOT NULL UNIQUE COLLATE NOCASE,
    first_name    TEXT NOT NULL DEFAULT '',
    last_name     TEXT NOT NULL DEFAULT '',
    password_hash TEXT NOT NULL,
    roles         TEXT NOT NULL,
    access_type   TEXT NOT NULL CHECK (access_type IN ('read-write', 'read-only')),
    created_at    INTEGER NOT NULL
) STRICT;

-- Console sessions. Only the SHA-256 of a token is kept. remember: 1 when the token got
-- the longer lifetime of Remember Me.
CREATE TABLE tokens (
    token_hash TEXT PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    remember   INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX tokens_expiry ON tokens(expires_at);
CREATE INDEX tokens_user ON tokens(user_id);

-- One-time ids exchanged for a token at GET /api/auth/getToken (single sign-on return,
-- admin login links). Only the SHA-256 is kept; a row is deleted when used.
CREATE TABLE one_time_ids (
    id_hash    TEXT PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX one_time_ids_expiry ON one_time_ids(expires_at);

-- Keys test engines use for the ingest API. Only the SHA-256 of a key is kept.
CREATE TABLE api_keys (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    key_hash   TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
) STRICT;
