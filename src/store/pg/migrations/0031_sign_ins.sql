-- Each user's last two sign-ins (src/store/migrations/0031_sign_ins.sql says what each column
-- is).
CREATE TABLE sign_ins (
    user_id     BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    last_ms     BIGINT NOT NULL,
    previous_ms BIGINT
);

CREATE INDEX maintenance_windows_event ON maintenance_windows(event_id) WHERE event_id IS NOT NULL;
