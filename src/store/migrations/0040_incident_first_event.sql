-- The event that started an incident (the one that did not join it): its recovery pages the
-- SMS and voice contacts its alert paged, while a joined event's recovery goes only where
-- its alert went, to the record (docs/alerting.md 'Incidents'). No foreign key: the events
-- refer to their incident already. NULL for an incident started before this migration: which
-- of its events started it is not known, and its events' recoveries page as they did.
ALTER TABLE incidents ADD COLUMN first_event INTEGER;
