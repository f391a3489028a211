-- The server's own idle limit (SQLite: 0034_session_idle.sql).
ALTER TABLE tokens ADD COLUMN last_used_at BIGINT NOT NULL DEFAULT 0;
UPDATE tokens SET last_used_at = CAST(EXTRACT(EPOCH FROM now()) AS BIGINT);
