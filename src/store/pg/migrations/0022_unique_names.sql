-- Test case groups and distribution lists are named once, without case (issue 30, item 11):
-- a second 'Claims - FNOL' made twins in every dropdown, and the report filter, which works
-- by group name, mixed the two. Letters are folded as SQLite's lower() folds them (ASCII
-- only, as the store's nocase() does), so both backends refuse the same names.
--
-- A database made before this may hold twins already. Nothing is deleted: each twin after
-- the first (by id) is renamed 'name (id)', so the index can be built and the twins told
-- apart. A second pass renames again a twin whose new name was already taken (a group named
-- 'Claims (7)' beside the renamed seventh 'Claims'), so the migration does not fail on them.
UPDATE test_case_groups g SET name = g.name || ' (' || g.id || ')'
 WHERE EXISTS (SELECT 1 FROM test_case_groups o
                WHERE lower(o.name COLLATE "C") = lower(g.name COLLATE "C") AND o.id < g.id);
UPDATE test_case_groups g SET name = g.name || ' (' || g.id || ')'
 WHERE EXISTS (SELECT 1 FROM test_case_groups o
                WHERE lower(o.name COLLATE "C") = lower(g.name COLLATE "C") AND o.id < g.id);
CREATE UNIQUE INDEX test_case_groups_name ON test_case_groups (lower(name COLLATE "C"));

UPDATE distribution_lists d SET name = d.name || ' (' || d.id || ')'
 WHERE EXISTS (SELECT 1 FROM distribution_lists o
                WHERE lower(o.name COLLATE "C") = lower(d.name COLLATE "C") AND o.id < d.id);
UPDATE distribution_lists d SET name = d.name || ' (' || d.id || ')'
 WHERE EXISTS (SELECT 1 FROM distribution_lists o
                WHERE lower(o.name COLLATE "C") = lower(d.name COLLATE "C") AND o.id < d.id);
CREATE UNIQUE INDEX distribution_lists_name ON distribution_lists (lower(name COLLATE "C"));
