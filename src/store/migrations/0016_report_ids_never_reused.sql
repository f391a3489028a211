-- Report ids are never reused (issue 30, item 14): a deleted report's id went to the next
-- report made, so old links, tickets and audit records pointed at another report. The table
-- is rebuilt with AUTOINCREMENT, which never hands out an id again; the counter starts above
-- every id a report ever had, the deleted ones the audit log remembers included.
-- (PostgreSQL's identity column never reused one.)
CREATE TABLE reports_new (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
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
INSERT INTO reports_new (id, name, report_type, group_id, timeframe, begin_date, end_date,
                         run_type, latency_warn, latency_fail, jira_ticket, modified_at)
SELECT id, name, report_type, group_id, timeframe, begin_date, end_date,
       run_type, latency_warn, latency_fail, jira_ticket, modified_at
  FROM reports;
DROP TABLE reports;
ALTER TABLE reports_new RENAME TO reports;
CREATE INDEX reports_group ON reports(group_id);
INSERT INTO sqlite_sequence (name, seq)
SELECT 'reports', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'reports');
UPDATE sqlite_sequence
   SET seq = max(seq,
                 coalesce((SELECT max(id) FROM reports), 0),
                 coalesce((SELECT max(CAST(target AS INTEGER)) FROM audit_log
                            WHERE kind = 'report' AND target GLOB '[0-9]*'), 0))
 WHERE name = 'reports';
