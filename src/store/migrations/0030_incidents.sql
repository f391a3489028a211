-- Incidents: alert events that opened close together and share a cause form one incident
-- (rules in domain/incident.rs, docs/alerting.md 'Incidents'). The engine gives each event
-- it opens an incident in the same transaction (store/incidents.rs, assign_in); an event
-- opened before this migration has none. first_ms: when its first event opened (UTC ms).
-- Its state (open, acknowledged, muted, resolved) is read from its events.
CREATE TABLE incidents (
    id         INTEGER PRIMARY KEY,
    first_ms   INTEGER NOT NULL,
    created_ms INTEGER NOT NULL
) STRICT;

ALTER TABLE alert_events ADD COLUMN incident_id INTEGER REFERENCES incidents(id);
CREATE INDEX alert_events_incident ON alert_events(incident_id) WHERE incident_id IS NOT NULL;
CREATE INDEX incidents_first ON incidents(first_ms, id);
