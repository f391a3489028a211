-- The alert engine keeps its settings in memory between batches and stores only the state
-- that departs from what a missing row means (domain/alerting.rs, `Unstored`).
--
-- engine_generation: one row, its number moved by every change the engine's view of the
-- settings depends on (the triggers below), from whatever instance or path made it. An
-- engine reads it at the start of a batch and reloads its settings when it moved.
CREATE TABLE engine_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
) STRICT;
INSERT INTO engine_generation (id, n) VALUES (1, 1);

-- alert_setting_evaluated: the settings the engine has evaluated runs for. A setting
-- without state rows may still have been evaluated (every run left it at rest); the
-- backfill, which is only for settings never evaluated, asks here.
CREATE TABLE alert_setting_evaluated (
    setting_id INTEGER PRIMARY KEY REFERENCES alert_settings(id) ON DELETE CASCADE
) STRICT;
INSERT INTO alert_setting_evaluated (setting_id) SELECT DISTINCT setting_id FROM alert_state;

-- A row at rest (nothing counted, nothing pending, no event, at its test case's clock) is
-- what a missing row of an evaluated setting means now.
DELETE FROM alert_state
 WHERE count = 0 AND pending = '' AND open_event IS NULL AND last_run_ms IS NULL;

CREATE TRIGGER alert_settings_generation_i AFTER INSERT ON alert_settings
BEGIN UPDATE engine_generation SET n = n + 1; END;
CREATE TRIGGER alert_settings_generation_u AFTER UPDATE ON alert_settings
BEGIN UPDATE engine_generation SET n = n + 1; END;
CREATE TRIGGER alert_settings_generation_d AFTER DELETE ON alert_settings
BEGIN UPDATE engine_generation SET n = n + 1; END;
CREATE TRIGGER alert_setting_statuses_generation_i AFTER INSERT ON alert_setting_statuses
BEGIN UPDATE engine_generation SET n = n + 1; END;
CREATE TRIGGER alert_setting_statuses_generation_d AFTER DELETE ON alert_setting_statuses
BEGIN UPDATE engine_generation SET n = n + 1; END;
CREATE TRIGGER alert_setting_statuses_generation_u AFTER UPDATE ON alert_setting_statuses
BEGIN UPDATE engine_generation SET n = n + 1; END;
CREATE TRIGGER alert_setting_schedule_generation_i AFTER INSERT ON alert_setting_schedule
BEGIN UPDATE engine_generation SET n = n + 1; END;
CREATE TRIGGER alert_setting_schedule_generation_u AFTER UPDATE ON alert_setting_schedule
BEGIN UPDATE engine_generation SET n = n + 1; END;
CREATE TRIGGER alert_setting_schedule_generation_d AFTER DELETE ON alert_setting_schedule
BEGIN UPDATE engine_generation SET n = n + 1; END;
CREATE TRIGGER group_cases_generation_i AFTER INSERT ON group_cases
BEGIN UPDATE engine_generation SET n = n + 1; END;
CREATE TRIGGER group_cases_generation_u AFTER UPDATE ON group_cases
BEGIN UPDATE engine_generation SET n = n + 1; END;
CREATE TRIGGER group_cases_generation_d AFTER DELETE ON group_cases
BEGIN UPDATE engine_generation SET n = n + 1; END;
CREATE TRIGGER alert_setting_evaluated_generation_i AFTER INSERT ON alert_setting_evaluated
BEGIN UPDATE engine_generation SET n = n + 1; END;

-- The incidents a new event may join: those with an open event or one closed within the
-- window, found by this index instead of a pass over every event.
CREATE INDEX alert_events_incident_live ON alert_events(closed_ms, incident_id)
 WHERE incident_id IS NOT NULL;
