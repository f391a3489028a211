-- Alert settings (spec §3 'Alert setting'): which runs of a test case group raise an alert,
-- when (the weekly schedule) and whom the alert tells (a distribution list). A setting goes
-- with its group; a distribution list that a setting uses cannot be deleted (RESTRICT).
-- failure_to_alert: consecutive matching runs that open an event (1, 2, 3, 5 or 10).
-- modified_at: seconds since the epoch.
CREATE TABLE alert_settings (
    id                 INTEGER PRIMARY KEY,
    name               TEXT NOT NULL,
    active             INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    group_id           INTEGER NOT NULL REFERENCES test_case_groups(id) ON DELETE CASCADE,
    distribution_id    INTEGER NOT NULL REFERENCES distribution_lists(id) ON DELETE RESTRICT,
    email_subject      TEXT NOT NULL,
    voice_message      TEXT NOT NULL,
    sms_prefix         TEXT NOT NULL,
    attach_recording   INTEGER NOT NULL DEFAULT 0 CHECK (attach_recording IN (0, 1)),
    attach_jira_ticket INTEGER NOT NULL DEFAULT 0 CHECK (attach_jira_ticket IN (0, 1)),
    failure_to_alert   INTEGER NOT NULL CHECK (failure_to_alert IN (1, 2, 3, 5, 10)),
    notify_on_recovery INTEGER NOT NULL DEFAULT 0 CHECK (notify_on_recovery IN (0, 1)),
    jira_assignee      TEXT,
    jira_project       TEXT,
    jira_username      TEXT,
    modified_at        INTEGER NOT NULL
) STRICT;
CREATE INDEX alert_settings_group ON alert_settings(group_id);
CREATE INDEX alert_settings_distribution ON alert_settings(distribution_id);

-- The statuses a setting counts (alertStatus: codes of alert_statuses, 'FAIL', 'WARN').
CREATE TABLE alert_setting_statuses (
    setting_id INTEGER NOT NULL REFERENCES alert_settings(id) ON DELETE CASCADE,
    status_id  INTEGER NOT NULL REFERENCES alert_statuses(id),
    PRIMARY KEY (setting_id, status_id)
) STRICT, WITHOUT ROWID;

-- The weekly schedule, one row per day that has a selected slot: day_of_week 1 Monday ..
-- 7 Sunday (ISO 8601); slots is a 48-bit mask, bit s set when the half hour starting at
-- s × 30 minutes (site time) is selected. domain/schedule.rs reads and writes it.
CREATE TABLE alert_setting_schedule (
    setting_id  INTEGER NOT NULL REFERENCES alert_settings(id) ON DELETE CASCADE,
    day_of_week INTEGER NOT NULL CHECK (day_of_week BETWEEN 1 AND 7),
    slots       INTEGER NOT NULL CHECK (slots > 0 AND slots < 281474976710656),
    PRIMARY KEY (setting_id, day_of_week)
) STRICT, WITHOUT ROWID;
