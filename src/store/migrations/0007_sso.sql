-- Single sign-on (OpenID Connect) sign-ins under way: one row from the redirect to the
-- provider until its return, so any instance behind a load balancer can finish it. Only the
-- SHA-256 of the state is kept; the row is deleted when the provider returns (used once) or
-- when it expires. nonce and pkce_verifier are sent back to the provider's token endpoint
-- and checked in the ID token.
CREATE TABLE sso_logins (
    state_hash    TEXT PRIMARY KEY,
    tenant        TEXT NOT NULL,
    nonce         TEXT NOT NULL,
    pkce_verifier TEXT NOT NULL,
    redirect_url  TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX sso_logins_expiry ON sso_logins(expires_at);
