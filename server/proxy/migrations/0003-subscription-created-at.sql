-- When each subscription was added: a subscription refreshed on a schedule that has never
-- succeeded counts as stale from this time. Subscriptions kept from before take the time of
-- their last success or attempt, or the time of this upgrade.
ALTER TABLE subscriptions ADD COLUMN created_at INTEGER;
UPDATE subscriptions
   SET created_at = COALESCE(updated_at, attempted_at, CAST(strftime('%s', 'now') AS INTEGER) * 1000);
