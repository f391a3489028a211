-- The event that started an incident (src/store/migrations/0040_incident_first_event.sql
-- says why and what NULL means).
ALTER TABLE incidents ADD COLUMN first_event BIGINT;
