import type { Db } from "../../db/open.js";
import { prepared } from "./statements.js";

/**
 * Exact counts over the audit log that are kept up to date instead of recounted. The log is
 * append-only apart from retention pruning: a cached count stays exact by adding the matches
 * among rows newer than the ones it has seen, and pruning (`invalidateAuditCounts`) or any
 * change of the oldest id drops everything. Paging through a filtered result then costs one
 * full count, not one per page.
 */
interface Entry<T> {
  /** Highest audit id covered. */
  seen: number;
  value: T;
}

interface State {
  generation: number;
  oldest: number | null;
  entries: Map<string, Entry<unknown>>;
}

const states = new WeakMap<Db, State>();
const generations = new WeakMap<Db, number>();
const MAX_ENTRIES = 200;

/** Call after deleting audit rows. */
export function invalidateAuditCounts(db: Db): void {
  generations.set(db, (generations.get(db) ?? 0) + 1);
}

/**
 * `compute(after)` counts the rows with id > `after` (0 = all); `merge` adds a delta to a
 * cached value. Must run inside the caller's read transaction.
 */
export function cachedCount<T>(
  db: Db,
  key: string,
  compute: (after: number) => T,
  merge: (cached: T, delta: T) => T,
): T {
  const ends = prepared(
    db,
    "SELECT (SELECT MIN(id) FROM audit) AS oldest, (SELECT MAX(id) FROM audit) AS newest",
  ).get() as { oldest: number | null; newest: number | null };
  const generation = generations.get(db) ?? 0;
  let state = states.get(db);
  if (!state || state.generation !== generation || state.oldest !== ends.oldest) {
    state = { generation, oldest: ends.oldest, entries: new Map() };
    states.set(db, state);
  }
  const newest = ends.newest ?? 0;
  const hit = state.entries.get(key) as Entry<T> | undefined;
  let value: T;
  if (!hit || hit.seen > newest) value = compute(0);
  else if (hit.seen === newest) value = hit.value;
  else value = merge(hit.value, compute(hit.seen));
  state.entries.delete(key);
  if (state.entries.size >= MAX_ENTRIES) {
    const oldestKey = state.entries.keys().next().value;
    if (oldestKey !== undefined) state.entries.delete(oldestKey);
  }
  state.entries.set(key, { seen: newest, value });
  return value;
}
