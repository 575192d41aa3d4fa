-- A blob found wrong (its size or its content is not what its name says, or its bytes are
-- gone) is marked here and moved out of blobs/ into quarantine/: it is never served again, and
-- a later upload of the same content stores it afresh and clears the mark.
ALTER TABLE blobs ADD COLUMN quarantined_at INTEGER;
