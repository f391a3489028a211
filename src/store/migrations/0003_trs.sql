-- Test-run data: catalog (channels, IVR applications, test cases, groups), runs with their
-- detail, rollups, recordings and client-application health. See docs/ingest.md.
--
-- Sizes to design for: 500 test cases every 5 minutes = 144,000 runs a day, 52 million
-- a year. Runs are one compact row each; metrics read only the rollup tables.

-- Channels: voice (shown 'Voice') and web (shown 'Digital').
CREATE TABLE channels (
    id   TEXT PRIMARY KEY,
    code INTEGER NOT NULL UNIQUE,
    name TEXT NOT NULL
) STRICT;
INSERT INTO channels (id, code, name) VALUES ('voice', 1, 'Voice'), ('web', 2, 'Digital');

-- IVR applications (voice) and chatbots (web), created and renamed by ingest.
CREATE TABLE ivr_apps (
    id      INTEGER PRIMARY KEY,
    name    TEXT NOT NULL,
    channel TEXT NOT NULL REFERENCES channels(id)
) STRICT;

-- Step structure shared by many runs (segments, steps and their static fields), stored once:
-- body is JSON, hash its SHA-256. Rows are never deleted.
CREATE TABLE run_scripts (
    id   INTEGER PRIMARY KEY,
    hash BLOB NOT NULL UNIQUE,
    body TEXT NOT NULL
) STRICT;

