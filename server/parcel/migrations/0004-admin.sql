-- Admin queries. A trigram full-text index keeps audit `source`/`target` fragment filters fast on
-- a large log (a full scan of a million rows with instr() costs 100-200 ms). Contentless with
-- contentless_delete: it stores no copy of the text, and retention pruning deletes by rowid.
-- case_sensitive 1 gives the same answers as instr(); fragments under 3 characters use instr().
-- Queries only ask for single trigrams in a column, so no positions are kept (detail = column).
CREATE VIRTUAL TABLE audit_fts USING fts5(
  source, target,
  content = '', contentless_delete = 1, detail = column,
  tokenize = 'trigram case_sensitive 1'
);
-- Deleting rows must not trigger a rewrite of whole large segments inside the deleting
-- statement (seconds with a million rows); ordinary merges on insert clean deleted entries up.
INSERT INTO audit_fts (audit_fts, rank) VALUES ('deletemerge', 0);
INSERT INTO audit_fts (rowid, source, target) SELECT id, source, target FROM audit;
CREATE TRIGGER audit_fts_insert AFTER INSERT ON audit BEGIN
  INSERT INTO audit_fts (rowid, source, target) VALUES (new.id, new.source, new.target);
END;
CREATE TRIGGER audit_fts_delete AFTER DELETE ON audit BEGIN
  DELETE FROM audit_fts WHERE rowid = old.id;
END;

-- Stats: bytes and count of files of live parcels without reading the file rows.
CREATE INDEX files_parcel_size ON files (parcel_id, size);

-- Cleanup sweeps of expired sessions and identities.
CREATE INDEX admin_sessions_expiry ON admin_sessions (expires_at);
CREATE INDEX visitors_expiry ON visitors (expires_at);
CREATE INDEX failures_time ON failures (time);

-- Audit rows per hour (by `time`), kept by triggers: a time filter's row count is the sum of
-- the whole hours inside it plus two partial hours read from the time index, instead of a walk
-- over every row in range. min_id/max_id bound the ids of the hour's rows (deletes leave them
-- as looser bounds); the query only uses them as bounds and checks density before relying on them.
CREATE TABLE audit_hours (
  start  INTEGER PRIMARY KEY,  -- hour start, Unix seconds (floor)
  n      INTEGER NOT NULL,
  min_id INTEGER NOT NULL,
  max_id INTEGER NOT NULL
);
INSERT INTO audit_hours (start, n, min_id, max_id)
  SELECT time - ((time % 3600) + 3600) % 3600 AS s, COUNT(*), MIN(id), MAX(id) FROM audit GROUP BY s;
CREATE TRIGGER audit_hours_insert AFTER INSERT ON audit BEGIN
  INSERT INTO audit_hours (start, n, min_id, max_id)
    VALUES (new.time - ((new.time % 3600) + 3600) % 3600, 1, new.id, new.id)
    ON CONFLICT (start) DO UPDATE SET n = n + 1,
      min_id = MIN(min_id, excluded.min_id), max_id = MAX(max_id, excluded.max_id);
END;
CREATE TRIGGER audit_hours_delete AFTER DELETE ON audit BEGIN
  UPDATE audit_hours SET n = n - 1 WHERE start = old.time - ((old.time % 3600) + 3600) % 3600;
END;
