-- The alert engine writes only what changed (issue 25). Each batch used to write a state row
-- per (setting, test case) of its runs, only to move its last_run_ms. Now:
--
-- alert_clock: per test case, the time of the last run the engine evaluated (UTC ms).
-- alert_state.last_run_ms NULL: this (setting, test case) evaluated its test case's last run,
-- the time is the test case's clock. A batch writes the clock row of each test case and only
-- the state rows whose count, runs or event changed, or whose time left the clock.
--
-- The state is clustered by test case (a batch reads the rows of its test cases); the
-- setting's index serves the delete cascade and the backfill's check.
CREATE TABLE alert_clock (
    test_case_id INTEGER PRIMARY KEY,
    last_ms      INTEGER NOT NULL
) STRICT;

CREATE TABLE alert_state_new (
    setting_id   INTEGER NOT NULL REFERENCES alert_settings(id) ON DELETE CASCADE,
    test_case_id INTEGER NOT NULL,
    count        INTEGER NOT NULL DEFAULT 0,
    pending      TEXT NOT NULL DEFAULT '',
    open_event   INTEGER,
    last_run_ms  INTEGER,
    PRIMARY KEY (test_case_id, setting_id)
) STRICT, WITHOUT ROWID;
INSERT INTO alert_state_new (setting_id, test_case_id, count, pending, open_event, last_run_ms)
SELECT setting_id, test_case_id, count, pending, open_event, last_run_ms FROM alert_state;
DROP TABLE alert_state;
ALTER TABLE alert_state_new RENAME TO alert_state;
CREATE INDEX alert_state_setting ON alert_state(setting_id);
