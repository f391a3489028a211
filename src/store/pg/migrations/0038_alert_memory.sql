-- The alert engine's memory becomes one row per test case instead of a row per (setting,
-- test case) (src/store/migrations/0038_alert_memory.sql says why and what the columns
-- hold). The states are TEXT, not jsonb: the engine reads and writes them whole, and only a
-- setting's delete looks inside. Each row is rewritten at every batch of its test case: the
-- room fillfactor leaves on its page keeps the update HOT (no new index entry).
CREATE TABLE alert_memory (
    test_case_id BIGINT PRIMARY KEY,
    clock_ms     BIGINT,
    states       TEXT NOT NULL DEFAULT '{}'
) WITH (fillfactor = 50);
INSERT INTO alert_memory (test_case_id, clock_ms, states)
SELECT c.id, k.last_ms, COALESCE(s.states, '{}')
  FROM (SELECT test_case_id AS id FROM alert_clock
        UNION SELECT test_case_id FROM alert_state) c
  LEFT JOIN alert_clock k ON k.test_case_id = c.id
  LEFT JOIN (SELECT test_case_id,
                    json_object_agg(setting_id,
                                    json_build_array(count, ('[' || pending || ']')::json,
                                                     open_event, last_run_ms))::text AS states
               FROM alert_state GROUP BY test_case_id) s ON s.test_case_id = c.id;
DROP TABLE alert_state;
DROP TABLE alert_clock;

-- A setting's delete (its own or its group's) takes its states with it, as alert_state's
-- cascade did.
CREATE FUNCTION alert_memory_forget_settings() RETURNS trigger AS $$
BEGIN
    UPDATE alert_memory m
       SET states = (m.states::jsonb - ARRAY(SELECT id::text FROM gone))::text
     WHERE m.states::jsonb ?| ARRAY(SELECT id::text FROM gone);
    RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER alert_settings_memory AFTER DELETE ON alert_settings
    REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION alert_memory_forget_settings();
