-- Chat and webhook channels (issue 29): contact types Webhook 8, Microsoft Teams 16,
-- Slack 32 and Mattermost 64 in distribution lists and in the outbox. An attachment may be
-- shown inside the HTML part (content_id: a scheduled report's chart).
ALTER TABLE distribution_contacts DROP CONSTRAINT distribution_contacts_type_check;
ALTER TABLE distribution_contacts
    ADD CONSTRAINT distribution_contacts_type_check CHECK (type IN (1, 2, 4, 8, 16, 32, 64));
ALTER TABLE outbox DROP CONSTRAINT outbox_channel_check;
ALTER TABLE outbox
    ADD CONSTRAINT outbox_channel_check CHECK (channel IN (1, 2, 4, 8, 16, 32, 64));
ALTER TABLE outbox_attachments ADD COLUMN content_id TEXT;