-- Test cases, created and renamed by ingest (the engine is their source of truth).
-- script_id: the step structure of the case's latest run.
CREATE TABLE test_cases (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    channel    TEXT NOT NULL REFERENCES channels(id),
    ivr_id     INTEGER NOT NULL REFERENCES ivr_apps(id),
    script_id  INTEGER,
    updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX test_cases_ivr ON test_cases(ivr_id);

-- Segment names per test case (segment ids come from the engine).
CREATE TABLE segments (
    test_case_id INTEGER NOT NULL REFERENCES test_cases(id),
    segment_id   INTEGER NOT NULL,
    name         TEXT NOT NULL,
    PRIMARY KEY (test_case_id, segment_id)
) STRICT, WITHOUT ROWID;

-- Test case groups, managed in the console.
CREATE TABLE test_case_groups (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    channel    TEXT NOT NULL REFERENCES channels(id),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE group_cases (
    group_id     INTEGER NOT NULL REFERENCES test_case_groups(id) ON DELETE CASCADE,
    test_case_id INTEGER NOT NULL REFERENCES test_cases(id),
    PRIMARY KEY (group_id, test_case_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX group_cases_case ON group_cases(test_case_id);

-- Groups a restricted user (first role ROLE_USER) may see.
CREATE TABLE user_groups (
    user_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    group_id INTEGER NOT NULL REFERENCES test_case_groups(id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, group_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX user_groups_group ON user_groups(group_id);

-- Alert statuses (spec §3): a run's status text comes from here.
CREATE TABLE alert_statuses (
    id              INTEGER PRIMARY KEY,
    code            TEXT NOT NULL UNIQUE,
    text            TEXT NOT NULL,
    status_group    TEXT NOT NULL,
    support_channel TEXT NOT NULL
) STRICT;
INSERT INTO alert_statuses (id, code, text, status_group, support_channel) VALUES
    (3, 'PASS', 'Pass', 'TRS_PASS', 'ivr,voice,web'),
    (4, 'WARN', 'Warning', 'TRS_WARN', 'ivr,voice,web'),
    (7, 'FAIL', 'Failure', 'TRS_FAIL', 'ivr,voice,web');

-- Recorded audio, content-addressed: the file is <data_dir>/recordings/<sha[0..2]>/<sha>.
CREATE TABLE recordings (
    id           INTEGER PRIMARY KEY,
    sha256       TEXT NOT NULL UNIQUE,
    content_type TEXT NOT NULL,
    size         INTEGER NOT NULL,
    created_at   INTEGER NOT NULL
) STRICT;

-- Which test cases' runs refer to a recording (permission checks on download).
CREATE TABLE recording_cases (
    recording_id INTEGER NOT NULL,
    test_case_id INTEGER NOT NULL,
    PRIMARY KEY (recording_id, test_case_id)
) STRICT, WITHOUT ROWID;

-- Interned texts (utterances): step results refer to them by id.
CREATE TABLE texts (
    id   INTEGER PRIMARY KEY,
    body TEXT NOT NULL UNIQUE
) STRICT;

-- One row per run. run_time: ms since the epoch (UTC); duration_ms: run duration;
-- status: 0 pass, 1 warn, 2 fail, 3 stopped; run_type: 0 Manual, 1 Schedule;
-- mos: mosCqIn in hundredths; results: the per-run step results, encoded
-- (store/run_detail.rs) against the steps of script_id.
CREATE TABLE test_runs (
    id           INTEGER PRIMARY KEY,
    test_case_id INTEGER NOT NULL REFERENCES test_cases(id),
    run_time     INTEGER NOT NULL,
    duration_ms  INTEGER NOT NULL,
    status       INTEGER NOT NULL,
    run_type     INTEGER NOT NULL,
    mos          INTEGER,
    recording_id INTEGER,
    script_id    INTEGER NOT NULL,
    results      BLOB NOT NULL
) STRICT;
-- Runs of a test case by time (run lists, newest first), status and run type included so
-- filtered counts never read the table.
CREATE INDEX test_runs_case_time ON test_runs(test_case_id, run_time, status, run_type);

-- The engine's run id of every stored run, as the first 16 bytes of its SHA-256 (fixed
-- size whatever the engine's ids look like): retries are recognised here.
CREATE TABLE run_keys (
    engine_key BLOB PRIMARY KEY,
    run_id     INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- Rollups, kept up to date by ingest: one row per test case, run type, local day and hour.
-- day: local date of the site time zone as days since 1970-01-01; hour: local wall-clock
-- hour 0..23. Counts per run status; mos_* over runs with a MOS (hundredths), lat_* over
-- step latencies (ms); *_hist: encoded histograms (domain/dist.rs) with exact counts per
-- value; segments: the same per segment of the test case (store/rollups.rs), where a
-- segment's status in a run is the worst status of its steps.
CREATE TABLE rollup_hour (
    test_case_id INTEGER NOT NULL,
    run_type     INTEGER NOT NULL,
    day          INTEGER NOT NULL,
    hour         INTEGER NOT NULL,
    pass         INTEGER NOT NULL,
    warn         INTEGER NOT NULL,
    fail         INTEGER NOT NULL,
    stopped      INTEGER NOT NULL,
    mos_n        INTEGER NOT NULL,
    mos_sum      INTEGER NOT NULL,
    mos_hist     BLOB,
    lat_n        INTEGER NOT NULL,
    lat_sum      INTEGER NOT NULL,
    lat_hist     BLOB,
    segments     BLOB,
    PRIMARY KEY (test_case_id, run_type, day, hour)
) STRICT, WITHOUT ROWID;

-- Latest health snapshot of each client application (spec §3 'Client application').
CREATE TABLE client_apps (
    channel          TEXT NOT NULL REFERENCES channels(id),
    client_end_point TEXT NOT NULL,
    last_run         INTEGER NOT NULL,
    app_enabled      INTEGER NOT NULL,
    app_status       TEXT NOT NULL,
    telco_enabled    INTEGER NOT NULL,
    telco_status     TEXT NOT NULL,
    agent_enabled    INTEGER NOT NULL,
    agent_status     TEXT NOT NULL,
    components       TEXT NOT NULL,
    updated_at       INTEGER NOT NULL,
    PRIMARY KEY (channel, client_end_point)
) STRICT, WITHOUT ROWID;
