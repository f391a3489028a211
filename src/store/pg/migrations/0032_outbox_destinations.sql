-- Each delivery goes on its own: the sender leases only rows whose
-- destination (the mail server, a gateway, a webhook's scheme, host and port) has a free
-- slot, so each row says which destination it counts against. Rows queued before keep
-- their recipient's address as destination (the sender counts by the stored value).
ALTER TABLE outbox ADD COLUMN dest TEXT NOT NULL DEFAULT '';
UPDATE outbox SET dest = CASE channel WHEN 1 THEN 'smtp' WHEN 2 THEN 'sms' WHEN 4 THEN 'voice'
                                      ELSE recipient END;
-- A failure's reason as a stable code beside the English text ('http_status:404',
-- 'timeout', ...): the console says it in the reader's language.
ALTER TABLE outbox ADD COLUMN reason_code TEXT;
-- A webhook's failure reason kept reqwest's whole URL, secret path included: cut it.
UPDATE outbox SET reason = substr(reason, 1, strpos(reason, 'for url (') - 1) || 'for url (…)'
 WHERE channel IN (8, 16, 32, 64) AND strpos(reason, 'for url (') > 0;
