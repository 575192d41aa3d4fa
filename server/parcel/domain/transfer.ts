import type { FileHandle } from "node:fs/promises";
import type { Readable } from "node:stream";
import type { AuditDetailKey } from "../../contract/parcel-audit.js";
import { DomainError } from "../../domain-errors.js";
import type { Actor, ParcelDomain } from "./ports.js";
import type { ParcelRow } from "../repos/parcels.js";
import { renewedExpiry } from "./policy.js";
import { countDownload, expireDue, renewalHold } from "./renewal-hold.js";
import type { PickupGrant } from "./pickup-cookie.js";
import { stateError } from "./pickup.js";

/** What both download records say about the body: members both actions list in the contract. */
type BodyDetail = {
  [K in AuditDetailKey<"download.start"> & AuditDetailKey<"download.complete">]?: unknown;
};

/** One body the recipient can download: a single file or the whole-parcel archive. */
export interface TransferPlan {
  parcel: ParcelRow;
  grant: PickupGrant;
  /** Audit target and detail. */
  target: string;
  detail: BodyDetail;
  /** Blobs the body reads (held so cleanup never frees them mid-download). */
  blobs: string[];
  /** Exact body length. */
  length: number;
  filename: string;
  /** What a completed download tells the host: the file's name (null for the ZIP) and count. */
  picked: { file: string | null; files: number };
  /**
   * Opens the body: a stream, or an open file whose first `length` bytes are the body (the
   * sender reads it itself and closes it). Throwing here is before any byte (the download
   * is returned).
   */
  open(): Promise<Readable | FileHandle>;
}

/** Who downloads: the client's address and the actor the audit log names. */
export interface Downloader {
  ip: string;
  actor: Actor;
}

/**
 * Takes one download atomically before anything else happens (so N concurrent requests
 * against k left yield k bodies and N-k refusals) and holds the plan's blobs against cleanup.
 * The deduction and its audit record commit together: a crash cannot leave one without the
 * other. Returns the downloads left; throws why none could be taken.
 */
export function takeDownload(ctx: ParcelDomain, plan: TransferPlan, who: Downloader): number {
  const { parcel, grant } = plan;
  const left = ctx.repos.transaction(() => {
    const n = ctx.repos.pickup.deduct(parcel.id, grant.codeGen, ctx.now(), renewalHold(ctx));
    if (n !== null)
      ctx.audit(who.actor, "download.start", plan.target, who.ip, {
        ...plan.detail,
        downloads_left: n,
      });
    return n;
  });
  if (left === null) {
    const now = ctx.repos.parcels.byId(parcel.id);
    if (!now) throw new DomainError("not_found", "parcel.gone", "This parcel no longer exists");
    if (now.code_gen !== grant.codeGen)
      throw new DomainError(
        "unauthorized",
        "pickup.code_changed",
        "The pickup code has changed; enter the new code",
      );
    throw (
      stateError(now) ??
      new DomainError("gone", "parcel.exhausted", "This parcel has no downloads left")
    );
  }
  // Held synchronously with the deduction: no cleanup pass can run in between, and no sweep
  // can expire the parcel while the download runs (its completion may renew it).
  holdBlobs(ctx, plan.blobs, 1);
  countDownload(ctx, parcel.id, 1);
  ctx.activity.downloadsActive++;
  return left;
}

/**
 * The end of a download taken with `takeDownload`: a complete body renews the expiry (when
 * `renew` is on and downloads are left, also when it completes after the old expiry: the
 * sweep left the parcel to this outcome), is audited and told to the host; one that sent
 * nothing is returned. A parcel still past its expiry then expires at once. The blobs are let
 * go either way. A failure to record is logged, never thrown (the database may already be
 * closing on shutdown). Synchronous from the release of the hold to the expiry: no sweep can
 * come in between.
 */
export function settleDownload(
  ctx: ParcelDomain,
  plan: TransferPlan,
  who: Downloader,
  outcome: { complete: boolean; sent: number; requestId: string | null },
): void {
  countDownload(ctx, plan.parcel.id, -1);
  try {
    if (outcome.complete) {
      const done = ctx.now();
      const policy = ctx.policy();
      const expiry = ctx.repos.pickup.renew(plan.parcel.id, (p) =>
        renewedExpiry(
          policy.renewal_mode,
          p.expires_at,
          done,
          p.sent_at ?? p.created_at,
          policy.renew_days,
          policy.renew_cap_days,
        ),
      );
      ctx.audit(who.actor, "download.complete", plan.target, who.ip, {
        ...plan.detail,
        bytes: outcome.sent,
        ...(expiry === null ? {} : { expires_at: expiry }),
      });
      ctx.emit({
        kind: "parcel.picked_up",
        parcelId: plan.parcel.id,
        ...plan.picked,
        from: who.ip,
        at: ctx.clock.now(),
      });
    } else if (outcome.sent === 0) {
      ctx.repos.pickup.refund(plan.parcel.id);
    }
    expireDue(ctx);
    const now = ctx.repos.parcels.byId(plan.parcel.id);
    if (!now || now.state !== "published") ctx.scheduleReclaim();
  } catch (err) {
    ctx.log.error(
      "download.record_failed",
      `Recording the end of the download of ${plan.target} failed`,
      { requestId: outcome.requestId, err, params: { name: plan.filename } },
    );
  } finally {
    holdBlobs(ctx, plan.blobs, -1);
    ctx.activity.downloadsActive--;
  }
}

/** Counts running readers of blobs; cleanup never frees a blob with one. */
export function holdBlobs(ctx: ParcelDomain, blobs: string[], delta: number): void {
  for (const sha of blobs) {
    const n = (ctx.activity.reading.get(sha) ?? 0) + delta;
    if (n > 0) ctx.activity.reading.set(sha, n);
    else ctx.activity.reading.delete(sha);
  }
}
