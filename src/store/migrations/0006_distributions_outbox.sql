-- Distribution lists (contact groups) and the outbox of notifications to deliver.

CREATE TABLE distribution_lists (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    modified_at INTEGER NOT NULL
);

CREATE TABLE distribution_contacts (
    list_id  INTEGER NOT NULL REFERENCES distribution_lists(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    name     TEXT NOT NULL,
    type     INTEGER NOT NULL CHECK (type IN (1, 2, 4)),
    info     TEXT NOT NULL,
    PRIMARY KEY (list_id, position)
) WITHOUT ROWID;

CREATE INDEX distribution_contacts_type ON distribution_contacts(type, list_id);

-- One row per message to one contact. Written in the same transaction as its cause;
-- the sender leases due rows (lease_ms), counts the attempt when it leases, and marks
-- them sent or failed. A lease left by a killed process expires and the row is retried.
CREATE TABLE outbox (
    id          INTEGER PRIMARY KEY,
    key         TEXT NOT NULL UNIQUE,
    channel     INTEGER NOT NULL CHECK (channel IN (1, 2, 4)),
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

CREATE INDEX outbox_due ON outbox(next_ms) WHERE state = 'queued';
CREATE INDEX outbox_cause ON outbox(cause, id);

CREATE TABLE outbox_attachments (
    outbox_id    INTEGER NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    name         TEXT NOT NULL,
    content_type TEXT NOT NULL,
    data         BLOB NOT NULL,
    PRIMARY KEY (outbox_id, position)
) WITHOUT ROWID;
