-- A subscription's last refresh failure keeps its stable code and the values its sentence
-- names (JSON), so the console can say it in the reader's language. Failures recorded before
-- this have no code; the console shows their English sentence.
ALTER TABLE subscriptions ADD COLUMN last_error_code TEXT NOT NULL DEFAULT '';
ALTER TABLE subscriptions ADD COLUMN last_error_params TEXT NOT NULL DEFAULT '{}';
