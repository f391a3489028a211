-- Maintenance windows (issue 28): planned work during which the alert engine leaves the
-- covered test cases alone. Rules in domain/alerting.rs (MaintenanceWindow), the store in
-- store/maintenance.rs.
--
-- A window is once (start_ms to end_ms, UTC ms, end excluded) or weekly (the half hours of
-- maintenance_window_schedule, site time, from start_ms on). ended_ms: ended early; nothing
-- from then on is covered. event_id: the alert event it was made from ('mute'), if any.
-- Windows are never deleted: they are ended (the runs they marked keep their window).
CREATE TABLE maintenance_windows (
    id         INTEGER PRIMARY KEY,
    reason     TEXT NOT NULL,
    weekly     INTEGER NOT NULL DEFAULT 0 CHECK (weekly IN (0, 1)),
    start_ms   INTEGER NOT NULL,
    end_ms     INTEGER,
    ended_ms   INTEGER,
    event_id   INTEGER,
    created_by TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    CHECK (weekly = 1 OR (end_ms IS NOT NULL AND end_ms > start_ms))
) STRICT;
-- The windows that may still cover a run (the ingest's read).
CREATE INDEX maintenance_windows_live ON maintenance_windows(id) WHERE ended_ms IS NULL;

-- What a window covers: whole test case groups and single test cases.
CREATE TABLE maintenance_window_groups (
    window_id INTEGER NOT NULL REFERENCES maintenance_windows(id) ON DELETE CASCADE,
    group_id  INTEGER NOT NULL REFERENCES test_case_groups(id) ON DELETE CASCADE,
    PRIMARY KEY (window_id, group_id)
) STRICT, WITHOUT ROWID;
CREATE TABLE maintenance_window_cases (
    window_id    INTEGER NOT NULL REFERENCES maintenance_windows(id) ON DELETE CASCADE,
    test_case_id INTEGER NOT NULL REFERENCES test_cases(id) ON DELETE CASCADE,
    PRIMARY KEY (window_id, test_case_id)
) STRICT, WITHOUT ROWID;

-- A weekly window's week, as alert_setting_schedule: a 48-bit mask of half hours per day.
CREATE TABLE maintenance_window_schedule (
    window_id   INTEGER NOT NULL REFERENCES maintenance_windows(id) ON DELETE CASCADE,
    day_of_week INTEGER NOT NULL CHECK (day_of_week BETWEEN 1 AND 7),
    slots       INTEGER NOT NULL CHECK (slots > 0 AND slots < 281474976710656),
    PRIMARY KEY (window_id, day_of_week)
) STRICT, WITHOUT ROWID;

-- The runs stored while a window covered them (marked at ingest, in its transaction): shown
-- as 'maintenance' and left out of pass rates.
CREATE TABLE maintenance_runs (
    run_id    INTEGER PRIMARY KEY REFERENCES test_runs(id) ON DELETE CASCADE,
    window_id INTEGER NOT NULL
) STRICT;
CREATE INDEX maintenance_runs_window ON maintenance_runs(window_id);
