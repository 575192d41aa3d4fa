-- What can still be known of a pickup code, which is otherwise kept only as a keyed hash.
-- code_tail: its last two characters (of at least six), so the administrator can tell parcels
--   apart by what their senders see, also after cleanup removed them (parcel_memos below).
-- code_box: the code sealed (AES-256-GCM) with a key derived from the parcel's manage token,
--   written only when the request that issued the code carried that token: the service cannot
--   open it without the token, which it never stores, so only the owner holding the token can
--   see the code again. NULL when the code was issued without it (an administrator's reissue).
ALTER TABLE parcels ADD COLUMN code_tail TEXT;
ALTER TABLE parcels ADD COLUMN code_box TEXT;

-- Cleanup removes the rows of ended parcels while the audit log still speaks of them: what a
-- person needs to tell which parcel a record was about stays here until no record is left
-- that could name it (the audit retention prunes both).
CREATE TABLE parcel_memos (
  id         TEXT PRIMARY KEY,   -- the removed parcel's id
  names      TEXT NOT NULL,      -- JSON array of its first file names
  files      INTEGER NOT NULL,   -- how many files it had
  bytes      INTEGER NOT NULL,   -- their total size
  code_tail  TEXT,               -- the last characters of its last pickup code
  state      TEXT NOT NULL,      -- how it ended: expired, exhausted or revoked
  sent_at    INTEGER,
  removed_at INTEGER NOT NULL
);
CREATE INDEX parcel_memos_removed ON parcel_memos (removed_at);
