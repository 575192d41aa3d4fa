-- The LAN devices that use the gateway, the addresses each one has now, and what each one moved
-- per hour and per day. Times are ms since the Unix epoch.

CREATE TABLE devices (
  -- A small number for the traffic rows, which are many: a text id in each would double them.
  key             INTEGER PRIMARY KEY,
  -- The MAC address (lower case) when known, else the IP address.
  id              TEXT NOT NULL UNIQUE,
  mac             TEXT,
  -- The operator's name ('' for none) and the host name a DHCP lease gave.
  name            TEXT NOT NULL DEFAULT '',
  discovered_name TEXT,
  -- The maker its MAC's vendor prefix is registered to (looked up once, when the MAC is learnt).
  vendor          TEXT,
  policy          TEXT NOT NULL DEFAULT 'default'
                  CHECK (policy IN ('default', 'direct', 'proxy', 'block')),
  -- NULL for a device known only from a restored backup, not seen here yet.
  first_seen      INTEGER,
  last_seen       INTEGER
);

-- The addresses a device holds now; an address belongs to one device at a time.
CREATE TABLE device_addresses (
  ip         TEXT PRIMARY KEY,
  device_key INTEGER NOT NULL REFERENCES devices (key) ON DELETE CASCADE,
  last_seen  INTEGER NOT NULL
);
CREATE INDEX device_addresses_device ON device_addresses (device_key);

-- Bytes per device and hour (hours since the epoch, UTC). Ordered by hour, so the rows of one
-- hour are written together and the oldest go in one range at the front.
CREATE TABLE traffic_hours (
  hour       INTEGER NOT NULL,
  device_key INTEGER NOT NULL REFERENCES devices (key) ON DELETE CASCADE,
  upload     INTEGER NOT NULL,
  download   INTEGER NOT NULL,
  PRIMARY KEY (hour, device_key)
) WITHOUT ROWID;

-- The same per day of the gateway's local calendar (days since 1970-01-01 of the local date),
-- so a week or a month is read from 7 or 30 rows per device instead of 168 or 720.
CREATE TABLE traffic_days (
  day        INTEGER NOT NULL,
  device_key INTEGER NOT NULL REFERENCES devices (key) ON DELETE CASCADE,
  upload     INTEGER NOT NULL,
  download   INTEGER NOT NULL,
  PRIMARY KEY (day, device_key)
) WITHOUT ROWID;
