-- The inbox: LAN devices send files to this computer. One row at most (id 1), kept while
-- closed so the code generation only grows.
-- code_hash: keyed hash of the open inbox's code (as parcels.code_hash); NULL when closed.
-- code_box:  the code sealed with the service's inbox key, so the operator sees it again.
-- code_gen:  bumped by every open and close; an inbox_session cookie carries it, so a
--            closed or reopened inbox ends every session of the code before at once.
-- password_hash: scrypt at the pickup cost; NULL = no password.
CREATE TABLE inbox (
  id            INTEGER PRIMARY KEY CHECK (id = 1),
  code_hash     TEXT,
  code_box      TEXT,
  code_gen      INTEGER NOT NULL DEFAULT 0,
  password_hash TEXT,
  opened_at     INTEGER,
  closes_at     INTEGER
);

-- inbox: 1 for a parcel sent to the inbox (its sender never learns its pickup code), NULL
-- otherwise; inbox_box holds that parcel's current pickup code sealed with the inbox key, for
-- the operator's devices.
ALTER TABLE parcels ADD COLUMN inbox INTEGER;
ALTER TABLE parcels ADD COLUMN inbox_box TEXT;
CREATE INDEX parcels_inbox ON parcels (sort_at DESC, id DESC) WHERE inbox = 1;
