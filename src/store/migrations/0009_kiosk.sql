-- Kiosk sessions for a wall display (issue 16). users.kiosk: 1 when an administrator allows
-- the user to open kiosk sessions. tokens.kiosk: 1 for such a session, which the server
-- treats as read-only whatever the user's access type, and which the console does not sign
-- out when idle.
ALTER TABLE users ADD COLUMN kiosk INTEGER NOT NULL DEFAULT 0 CHECK (kiosk IN (0, 1));
ALTER TABLE tokens ADD COLUMN kiosk INTEGER NOT NULL DEFAULT 0 CHECK (kiosk IN (0, 1));
