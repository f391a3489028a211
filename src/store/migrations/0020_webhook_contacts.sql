-- Chat and webhook channels (issue 29): contact types Webhook 8, Microsoft Teams 16,
-- Slack 32 and Mattermost 64 in distribution lists and in the outbox. SQLite cannot change
-- a CHECK: both tables are rebuilt (the attachments' table too, its reference moving to
-- the new outbox by the rename; no row is deleted on the way). An attachment may be shown
-- inside the HTML part (content_id: a scheduled report's chart).
CREATE TABLE distribution_contacts_new (
    list_id  INTEGER NOT NULL REFERENCES distribution_lists(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    name     TEXT NOT NULL,
    type     INTEGER NOT NULL CHECK (type IN (1, 2, 4, 8, 16, 32, 64)),
    info     TEXT NOT NULL,
    PRIMARY KEY (list_id, position)
) WITHOUT ROWID;
INSERT INTO distribution_contacts_new (list_id, position, name, type, info)
SELECT list_id, position, name, type, info FROM distribution_contacts;
DROP TABLE distribution_contacts;
ALTER TABLE distribution_contacts_new RENAME TO distribution_contacts;
CREATE INDEX distribution_contacts_type ON distribution_contacts(type, list_id);

CREATE TABLE outbox_new (
    id          INTEGER PRIMARY KEY,
    key         TEXT NOT NULL UNIQUE,
    channel     INTEGER NOT NULL CHECK (channel IN (1, 2, 4, 8, 16, 32, 64)),
    recipient   TEXT NOT NULL,
    subject     TEXT NOT NULL,
    body_text   TEXT NOT NULL,
    body_html   TEXT,
    vars        TEXT NOT NULL,
    cause       TEXT NOT NULL,
    state       TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    reason      TEXT,
    created_ms  INTEGER NOT NULL,
    next_ms     INTEGER NOT NULL,
    lease_ms    INTEGER,
    sent_ms     INTEGER
);
INSERT INTO outbox_new (id, key, channel, recipient, subject, body_text, body_html, vars, cause,
                        state, attempts, reason, created_ms, next_ms, lease_ms, sent_ms)
SELECT id, key, channel, recipient, subject, body_text, body_html, vars, cause,
       state, attempts, reason, created_ms, next_ms, lease_ms, sent_ms
  FROM outbox;
CREATE TABLE outbox_attachments_new (
    outbox_id    INTEGER NOT NULL REFERENCES outbox_new(id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    name         TEXT NOT NULL,
    content_type TEXT NOT NULL,
    data         BLOB NOT NULL,
    content_id   TEXT,
    PRIMARY KEY (outbox_id, position)
) WITHOUT ROWID;
INSERT INTO outbox_attachments_new (outbox_id, position, name, content_type, data)
SELECT outbox_id, position, name, content_type, data FROM outbox_attachments;
DROP TABLE outbox_attachments;
DROP TABLE outbox;
ALTER TABLE outbox_new RENAME TO outbox;
ALTER TABLE outbox_attachments_new RENAME TO outbox_attachments;
CREATE INDEX outbox_due ON outbox(next_ms) WHERE state = 'queued';
CREATE INDEX outbox_cause ON outbox(cause, id);
