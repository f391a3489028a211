-- The alert engine (store/alerts.rs, rules in domain/alerting.rs, docs/alerting.md).
--
-- alert_state: the engine's memory per (setting, test case), written in the ingest
-- transaction with the runs it evaluated. count: consecutive counted runs; pending: the
-- counted run ids not yet in an event, comma-separated, oldest first; open_event: the
-- event that collects further runs; last_run_ms: time of the last run evaluated (UTC ms).
CREATE TABLE alert_state (
    setting_id   INTEGER NOT NULL REFERENCES alert_settings(id) ON DELETE CASCADE,
    test_case_id INTEGER NOT NULL,
    count        INTEGER NOT NULL DEFAULT 0,
    pending      TEXT NOT NULL DEFAULT '',
    open_event   INTEGER,
    last_run_ms  INTEGER,
    PRIMARY KEY (setting_id, test_case_id)
) STRICT, WITHOUT ROWID;

-- Alert events. setting_id has no foreign key: the history stays when a setting goes
-- (the trigger below closes its open events). The names are kept as they were when the
-- event opened. alert_ms: when it opened (UTC ms); closed_ms: when a pass closed it or its
-- setting was deleted. status_id: the first run's alert status (7, 4, 3).
-- jira_ticket: for the tickets issue.
CREATE TABLE alert_events (
    id                INTEGER PRIMARY KEY,
    setting_id        INTEGER NOT NULL,
    setting_name      TEXT NOT NULL,
    group_id          INTEGER NOT NULL,
    group_name        TEXT NOT NULL,
    test_case_id      INTEGER NOT NULL,
    distribution_id   INTEGER NOT NULL,
    distribution_name TEXT NOT NULL,
    status_id         INTEGER NOT NULL,
    alert_ms          INTEGER NOT NULL,
    open              INTEGER NOT NULL DEFAULT 1 CHECK (open IN (0, 1)),
    closed_ms         INTEGER,
    jira_ticket       TEXT
) STRICT;
CREATE INDEX alert_events_group ON alert_events(group_id, id);
CREATE INDEX alert_events_status ON alert_events(status_id, id);
CREATE INDEX alert_events_open ON alert_events(setting_id) WHERE open = 1;

-- The runs of an event, in the order they joined.
CREATE TABLE alert_event_runs (
    event_id INTEGER NOT NULL REFERENCES alert_events(id) ON DELETE CASCADE,
    run_id   INTEGER NOT NULL,
    PRIMARY KEY (event_id, run_id)
) STRICT, WITHOUT ROWID;

-- Deleting a setting closes its open events (whoever deletes it).
CREATE TRIGGER alert_settings_close_events AFTER DELETE ON alert_settings
BEGIN
    UPDATE alert_events
       SET open = 0, closed_ms = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
     WHERE setting_id = OLD.id AND open = 1;
END;
