-- Scheduled report mail (issue 29): a report's schedule (daily, weekly or monthly at a
-- local time of the site, to a distribution list, in English or French). id is the
-- report's. The scheduler leases due rows as the outbox does (state 'queued' = active,
-- next_ms, lease_ms, attempts); a slot's mail is queued to the outbox, keyed by the slot,
-- in the transaction that moves next_ms on, so a slot is mailed once even after a kill.
CREATE TABLE report_schedules (
    id              INTEGER PRIMARY KEY REFERENCES reports(id) ON DELETE CASCADE,
    frequency       TEXT NOT NULL CHECK (frequency IN ('daily', 'weekly', 'monthly')),
    minute          INTEGER NOT NULL CHECK (minute BETWEEN 0 AND 1439),
    weekday         INTEGER NOT NULL CHECK (weekday BETWEEN 1 AND 7),
    month_day       INTEGER NOT NULL CHECK (month_day BETWEEN 1 AND 31),
    distribution_id INTEGER NOT NULL REFERENCES distribution_lists(id),
    language        TEXT NOT NULL CHECK (language IN ('en', 'fr')),
    state           TEXT NOT NULL CHECK (state IN ('queued', 'paused')),
    next_ms         INTEGER NOT NULL,
    lease_ms        INTEGER,
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_slot_ms    INTEGER,
    last_cause      TEXT,
    reason          TEXT,
    modified_at     INTEGER NOT NULL
);
CREATE INDEX report_schedules_due ON report_schedules(next_ms) WHERE state = 'queued';
CREATE INDEX report_schedules_list ON report_schedules(distribution_id);
