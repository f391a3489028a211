-- The alert's life after it fires (issue 28): acknowledgement, comments, escalation.
--
-- ack_user / ack_ms: who acknowledged an open event (their username then) and when (UTC ms);
-- an acknowledged event is not escalated. escalated_ms: when the escalation list was
-- notified (once; its notifications are the outbox's `escalation:{id}` rows).
ALTER TABLE alert_events ADD COLUMN ack_user TEXT;
ALTER TABLE alert_events ADD COLUMN ack_ms INTEGER;
ALTER TABLE alert_events ADD COLUMN escalated_ms INTEGER;

-- The comments on an event, oldest first (PUT alerts/{id} with a comment adds one; the
-- event's `comment` column keeps the latest, as section 7's single comment).
CREATE TABLE alert_comments (
    id         INTEGER PRIMARY KEY,
    event_id   INTEGER NOT NULL REFERENCES alert_events(id) ON DELETE CASCADE,
    author     TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX alert_comments_event ON alert_comments(event_id, id);

-- Escalation: a second distribution list notified when an event is still open and
-- unacknowledged escalation_delay_min minutes after it opened. Both or neither.
ALTER TABLE alert_settings ADD COLUMN escalation_distribution_id INTEGER
    REFERENCES distribution_lists(id) ON DELETE RESTRICT;
ALTER TABLE alert_settings ADD COLUMN escalation_delay_min INTEGER
    CHECK (escalation_delay_min BETWEEN 1 AND 10080);
-- The events the escalation worker looks at: open, unacknowledged, not escalated.
CREATE INDEX alert_events_unhandled ON alert_events(alert_ms)
    WHERE open = 1 AND ack_ms IS NULL AND escalated_ms IS NULL;
