-- The audit log (issue 14): one row per change made through the console or the CLI,
-- written in the same transaction as the change (store/audit.rs). before/after: JSON of
-- the changed row without secrets (passwords, hashes, tokens never appear). Rows are only
-- ever inserted; the retention task deletes the old ones, nothing updates them.
CREATE TABLE audit_log (
    id         INTEGER PRIMARY KEY,
    at         INTEGER NOT NULL,
    user_id    INTEGER,
    username   TEXT NOT NULL,
    address    TEXT NOT NULL,
    kind       TEXT NOT NULL,
    action     TEXT NOT NULL,
    target     TEXT NOT NULL,
    before     TEXT,
    after      TEXT
) STRICT;
CREATE INDEX audit_log_at ON audit_log(at);
CREATE INDEX audit_log_user ON audit_log(user_id, at);
CREATE INDEX audit_log_kind ON audit_log(kind, at);

CREATE TRIGGER audit_log_append_only BEFORE UPDATE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'audit records cannot be changed');
END;
