-- Owner requests carrying a manage token look the token up by its hash: without an index an
-- unknown or foreign token read the whole parcels table.
CREATE INDEX IF NOT EXISTS parcels_token ON parcels (token_hash);
