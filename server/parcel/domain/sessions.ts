import type { ParcelDomain } from "./ports.js";
import { expireDue } from "./renewal-hold.js";

/**
 * Moves parcels whose time ran out: published -> expired (not while a running download may
 * still renew it: domain/renewal-hold.ts), uploading -> revoked (releasing their
 * reservations). A revoked session's running PUTs are stopped; partial data of its other
 * files goes at once.
 */
export function sweepSessions(ctx: ParcelDomain): void {
  const { sessions } = ctx.repos;
  const now = ctx.now();
  expireDue(ctx);
  const stale = sessions.timedOutSessions(now);
  if (stale.length === 0) return;
  for (const id of stale) {
    const files = sessions.pendingFileIds(id);
    // Revoked (and its reservation released) even while a PUT runs: the PUT is stopped
    // and removes its own temporary file on the way out.
    sessions.revokeSession(id, now);
    for (const fileId of files) {
      const stopUpload = ctx.activity.uploadStops.get(fileId);
      if (stopUpload) stopUpload();
      else if (!ctx.activity.uploading.has(fileId)) ctx.storage.clearTemp(fileId);
    }
  }
  ctx.scheduleReclaim();
}

/**
 * Start-up recovery: every unpublished session is revoked and its partial data released, and
 * stored bytes without a blob record (a crash between the two steps of storing or reclaiming
 * a blob: reachable by nothing, counted nowhere) are removed before any upload can start.
 * Returns how many such files were removed.
 */
export function recoverAtStart(ctx: ParcelDomain): number {
  ctx.repos.sessions.revokeAllSessions(ctx.now());
  ctx.storage.clearTemp();
  return ctx.storage.removeUnknown((prefix) => ctx.repos.blobs.withPrefix(prefix));
}

/**
 * An owner's revoke: a live parcel becomes `revoked`. Partial data of files not being
 * written right now goes at once; a running PUT or PATCH is stopped and removes its own
 * temporary file. Returns whether this call revoked it.
 */
export function revokeParcel(ctx: ParcelDomain, id: string): boolean {
  if (!ctx.repos.sessions.revoke(id, ctx.now())) return false;
  for (const fileId of ctx.repos.sessions.pendingFileIds(id)) {
    // A running upload is stopped now (it removes its own data on the way out).
    const stopUpload = ctx.activity.uploadStops.get(fileId);
    if (stopUpload) stopUpload();
    else if (!ctx.activity.uploading.has(fileId)) ctx.storage.clearTemp(fileId);
  }
  ctx.scheduleReclaim();
  return true;
}
