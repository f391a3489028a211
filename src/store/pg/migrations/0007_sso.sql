-- Single sign-on state (SQLite: 0007_sso.sql): any instance can finish a sign-in.
CREATE TABLE sso_logins (
    state_hash    TEXT PRIMARY KEY,
    tenant        TEXT NOT NULL,
    nonce         TEXT NOT NULL,
    pkce_verifier TEXT NOT NULL,
    redirect_url  TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    expires_at    BIGINT NOT NULL
);
CREATE INDEX sso_logins_expiry ON sso_logins(expires_at);
