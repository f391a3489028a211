-- Each user's last two sign-ins (UTC ms), for the alerts' handover view: what happened since
-- my previous sign-in. A password sign-in, a single sign-on return and a sign-in link each
-- move last_ms to previous_ms; a kiosk session (a wall display) does not.
CREATE TABLE sign_ins (
    user_id     INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    last_ms     INTEGER NOT NULL,
    previous_ms INTEGER
) STRICT;

-- Mutes made from an alert are looked up by the alert (the alert page shows its active mute).
CREATE INDEX maintenance_windows_event ON maintenance_windows(event_id) WHERE event_id IS NOT NULL;
