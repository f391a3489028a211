-- Saved reports (spec §3 'Report'). A report belongs to one test case group and goes with
-- it. report_type: 1 test case performance, 2 trend, 5 segment performance, 6 latency by
-- hour, 7 MOS. timeframe: the spec's name ('Custom', 'Today', …); begin_date/end_date
-- (YYYY-MM-DD) only for Custom. latency_warn/latency_fail: ms, 0 unless type 6.
-- run_type: 0 Manual, 1 Schedule. modified_at: seconds since the epoch.
CREATE TABLE reports (
    id           INTEGER PRIMARY KEY,
    name         TEXT NOT NULL,
    report_type  INTEGER NOT NULL,
    group_id     INTEGER NOT NULL REFERENCES test_case_groups(id) ON DELETE CASCADE,
    timeframe    TEXT NOT NULL,
    begin_date   TEXT,
    end_date     TEXT,
    run_type     INTEGER NOT NULL,
    latency_warn INTEGER NOT NULL DEFAULT 0,
    latency_fail INTEGER NOT NULL DEFAULT 0,
    jira_ticket  TEXT,
    modified_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX reports_group ON reports(group_id);
