-- Parcel transfer service schema. Times are Unix seconds.

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE parcels (
  id                TEXT PRIMARY KEY,
  state             TEXT NOT NULL CHECK (state IN ('uploading','published','expired','exhausted','revoked','review')),
  owner_visitor     TEXT,              -- visitor id (never the cookie value); NULL for token-only uploads
  token_hash        TEXT NOT NULL,     -- sha256 of manage_token
  code_hash         TEXT,              -- keyed hash of the normalised pickup code; NULL before publish
  code_gen          INTEGER NOT NULL DEFAULT 0, -- bumped on every new code; pickup cookies carry it
  password_hash     TEXT,              -- scrypt; NULL = no password
  wrong_passwords   INTEGER NOT NULL DEFAULT 0,
  days              INTEGER NOT NULL,
  downloads_allowed INTEGER NOT NULL,
  downloads_left    INTEGER NOT NULL,
  renew             INTEGER NOT NULL,
  created_at        INTEGER NOT NULL,
  sent_at           INTEGER,
  sort_at           INTEGER NOT NULL,  -- COALESCE(sent_at, created_at): the admin list order
  expires_at        INTEGER NOT NULL,  -- session deadline while uploading, pickup expiry after
  ended_at          INTEGER,           -- when it became expired/exhausted/revoked
  bytes_freed       INTEGER NOT NULL DEFAULT 0, -- 1 once cleanup released its blob references
  reserved_bytes    INTEGER NOT NULL DEFAULT 0, -- open reservation: declared size of files not yet ready
  client_ip         TEXT NOT NULL DEFAULT '',
  search_names      TEXT NOT NULL DEFAULT ''    -- lower-cased file names joined by '/', for q
);
CREATE INDEX parcels_order ON parcels (sort_at DESC, id DESC);
CREATE INDEX parcels_state_order ON parcels (state, sort_at DESC, id DESC);
CREATE INDEX parcels_state_expiry ON parcels (state, expires_at);
CREATE INDEX parcels_code ON parcels (code_hash);
CREATE INDEX parcels_owner ON parcels (owner_visitor, sort_at DESC);
CREATE INDEX parcels_ended ON parcels (ended_at) WHERE ended_at IS NOT NULL;

CREATE TABLE blobs (
  sha256     TEXT PRIMARY KEY,
  size       INTEGER NOT NULL,
  crc32      INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE files (
  id        TEXT PRIMARY KEY,
  parcel_id TEXT NOT NULL REFERENCES parcels(id) ON DELETE CASCADE,
  idx       INTEGER NOT NULL,
  name      TEXT NOT NULL,
  size      INTEGER NOT NULL,
  state     TEXT NOT NULL CHECK (state IN ('pending','ready','failed')),
  sha256    TEXT REFERENCES blobs(sha256)
);
CREATE INDEX files_parcel ON files (parcel_id, idx);
CREATE INDEX files_blob ON files (sha256);

CREATE TABLE visitors (
  id          TEXT PRIMARY KEY,
  cookie_hash TEXT NOT NULL UNIQUE,
  expires_at  INTEGER NOT NULL
);

CREATE TABLE admins (
  username      TEXT PRIMARY KEY,
  password_hash TEXT NOT NULL,
  created_at    INTEGER NOT NULL
);

CREATE TABLE admin_sessions (
  token_hash TEXT PRIMARY KEY,
  username   TEXT NOT NULL REFERENCES admins(username) ON DELETE CASCADE,
  expires_at INTEGER NOT NULL
);

-- Failure events for rate limits that must survive a restart (pickup failures per client,
-- admin login failures per client).
CREATE TABLE failures (
  kind   TEXT NOT NULL,
  client TEXT NOT NULL,
  time   INTEGER NOT NULL
);
CREATE INDEX failures_lookup ON failures (kind, client, time);

-- Incoming upload bytes per client IP and UTC day (YYYY-MM-DD).
CREATE TABLE traffic (
  client TEXT NOT NULL,
  day    TEXT NOT NULL,
  bytes  INTEGER NOT NULL,
  PRIMARY KEY (client, day)
);

CREATE TABLE audit (
  id     INTEGER PRIMARY KEY AUTOINCREMENT,
  action TEXT NOT NULL,
  source TEXT NOT NULL,
  target TEXT NOT NULL,
  time   INTEGER NOT NULL,
  detail TEXT NOT NULL DEFAULT '{}',
  size   INTEGER NOT NULL            -- content bytes, for the audit content budget
);
CREATE INDEX audit_action ON audit (action, id);
CREATE INDEX audit_time ON audit (time, id);
