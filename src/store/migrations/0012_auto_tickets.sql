-- Auto tickets: the Jira issues the alert engine opens itself (issue 12; store/auto_tickets.rs).
--
-- ticket_jobs: one durable job per alert event of a setting with attach ticket, written in
-- the ingest transaction that opens the event (like the outbox). The worker (jira/worker.rs)
-- leases due jobs (lease_ms), counts the attempt when it leases, and either records the key
-- (state 'done', with the auto ticket row and alert_events.jira_ticket in one transaction)
-- or makes it due again at next_ms (back-off). label: the job's unique Jira label; before
-- creating again after a failed or expired attempt the worker searches Jira for it, so a
-- crash between Jira's answer and the commit never opens a second issue.
CREATE TABLE ticket_jobs (
    id          INTEGER PRIMARY KEY,
    event_id    INTEGER NOT NULL UNIQUE,
    setting_id  INTEGER NOT NULL,
    label       TEXT NOT NULL UNIQUE,
    project     TEXT NOT NULL,
    assignee    TEXT NOT NULL,
    username    TEXT NOT NULL,
    summary     TEXT NOT NULL,
    description TEXT NOT NULL,
    csv_name    TEXT NOT NULL,
    csv         BLOB NOT NULL,
    state       TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'done')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    reason      TEXT,
    created_ms  INTEGER NOT NULL,
    next_ms     INTEGER NOT NULL,
    lease_ms    INTEGER
) STRICT;
CREATE INDEX ticket_jobs_due ON ticket_jobs(next_ms) WHERE state = 'queued';

-- The tickets opened: run_ids comma-separated, oldest first; alert_ms: when the event
-- opened (UTC ms). setting_id has no foreign key: the list stays when a setting goes.
CREATE TABLE auto_tickets (
    id          INTEGER PRIMARY KEY,
    setting_id  INTEGER NOT NULL,
    event_id    INTEGER NOT NULL UNIQUE,
    group_id    INTEGER NOT NULL,
    test_case_id INTEGER NOT NULL,
    jira_ticket TEXT NOT NULL,
    run_ids     TEXT NOT NULL,
    alert_ms    INTEGER NOT NULL
) STRICT;
CREATE INDEX auto_tickets_setting ON auto_tickets(setting_id, alert_ms DESC, id DESC);

-- The alert's description: what its ticket says, kept when an auto ticket is edited
-- (spec §4 'Ticket dialog').
ALTER TABLE alert_events ADD COLUMN description TEXT;
