-- Proxy management service schema. Record times are ms since the Unix epoch (the API
-- renders them as RFC 3339 UTC strings).

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- The single administrator (id is always 1).
CREATE TABLE admin (
  id            INTEGER PRIMARY KEY CHECK (id = 1),
  password_hash TEXT NOT NULL,
  created_at    INTEGER NOT NULL
);

CREATE TABLE sessions (
  id_hash    TEXT PRIMARY KEY,   -- sha256 of the cookie value; the value itself is never stored
  csrf       TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);

CREATE TABLE login_failures (
  ip TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX login_failures_ip ON login_failures (ip, at);

CREATE TABLE subscriptions (
  id             TEXT PRIMARY KEY,
  position       INTEGER NOT NULL,
  name           TEXT NOT NULL,
  url            TEXT NOT NULL,
  enabled        INTEGER NOT NULL,
  interval_hours INTEGER NOT NULL,
  updated_at     INTEGER,
  attempted_at   INTEGER,
  last_error     TEXT NOT NULL DEFAULT '',
  usage_json     TEXT,
  node_count     INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE rules (
  id       TEXT PRIMARY KEY,
  position INTEGER NOT NULL,
  type     TEXT NOT NULL CHECK (type IN ('DOMAIN','DOMAIN-SUFFIX','IP-CIDR')),
  value    TEXT NOT NULL,
  action   TEXT NOT NULL CHECK (action IN ('DIRECT','PROXY')),
  enabled  INTEGER NOT NULL
);
