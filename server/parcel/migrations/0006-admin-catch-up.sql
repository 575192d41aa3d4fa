-- 0004-admin.sql was changed after it first shipped, and a database that had already applied an
-- earlier text of it never ran the later one. This brings every such database to the schema the
-- current 0001-0005 create, keeping all rows, and changes nothing on a database that already has
-- it. The earlier texts of 0004 lacked, in turn: the hourly audit totals and their triggers; the
-- trigram index without positions (detail = column), which replaced one with positions and its
-- fts5vocab table audit_fts_terms; the index setting deletemerge = 0; files_parcel_size.

-- The vocabulary table belonged to the index with positions and is read by nothing any more.
DROP TABLE IF EXISTS audit_fts_terms;

-- The index is contentless, so it cannot rebuild itself: it is recreated and filled from the
-- audit rows, as 0004 fills it. Only when its definition is the old one: on a large log this
-- costs seconds.
-- migrate:when SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit_fts' AND sql LIKE '%detail = column%')
DROP TABLE IF EXISTS audit_fts;
CREATE VIRTUAL TABLE audit_fts USING fts5(
  source, target,
  content = '', contentless_delete = 1, detail = column,
  tokenize = 'trigram case_sensitive 1'
);
INSERT INTO audit_fts (rowid, source, target) SELECT id, source, target FROM audit;
-- migrate:end

-- Keeps deletes from rewriting large index segments (see 0004); setting it again is harmless.
INSERT INTO audit_fts (audit_fts, rank) VALUES ('deletemerge', 0);

-- Recreated so that they are the current ones whatever came before (dropping an index table
-- does not drop the triggers on `audit` that write to it).
DROP TRIGGER IF EXISTS audit_fts_insert;
DROP TRIGGER IF EXISTS audit_fts_delete;
CREATE TRIGGER audit_fts_insert AFTER INSERT ON audit BEGIN
  INSERT INTO audit_fts (rowid, source, target) VALUES (new.id, new.source, new.target);
END;
CREATE TRIGGER audit_fts_delete AFTER DELETE ON audit BEGIN
  DELETE FROM audit_fts WHERE rowid = old.id;
END;

CREATE INDEX IF NOT EXISTS files_parcel_size ON files (parcel_id, size);

-- Hourly totals: created and counted from the audit rows where they are missing. A table the
-- triggers have kept is left as it is; an empty one while audit rows exist can only be one that
-- never had its triggers, so it is filled too.
CREATE TABLE IF NOT EXISTS audit_hours (
  start  INTEGER PRIMARY KEY,  -- hour start, Unix seconds (floor)
  n      INTEGER NOT NULL,
  min_id INTEGER NOT NULL,
  max_id INTEGER NOT NULL
);
INSERT INTO audit_hours (start, n, min_id, max_id)
  SELECT time - ((time % 3600) + 3600) % 3600 AS s, COUNT(*), MIN(id), MAX(id) FROM audit
  WHERE NOT EXISTS (SELECT 1 FROM audit_hours) GROUP BY s;
DROP TRIGGER IF EXISTS audit_hours_insert;
DROP TRIGGER IF EXISTS audit_hours_delete;
CREATE TRIGGER audit_hours_insert AFTER INSERT ON audit BEGIN
  INSERT INTO audit_hours (start, n, min_id, max_id)
    VALUES (new.time - ((new.time % 3600) + 3600) % 3600, 1, new.id, new.id)
    ON CONFLICT (start) DO UPDATE SET n = n + 1,
      min_id = MIN(min_id, excluded.min_id), max_id = MAX(max_id, excluded.max_id);
END;
CREATE TRIGGER audit_hours_delete AFTER DELETE ON audit BEGIN
  UPDATE audit_hours SET n = n - 1 WHERE start = old.time - ((old.time % 3600) + 3600) % 3600;
END;
