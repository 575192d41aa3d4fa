import type { CleanupResult } from "../contract/parcel-admin.js";
import { faultPoint } from "../fault-points.js";
import type { ParcelDomain } from "./domain/ports.js";
import { CLEANUP_BATCH } from "./repos/cleanup.js";
import { utcDay } from "./repos/traffic.js";
import { sweepSessions } from "./domain/sessions.js";
import { DAY_MS, DAY_S } from "../contract/time-units.js";

/** What a cleanup removed: the wire shape of `POST /admin/cleanup`. */
export type { CleanupResult };

/** Ended records stay this long after `ended_at` so owners can see how their parcel ended. */
export const KEEP_ENDED_SECONDS = DAY_S;

/** Damaged blobs stay in quarantine this long, for an operator who wants to look at one. */
export const KEEP_QUARANTINED_MS = 7 * DAY_MS;

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One run at a time per service: the timer and a manual run queue behind each other. */
const queues = new WeakMap<ParcelDomain, Promise<unknown>>();
function serialized<T>(ctx: ParcelDomain, job: () => Promise<T>): Promise<T> {
  const prev = queues.get(ctx) ?? Promise.resolve();
  const next = prev.catch(() => undefined).then(job);
  queues.set(ctx, next);
  return next;
}

/** JSON array of the blobs running downloads are reading (never released or deleted). */
function readingJson(ctx: ParcelDomain): string {
  return JSON.stringify([...ctx.activity.reading].filter(([, n]) => n > 0).map(([sha]) => sha));
}

/**
 * Cleanup. Both kinds free the bytes of ended parcels at once, delete
 * unreferenced blobs, prune the audit log and expire sessions; the periodic run (`full: false`)
 * keeps ended records for 24 hours, `full` removes every ended record now.
 */
export function runCleanup(ctx: ParcelDomain, opts: { full: boolean }): Promise<CleanupResult> {
  return serialized(ctx, async () => {
    sweepSessions(ctx);
    await releaseEnded(ctx);
    const endedBy = opts.full ? null : ctx.now() - KEEP_ENDED_SECONDS;
    let parcels = 0;
    let files = 0;
    for (;;) {
      const removed = ctx.repos.cleanup.removeEndedBatch(endedBy, ctx.now());
      if (!removed) break;
      parcels += removed.parcels;
      files += removed.files;
      await faultPoint("parcel.cleanup-records");
      await yieldTurn();
    }
    const bytes = await reclaimNow(ctx);
    ctx.storage.pruneQuarantine(ctx.clock.now() - KEEP_QUARANTINED_MS);
    await ctx.repos.audit.prune(ctx.runtime(), ctx.now());
    expireIdentities(ctx);
    return { parcels, files, bytes };
  });
}

/**
 * Ended parcels give up their blob references (`bytes_freed`), except files a running download
 * still reads; reference counting only ever looks at files of live parcels.
 */
async function releaseEnded(ctx: ParcelDomain): Promise<void> {
  const reading = readingJson(ctx);
  let after = "";
  for (;;) {
    const ids = ctx.repos.cleanup.releaseEndedBatch(after, reading);
    if (ids.length < CLEANUP_BATCH) return;
    after = ids[ids.length - 1];
    await yieldTurn();
  }
}

/** Background reclamation (scheduled by deletes): removes unreferenced blobs only. */
export function reclaimBlobs(ctx: ParcelDomain): Promise<number> {
  return serialized(ctx, () => reclaimNow(ctx));
}

/**
 * Deletes blobs no file of a live parcel references and no download reads: the row first (in
 * the same transaction as dropping the dead references to it), then the bytes, so a crash in
 * between leaves unreachable bytes rather than a row without bytes. Returns the bytes freed.
 */
async function reclaimNow(ctx: ParcelDomain): Promise<number> {
  const candidates = ctx.repos.cleanup.unreferencedBlobs();
  let bytes = 0;
  for (const [i, sha] of candidates.entries()) {
    if ((ctx.activity.reading.get(sha) ?? 0) > 0) continue;
    const size = ctx.repos.cleanup.dropBlob(sha);
    if (size === null) continue;
    ctx.storage.remove(sha);
    bytes += size;
    if (i % CLEANUP_BATCH === CLEANUP_BATCH - 1) {
      await faultPoint("parcel.cleanup-blobs");
      await yieldTurn();
    }
  }
  if (bytes > 0) ctx.repos.cleanup.markFreed();
  return bytes;
}

/** Expired visitor identities and admin sessions, stale failure and traffic counters. */
function expireIdentities(ctx: ParcelDomain): void {
  const now = ctx.now();
  // Rate-limit windows are minutes long; a day of failures is kept for inspection.
  ctx.repos.cleanup.expireIdentities(now, now - DAY_S, utcDay(now - DAY_S));
}
