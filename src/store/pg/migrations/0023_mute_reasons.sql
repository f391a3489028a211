-- A mute's reason is worded by the console in the reader's language (issue 28): a window
-- made from an alert keeps no reason of its own. The English text the first mutes stored
-- ('Muted from alert 12 (Billing IVR)') is dropped; a reason someone typed is kept.
UPDATE maintenance_windows SET reason = ''
 WHERE event_id IS NOT NULL AND reason LIKE 'Muted from alert %' AND reason NOT LIKE '%):%';
