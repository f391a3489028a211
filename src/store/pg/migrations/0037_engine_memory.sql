-- The alert engine keeps its settings in memory between batches and stores only the state
-- that departs from what a missing row means (src/store/migrations/0037_engine_memory.sql
-- says why). The triggers are per statement: a change of many rows moves the number once.
CREATE TABLE engine_generation (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    n  BIGINT NOT NULL
);
INSERT INTO engine_generation (id, n) VALUES (1, 1);

CREATE TABLE alert_setting_evaluated (
    setting_id BIGINT PRIMARY KEY REFERENCES alert_settings(id) ON DELETE CASCADE
);
INSERT INTO alert_setting_evaluated (setting_id) SELECT DISTINCT setting_id FROM alert_state;

DELETE FROM alert_state
 WHERE count = 0 AND pending = '' AND open_event IS NULL AND last_run_ms IS NULL;

CREATE FUNCTION engine_generation_bump() RETURNS trigger AS $$
BEGIN
    UPDATE engine_generation SET n = n + 1;
    RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER alert_settings_generation AFTER INSERT OR UPDATE OR DELETE ON alert_settings
    FOR EACH STATEMENT EXECUTE FUNCTION engine_generation_bump();
CREATE TRIGGER alert_setting_statuses_generation
    AFTER INSERT OR UPDATE OR DELETE ON alert_setting_statuses
    FOR EACH STATEMENT EXECUTE FUNCTION engine_generation_bump();
CREATE TRIGGER alert_setting_schedule_generation
    AFTER INSERT OR UPDATE OR DELETE ON alert_setting_schedule
    FOR EACH STATEMENT EXECUTE FUNCTION engine_generation_bump();
CREATE TRIGGER group_cases_generation AFTER INSERT OR UPDATE OR DELETE ON group_cases
    FOR EACH STATEMENT EXECUTE FUNCTION engine_generation_bump();
CREATE TRIGGER alert_setting_evaluated_generation AFTER INSERT ON alert_setting_evaluated
    FOR EACH STATEMENT EXECUTE FUNCTION engine_generation_bump();

CREATE INDEX alert_events_incident_live ON alert_events(closed_ms, incident_id)
 WHERE incident_id IS NOT NULL;
