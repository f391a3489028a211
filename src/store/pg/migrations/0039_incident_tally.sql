-- What grouping reads of an incident, kept beside it (src/store/migrations/0039_incident_tally.sql
-- says what each column is).
ALTER TABLE incidents ADD COLUMN events BIGINT NOT NULL DEFAULT 0,
                      ADD COLUMN open_events BIGINT NOT NULL DEFAULT 0,
                      ADD COLUMN last_closed_ms BIGINT;
CREATE TABLE incident_causes (
    incident_id BIGINT NOT NULL REFERENCES incidents(id),
    kind        SMALLINT NOT NULL CHECK (kind IN (0, 1)),
    cause_id    BIGINT NOT NULL,
    PRIMARY KEY (incident_id, kind, cause_id)
);

UPDATE incidents i SET
    events = t.events, open_events = t.open_events, last_closed_ms = t.last_closed_ms
  FROM (SELECT incident_id, count(*) AS events,
               count(*) FILTER (WHERE closed_ms IS NULL) AS open_events,
               max(closed_ms) AS last_closed_ms
          FROM alert_events WHERE incident_id IS NOT NULL GROUP BY incident_id) t
 WHERE t.incident_id = i.id;
INSERT INTO incident_causes (incident_id, kind, cause_id)
SELECT DISTINCT incident_id, 0, group_id FROM alert_events WHERE incident_id IS NOT NULL
UNION
SELECT DISTINCT e.incident_id, 1, tc.ivr_id
  FROM alert_events e JOIN test_cases tc ON tc.id = e.test_case_id
 WHERE e.incident_id IS NOT NULL AND tc.ivr_id IS NOT NULL;

CREATE INDEX incidents_open ON incidents(id) WHERE open_events > 0;
CREATE INDEX incidents_closed ON incidents(last_closed_ms) WHERE last_closed_ms IS NOT NULL;
DROP INDEX alert_events_incident_live;
