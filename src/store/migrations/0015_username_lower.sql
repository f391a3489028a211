-- Usernames are looked up without case by one query for both backends,
-- `lower(username) = lower($1)` (store/users.rs): this index serves it, as
-- PostgreSQL's unique index on lower(username) does there.
CREATE INDEX users_username_lower ON users (lower(username));
