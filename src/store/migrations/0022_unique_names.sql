-- Test case groups and distribution lists are named once, without case (issue 30, item 11):
-- a second 'Claims - FNOL' made twins in every dropdown, and the report filter, which works
-- by group name, mixed the two. SQLite's lower() folds ASCII letters only, as NOCASE does
-- everywhere else in the store; PostgreSQL's index says lower(name COLLATE "C") to match.
--
-- A database made before this may hold twins already. Nothing is deleted: each twin after
-- the first (by id) is renamed 'name (id)', so the index can be built and the twins told
-- apart. A second pass renames again a twin whose new name was already taken (a group named
-- 'Claims (7)' beside the renamed seventh 'Claims'), so the migration does not fail on them.
UPDATE test_case_groups SET name = name || ' (' || id || ')'
 WHERE EXISTS (SELECT 1 FROM test_case_groups o
                WHERE lower(o.name) = lower(test_case_groups.name) AND o.id < test_case_groups.id);
UPDATE test_case_groups SET name = name || ' (' || id || ')'
 WHERE EXISTS (SELECT 1 FROM test_case_groups o
                WHERE lower(o.name) = lower(test_case_groups.name) AND o.id < test_case_groups.id);
CREATE UNIQUE INDEX test_case_groups_name ON test_case_groups (lower(name));

UPDATE distribution_lists SET name = name || ' (' || id || ')'
 WHERE EXISTS (SELECT 1 FROM distribution_lists o
                WHERE lower(o.name) = lower(distribution_lists.name) AND o.id < distribution_lists.id);
UPDATE distribution_lists SET name = name || ' (' || id || ')'
 WHERE EXISTS (SELECT 1 FROM distribution_lists o
                WHERE lower(o.name) = lower(distribution_lists.name) AND o.id < distribution_lists.id);
CREATE UNIQUE INDEX distribution_lists_name ON distribution_lists (lower(name));
