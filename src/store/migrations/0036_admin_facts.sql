-- What an operator asks of keys and accounts to find the stale ones.
--
-- When each ingest API key was last used (UTC ms): written at most once a minute per key
-- (api/guard.rs keeps the throttle in memory), so ingest does not pay a write per call.
ALTER TABLE api_keys ADD COLUMN last_used_ms INTEGER;

-- API key names are unique without case, as group and list names are (0022): 'engine-1'
-- and 'ENGINE-1' were two keys an operator could not tell apart in a log. Twins already
-- made are renamed 'name (id)', twice as in 0022, so the index can be built; the keys
-- themselves do not change, so no engine is refused.
UPDATE api_keys SET name = name || ' (' || id || ')'
 WHERE EXISTS (SELECT 1 FROM api_keys o
                WHERE lower(o.name) = lower(api_keys.name) AND o.id < api_keys.id);
UPDATE api_keys SET name = name || ' (' || id || ')'
 WHERE EXISTS (SELECT 1 FROM api_keys o
                WHERE lower(o.name) = lower(api_keys.name) AND o.id < api_keys.id);
CREATE UNIQUE INDEX api_keys_name_nocase ON api_keys (lower(name));

-- sign_ins (0031) knows only the sign-ins made since; the audit log remembers earlier ones,
-- so a user's last sign-in is known from the start where the log still holds it.
INSERT INTO sign_ins (user_id, last_ms)
SELECT a.user_id, max(a.at) * 1000 FROM audit_log a
 WHERE a.kind = 'session' AND a.action IN ('sign_in', 'sign_in_link')
   AND a.user_id IN (SELECT id FROM users)
   AND NOT EXISTS (SELECT 1 FROM sign_ins s WHERE s.user_id = a.user_id)
 GROUP BY a.user_id;
