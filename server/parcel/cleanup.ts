import type { ParcelContext } from "./context.js";
import { pruneAudit } from "./repos/admin-retention.js";

export interface CleanupResult {
  parcels: number;
  files: number;
  bytes: number;
}

const LIVE = "('uploading','published','review')";
const ENDED = "('expired','exhausted','revoked')";
/** Ended records stay this long after `ended_at` so owners can see how their parcel ended. */
export const KEEP_ENDED_SECONDS = 86400;
/** Rows per write transaction; the event loop gets a turn between batches. */
const BATCH = 200;

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One run at a time per service: the timer and a manual run queue behind each other. */
const queues = new WeakMap<ParcelContext, Promise<unknown>>();
function serialized<T>(ctx: ParcelContext, job: () => Promise<T>): Promise<T> {
  const prev = queues.get(ctx) ?? Promise.resolve();
  const next = prev.catch(() => undefined).then(job);
  queues.set(ctx, next);
  return next;
}

/** JSON array of the blobs running downloads are reading (never released or deleted). */
function readingJson(ctx: ParcelContext): string {
  return JSON.stringify([...ctx.activity.reading].filter(([, n]) => n > 0).map(([sha]) => sha));
}

/**
 * Cleanup. Both kinds free the bytes of ended parcels at once, delete
 * unreferenced blobs, prune the audit log and expire sessions; the periodic run (`full: false`)
 * keeps ended records for 24 hours, `full` removes every ended record now.
 */
export function runCleanup(ctx: ParcelContext, opts: { full: boolean }): Promise<CleanupResult> {
  return serialized(ctx, async () => {
    const { db } = ctx;
    ctx.sweep();
    await releaseEnded(ctx);
    const now = ctx.now();
    const pick = opts.full
      ? db.prepare(`SELECT id FROM parcels WHERE state IN ${ENDED} LIMIT ${BATCH}`)
      : db.prepare(
          `SELECT id FROM parcels WHERE ended_at <= ? AND state IN ${ENDED} LIMIT ${BATCH}`,
        );
    const args = opts.full ? [] : [now - KEEP_ENDED_SECONDS];
    let parcels = 0;
    let files = 0;
    for (;;) {
      const removed = db.transaction(() => {
        const ids = (pick.all(...args) as Array<{ id: string }>).map((r) => r.id);
        if (ids.length === 0) return null;
        const list = JSON.stringify(ids);
        const f = db
          .prepare(
            "SELECT COUNT(*) AS n FROM files WHERE parcel_id IN (SELECT value FROM json_each(?))",
          )
          .get(list) as { n: number };
        // Files go with their parcel (ON DELETE CASCADE).
        db.prepare("DELETE FROM parcels WHERE id IN (SELECT value FROM json_each(?))").run(list);
        return { parcels: ids.length, files: f.n };
      })();
      if (!removed) break;
      parcels += removed.parcels;
      files += removed.files;
      await yieldTurn();
    }
    const bytes = await reclaimNow(ctx);
    await pruneAudit(ctx);
    expireIdentities(ctx);
    return { parcels, files, bytes };
  });
}

/**
 * Ended parcels give up their blob references (`bytes_freed`), except files a running download
 * still reads; reference counting only ever looks at files of live parcels.
 */
async function releaseEnded(ctx: ParcelContext): Promise<void> {
  const { db } = ctx;
  const reading = readingJson(ctx);
  const next = db.prepare(
    `SELECT id FROM parcels WHERE state IN ${ENDED} AND bytes_freed = 0 AND id > ?
     ORDER BY id LIMIT ${BATCH}`,
  );
  const release = db.prepare(
    `UPDATE files SET sha256 = NULL WHERE parcel_id = ? AND sha256 IS NOT NULL
       AND sha256 NOT IN (SELECT value FROM json_each(?))`,
  );
  const freed = db.prepare(
    `UPDATE parcels SET bytes_freed = 1 WHERE id = ?
       AND NOT EXISTS (SELECT 1 FROM files WHERE parcel_id = ? AND sha256 IS NOT NULL)`,
  );
  let after = "";
  for (;;) {
    const ids = db.transaction(() => {
      const batch = (next.all(after) as Array<{ id: string }>).map((r) => r.id);
      for (const id of batch) {
        release.run(id, reading);
        freed.run(id, id);
      }
      return batch;
    })();
    if (ids.length < BATCH) return;
    after = ids[ids.length - 1];
    await yieldTurn();
  }
}

function markFreed(ctx: ParcelContext): void {
  ctx.db
    .prepare(
      `UPDATE parcels SET bytes_freed = 1 WHERE state IN ${ENDED} AND bytes_freed = 0
         AND NOT EXISTS (SELECT 1 FROM files f WHERE f.parcel_id = parcels.id AND f.sha256 IS NOT NULL)`,
    )
    .run();
}

/** Background reclamation (scheduled by deletes): removes unreferenced blobs only. */
export function reclaimBlobs(ctx: ParcelContext): Promise<number> {
  return serialized(ctx, () => reclaimNow(ctx));
}

/**
 * Deletes blobs no file of a live parcel references and no download reads: the row first (in
 * the same transaction as dropping the dead references to it), then the bytes, so a crash in
 * between leaves unreachable bytes rather than a row without bytes. Returns the bytes freed.
 */
async function reclaimNow(ctx: ParcelContext): Promise<number> {
  const { db } = ctx;
  const unreferenced = `NOT EXISTS (SELECT 1 FROM files f JOIN parcels p ON p.id = f.parcel_id
      WHERE f.sha256 = b.sha256 AND p.state IN ${LIVE})`;
  const candidates = db
    .prepare(`SELECT b.sha256 AS sha FROM blobs b WHERE ${unreferenced}`)
    .all() as Array<{ sha: string }>;
  const stillFree = db.prepare(`SELECT b.size FROM blobs b WHERE b.sha256 = ? AND ${unreferenced}`);
  const dropRefs = db.prepare("UPDATE files SET sha256 = NULL WHERE sha256 = ?");
  const dropBlob = db.prepare("DELETE FROM blobs WHERE sha256 = ?");
  let bytes = 0;
  for (const [i, { sha }] of candidates.entries()) {
    if ((ctx.activity.reading.get(sha) ?? 0) > 0) continue;
    const size = db.transaction(() => {
      const row = stillFree.get(sha) as { size: number } | undefined;
      if (!row) return null;
      dropRefs.run(sha);
      dropBlob.run(sha);
      return row.size;
    })();
    if (size === null) continue;
    ctx.storage.remove(sha);
    bytes += size;
    if (i % BATCH === BATCH - 1) await yieldTurn();
  }
  if (bytes > 0) markFreed(ctx);
  return bytes;
}

/** Expired visitor identities and admin sessions, stale failure and traffic counters. */
function expireIdentities(ctx: ParcelContext): void {
  const { db } = ctx;
  const now = ctx.now();
  // Rate-limit windows are minutes long; a day of failures is kept for inspection.
  const yesterday = new Date((now - 86400) * 1000).toISOString().slice(0, 10);
  db.transaction(() => {
    db.prepare("DELETE FROM visitors WHERE expires_at <= ?").run(now);
    db.prepare("DELETE FROM admin_sessions WHERE expires_at <= ?").run(now);
    db.prepare("DELETE FROM failures WHERE time <= ?").run(now - 86400);
    db.prepare("DELETE FROM traffic WHERE day < ?").run(yesterday);
  })();
}
