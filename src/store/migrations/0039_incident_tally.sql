-- What grouping reads of an incident (store/incidents.rs, assign_in) kept beside it as its
-- events open and close, instead of aggregated from all its events at every batch: a
-- storm's incident holds thousands of events, and each batch that opened one read them all.
--
-- events:          how many events joined it;
-- open_events:     how many of them are open (it is resolved at 0);
-- last_closed_ms:  when the last of them closed (NULL until one has);
-- incident_causes: its causes (domain/incident.rs, `Cause`), kind 0 a test case group,
--   1 a client application, each as it was when an event of it joined.
ALTER TABLE incidents ADD COLUMN events INTEGER NOT NULL DEFAULT 0;
ALTER TABLE incidents ADD COLUMN open_events INTEGER NOT NULL DEFAULT 0;
ALTER TABLE incidents ADD COLUMN last_closed_ms INTEGER;
CREATE TABLE incident_causes (
    incident_id INTEGER NOT NULL REFERENCES incidents(id),
    kind        INTEGER NOT NULL CHECK (kind IN (0, 1)),
    cause_id    INTEGER NOT NULL,
    PRIMARY KEY (incident_id, kind, cause_id)
) STRICT, WITHOUT ROWID;

UPDATE incidents SET
    events = (SELECT count(*) FROM alert_events e WHERE e.incident_id = incidents.id),
    open_events = (SELECT count(*) FROM alert_events e
                    WHERE e.incident_id = incidents.id AND e.closed_ms IS NULL),
    last_closed_ms = (SELECT max(e.closed_ms) FROM alert_events e
                       WHERE e.incident_id = incidents.id);
INSERT INTO incident_causes (incident_id, kind, cause_id)
SELECT DISTINCT incident_id, 0, group_id FROM alert_events WHERE incident_id IS NOT NULL
UNION
SELECT DISTINCT e.incident_id, 1, tc.ivr_id
  FROM alert_events e JOIN test_cases tc ON tc.id = e.test_case_id
 WHERE e.incident_id IS NOT NULL AND tc.ivr_id IS NOT NULL;

-- The incidents an event may join: those with an open event, or closed lately. They were
-- found among the events by alert_events_incident_live (migration 0037), which nothing
-- reads now.
CREATE INDEX incidents_open ON incidents(id) WHERE open_events > 0;
CREATE INDEX incidents_closed ON incidents(last_closed_ms) WHERE last_closed_ms IS NOT NULL;
DROP INDEX alert_events_incident_live;
