-- What an operator asks of keys and accounts (src/store/migrations/0036_admin_facts.sql says
-- why). Letters are folded as SQLite's lower() folds them (ASCII only, as 0022 does), so
-- both backends refuse the same names.
ALTER TABLE api_keys ADD COLUMN last_used_ms BIGINT;

UPDATE api_keys k SET name = k.name || ' (' || k.id || ')'
 WHERE EXISTS (SELECT 1 FROM api_keys o
                WHERE lower(o.name COLLATE "C") = lower(k.name COLLATE "C") AND o.id < k.id);
UPDATE api_keys k SET name = k.name || ' (' || k.id || ')'
 WHERE EXISTS (SELECT 1 FROM api_keys o
                WHERE lower(o.name COLLATE "C") = lower(k.name COLLATE "C") AND o.id < k.id);
CREATE UNIQUE INDEX api_keys_name_nocase ON api_keys (lower(name COLLATE "C"));

INSERT INTO sign_ins (user_id, last_ms)
SELECT a.user_id, max(a.at) * 1000 FROM audit_log a
 WHERE a.kind = 'session' AND a.action IN ('sign_in', 'sign_in_link')
   AND a.user_id IN (SELECT id FROM users)
   AND NOT EXISTS (SELECT 1 FROM sign_ins s WHERE s.user_id = a.user_id)
 GROUP BY a.user_id;
