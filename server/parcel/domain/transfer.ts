import type { Request, Response } from "express";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { HttpError } from "../../http/errors.js";
import { requestIdOf } from "../../http/request-log.js";
import type { ParcelContext } from "../context.js";
import { clientIp } from "../http/identity.js";
import { getParcel, type ParcelRow } from "../repos/parcels.js";
import type { PickupRepo } from "../repos/pickup.js";
import { renewedExpiry } from "./policy.js";
import type { PickupGrant } from "./pickup-cookie.js";
import { pickupActor, stateError } from "./pickup.js";
import { MINUTE_MS } from "../../contract/time-units.js";

/** A download that sends nothing for this long (a stalled reader) is cut. */
const IDLE_MS = 5 * MINUTE_MS;

/** One body the recipient can download: a single file or the whole-parcel archive. */
export interface TransferPlan {
  parcel: ParcelRow;
  grant: PickupGrant;
  /** Audit target and detail. */
  target: string;
  detail: Record<string, unknown>;
  /** Blobs the body reads (held so cleanup never frees them mid-download). */
  blobs: string[];
  /** Exact body length. */
  length: number;
  filename: string;
  /** What a completed download tells the host: the file's name (null for the ZIP) and count. */
  picked: { file: string | null; files: number };
  /** Opens the body; throwing here is before any byte (the download is returned). */
  open(): Promise<Readable>;
}

/** `Content-Disposition` with an ASCII fallback and the exact name in `filename*` (RFC 6266). */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

function setBodyHeaders(res: Response, plan: TransferPlan): void {
  res.status(200);
  res.setHeader("Content-Type", "application/octet-stream");
  res.setHeader("Content-Disposition", contentDisposition(plan.filename));
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Content-Length", String(plan.length));
}

/** Counts the bytes handed to the response and refuses any length but the announced one. */
function meter(length: number, onChunk: (n: number) => void): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > length) return done(new Error("the body is longer than announced"));
      onChunk(chunk.length);
      done(null, chunk);
    },
    flush(done) {
      done(seen === length ? null : new Error(`the body ended after ${seen} of ${length} bytes`));
    },
  });
}

/**
 * Sends one download. HEAD answers the headers and consumes nothing. GET takes
 * one download atomically before anything else happens (so N concurrent requests against k
 * left yield k bodies and N-k 410s), holds the blobs against cleanup, and streams with
 * backpressure. A body that ends before its last byte stays counted; one that never sent a
 * byte is returned. A complete body with downloads left renews the expiry when `renew` is on.
 */
export async function sendTransfer(
  ctx: ParcelContext,
  repo: PickupRepo,
  req: Request,
  res: Response,
  plan: TransferPlan,
): Promise<void> {
  if (req.method === "HEAD") {
    setBodyHeaders(res, plan);
    res.end();
    return;
  }
  const { parcel, grant } = plan;
  const actor = pickupActor(ctx, req);
  // The deduction and its audit record commit together: a crash cannot leave one without
  // the other.
  const left = ctx.db.transaction(() => {
    const n = repo.deduct(parcel.id, grant.codeGen, ctx.now());
    if (n !== null)
      ctx.audit(req, actor, "download.start", plan.target, { ...plan.detail, downloads_left: n });
    return n;
  })();
  if (left === null) {
    const now = getParcel(ctx.db, parcel.id);
    if (!now) throw new HttpError(404, "parcel.gone", "This parcel no longer exists");
    if (now.code_gen !== grant.codeGen)
      throw new HttpError(
        401,
        "pickup.code_changed",
        "The pickup code has changed; enter the new code",
      );
    throw (
      stateError(now) ?? new HttpError(410, "parcel.exhausted", "This parcel has no downloads left")
    );
  }
  // Held synchronously with the deduction: no cleanup pass can run in between.
  hold(ctx, plan.blobs, 1);
  ctx.activity.downloadsActive++;
  let gone = false;
  res.on("close", () => {
    if (!res.writableFinished) gone = true;
  });
  let sent = 0;
  let complete = false;
  try {
    let source: Readable;
    try {
      source = await plan.open();
    } catch (err) {
      // The error handler logs it with its cause and the request id.
      throw new HttpError(500, "download.read_failed", "The file could not be read", {
        cause: err,
      });
    }
    if (gone) {
      source.destroy();
      return;
    }
    setBodyHeaders(res, plan);
    const idle = setTimeout(() => res.destroy(), IDLE_MS);
    try {
      await pipeline(
        source,
        meter(plan.length, (n) => {
          sent += n;
          idle.refresh();
        }),
        res,
      );
      complete = true;
    } catch {
      // Cut short (client gone, read error): counted unless nothing was sent, below.
      if (!res.destroyed) res.destroy();
    } finally {
      clearTimeout(idle);
    }
  } finally {
    settle(ctx, repo, req, plan, complete, sent);
    hold(ctx, plan.blobs, -1);
    ctx.activity.downloadsActive--;
  }
}

/** Renewal and audit of a complete body; refund of one that sent nothing. */
function settle(
  ctx: ParcelContext,
  repo: PickupRepo,
  req: Request,
  plan: TransferPlan,
  complete: boolean,
  sent: number,
): void {
  const actor = pickupActor(ctx, req);
  try {
    if (complete) {
      const done = ctx.now();
      const policy = ctx.policy();
      const expiry = repo.renew(plan.parcel.id, (p) =>
        renewedExpiry(
          policy.renewal_mode,
          p.expires_at,
          done,
          p.sent_at ?? p.created_at,
          policy.renew_days,
          policy.renew_cap_days,
        ),
      );
      ctx.audit(req, actor, "download.complete", plan.target, {
        ...plan.detail,
        bytes: sent,
        ...(expiry === null ? {} : { expires_at: expiry }),
      });
      ctx.emit({
        kind: "parcel.picked_up",
        parcelId: plan.parcel.id,
        ...plan.picked,
        from: clientIp(req),
        at: ctx.clock.now(),
      });
    } else if (sent === 0) {
      repo.refund(plan.parcel.id);
    }
    const now = getParcel(ctx.db, plan.parcel.id);
    if (!now || now.state !== "published") ctx.scheduleReclaim();
  } catch (err) {
    // The database may already be closing on shutdown; nothing else to undo here.
    ctx.log.error(
      "download.record_failed",
      `Recording the end of the download of ${plan.target} failed`,
      {
        requestId: req.res ? requestIdOf(req.res) || null : null,
        err,
        params: { name: plan.filename },
      },
    );
  }
}

function hold(ctx: ParcelContext, blobs: string[], delta: number): void {
  for (const sha of blobs) {
    const n = (ctx.activity.reading.get(sha) ?? 0) + delta;
    if (n > 0) ctx.activity.reading.set(sha, n);
    else ctx.activity.reading.delete(sha);
  }
}
