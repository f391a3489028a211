-- The alert engine's memory becomes one row per test case instead of a row per (setting,
-- test case) (store/alerts.rs, `CaseRows`). A failure that starts a count and the pass that
-- ends it inserted and deleted a state row each, with their index entries; a batch now
-- writes one row per test case it evaluated, where it wrote the test case's clock anyway.
--
-- clock_ms: the time of the last run the engine evaluated for the test case (alert_clock's
--   last_ms; NULL until an ingest evaluates one, a backfill having stored states first).
-- states:   the states away from rest, a JSON object by setting id of
--   [count, [pending run ids, oldest first], open event or null, last run ms or null (at
--   the clock)]; a setting at rest has no key (what no key means: CaseState::unstored).
CREATE TABLE alert_memory (
    test_case_id INTEGER PRIMARY KEY,
    clock_ms     INTEGER,
    states       TEXT NOT NULL DEFAULT '{}'
) STRICT;
INSERT INTO alert_memory (test_case_id, clock_ms, states)
SELECT c.id,
       (SELECT k.last_ms FROM alert_clock k WHERE k.test_case_id = c.id),
       COALESCE((SELECT json_group_object(CAST(s.setting_id AS TEXT),
                                          json_array(s.count, json('[' || s.pending || ']'),
                                                     s.open_event, s.last_run_ms))
                   FROM alert_state s WHERE s.test_case_id = c.id), '{}')
  FROM (SELECT test_case_id AS id FROM alert_clock
        UNION SELECT test_case_id FROM alert_state) c;
DROP TABLE alert_state;
DROP TABLE alert_clock;

-- A setting's delete (its own or its group's) takes its states with it, as alert_state's
-- cascade did: no later setting finds them.
CREATE TRIGGER alert_settings_memory_d AFTER DELETE ON alert_settings
BEGIN
    UPDATE alert_memory SET states = json_remove(states, '$."' || OLD.id || '"')
     WHERE json_type(states, '$."' || OLD.id || '"') IS NOT NULL;
END;
