-- The server's own idle limit (spec §4's 15 minutes, which the console keeps in the browser):
-- last_used_at is when the token last made a call (seconds, UTC; written at most once a
-- minute per token, store/auth.rs). A session that made none for auth.idle_timeout_secs
-- ends, a kiosk session excepted. Sessions started before this migration count from it.
ALTER TABLE tokens ADD COLUMN last_used_at INTEGER NOT NULL DEFAULT 0;
UPDATE tokens SET last_used_at = CAST(strftime('%s', 'now') AS INTEGER);
