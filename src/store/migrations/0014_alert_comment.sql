-- A user's comment on an alert event (PUT alerts/{id}, spec section 7), beside its ticket.
ALTER TABLE alert_events ADD COLUMN comment TEXT;
