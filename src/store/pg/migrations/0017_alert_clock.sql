-- The alert engine writes only what changed (issue 25; SQLite: 0017_alert_clock.sql).
-- alert_clock: per test case, the time of the last run the engine evaluated (UTC ms).
-- alert_state.last_run_ms NULL: the (setting, test case) is at its test case's clock.
-- A batch reads the state rows of its test cases (the key, test case first) and writes the
-- clock rows and only the state rows that changed.
CREATE TABLE alert_clock (
    test_case_id BIGINT PRIMARY KEY,
    last_ms      BIGINT NOT NULL
);
ALTER TABLE alert_state DROP CONSTRAINT alert_state_pkey;
ALTER TABLE alert_state ADD PRIMARY KEY (test_case_id, setting_id);
CREATE INDEX alert_state_setting ON alert_state(setting_id);
