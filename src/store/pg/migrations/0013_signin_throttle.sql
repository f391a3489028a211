-- Sign-in throttling shared by every instance (domain/throttle.rs has the rule; on SQLite,
-- one process, the counts stay in memory): failures per username key, times in UTC ms.
CREATE TABLE signin_failures (
    key           TEXT PRIMARY KEY,
    failures      BIGINT NOT NULL,
    last_ms       BIGINT NOT NULL,
    wait_until_ms BIGINT
);
CREATE INDEX signin_failures_last ON signin_failures(last_ms);
