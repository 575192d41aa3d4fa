import { DomainError } from "../../domain-errors.js";
import type { ParcelContext } from "../context.js";
import { noteLastingRefusal } from "./lasting-refusals.js";
import { secondsUntilUtcMidnight } from "../../clock.js";

/** How often a running upload looks at its session (deadline passed, revoked, deleted). */
const WATCH_MS = 1000;

/** The one running upload of a file, counted as active until `end()`. */
export interface UploadWatch {
  /** Aborted when the file's session ends while its bytes arrive. */
  readonly signal: AbortSignal;
  /** Stops looking at the session (the body has been read). */
  stop(): void;
  /** Stops looking and settles the counters; call once, in a finally. */
  end(): void;
}

/**
 * Claims `fileId` for one upload (PUT or resumable PATCH), or answers null when another one
 * holds it: the check and the mark are one synchronous step, so two requests for one file can
 * never both pass, whatever awaits follow. Call it before the first await of the handler and
 * `end()` the claim in a finally.
 *
 * The claim counts the upload as active and stops it at once when its session ends: the sweep
 * stops it when it revokes the session, and this watch notices a deadline (on the service's
 * clock), a revoke or a delete even when no other request comes in to run the sweep.
 * `windowMs` is the slow-upload floor's window: the watch looks at least four times within it.
 */
export function claimUpload(
  ctx: ParcelContext,
  parcelId: string,
  fileId: string,
  windowMs: number,
): UploadWatch | null {
  if (ctx.activity.uploading.has(fileId)) return null;
  ctx.activity.uploading.add(fileId);
  ctx.activity.uploadsActive++;
  const stopper = new AbortController();
  ctx.activity.uploadStops.set(fileId, () => stopper.abort());
  const timer = setInterval(
    () => {
      try {
        if (ctx.repos.sessions.isOpen(parcelId, ctx.now())) return;
        // A timed-out session is revoked and its reservation released right now.
        ctx.sweep();
      } catch (err) {
        // The database closes on shutdown; the transfer ends either way.
        ctx.log(`upload watch of file ${fileId}: ${String(err)}`);
      }
      stopper.abort();
    },
    Math.max(1, Math.min(WATCH_MS, windowMs / 4)),
  );
  timer.unref();
  let ended = false;
  return {
    signal: stopper.signal,
    stop: () => clearInterval(timer),
    end: () => {
      clearInterval(timer);
      if (ended) return;
      ended = true;
      // Counters first, synchronously, so they are settled before the client sees the answer.
      ctx.activity.uploadStops.delete(fileId);
      ctx.activity.uploading.delete(fileId);
      ctx.activity.uploadsActive--;
    },
  };
}

/**
 * Counts the bytes of an upload toward the sender's daily allowance as they arrive (each byte
 * once, whether it came by PUT or PATCH) and refuses the rest with 429 once it is used up.
 */
export function countDailyTraffic(ctx: ParcelContext, ip: string): (bytes: number) => void {
  const limit = ctx.policy().daily_upload_bytes;
  return (bytes) => {
    const now = ctx.now();
    if (ctx.repos.traffic.add(ip, now, bytes) > limit) {
      const refusal = new DomainError(
        "rate_limited",
        "upload.daily_limit",
        "Today's upload allowance for this address is used up",
        { headers: { "Retry-After": String(secondsUntilUtcMidnight(now)) } },
      );
      noteLastingRefusal(ctx, null, ip, refusal);
      throw refusal;
    }
  };
}
