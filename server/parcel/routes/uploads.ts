import type { Request, Response, Router } from "express";
import { HttpError } from "../../http/errors.js";
import type { Delivered } from "../../contract/parcel-inbox.js";
import type { Published } from "../../contract/parcel-views.js";
import type { Actor, ParcelContext } from "../context.js";
import { issueManageToken } from "../domain/manage-token.js";
import { hashPickupPassword } from "../../password-hash.js";
import { randomId, sha256Hex } from "../domain/secrets.js";
import { shareFields } from "../domain/share.js";
import { admitSession, ownedParcel, publishParcel } from "../domain/uploads.js";
import { removeUploadFile } from "../domain/remove-file.js";
import { noteLastingRefusal } from "../http/lasting-refusals.js";
import { checkManifest } from "../domain/admission.js";
import {
  clientIp,
  currentVisitor,
  INBOX_COOKIE,
  ownerOf,
  readCookie,
  requireOwner,
} from "../http/identity.js";
import { requireInboxSession } from "../domain/inbox-session.js";
import { parcelView, searchNames } from "../domain/parcel-views.js";
import { secondsUntilUtcMidnight } from "../../clock.js";
import { putFileHandler } from "./upload-file.js";
import { resumeHandlers } from "./upload-resume.js";
import { HOUR_S } from "../../contract/time-units.js";

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** An upload session lives one hour unless published. */
export const SESSION_SECONDS = HOUR_S;

/** `POST /uploads`: admits a manifest as an upload session of the caller. */
async function createUpload(
  ctx: ParcelContext,
  body: Parameters<typeof checkManifest>[1],
  req: Request,
  res: Response,
) {
  const policy = ctx.policy();
  if (!policy.uploads_enabled)
    throw new HttpError(403, "upload.disabled", "Uploads are switched off by the administrator");
  // The credential is judged before the manifest: without a session, nothing else is said.
  const toInbox = isRecord(req.body) && req.body.inbox === true;
  if (toInbox) requireInboxSession(ctx, readCookie(ctx, req, INBOX_COOKIE));
  const manifest = checkManifest(policy, body);
  const ip = clientIp(req);
  const now = ctx.now();
  const used = ctx.repos.traffic.used(ip, now);
  if (used + manifest.totalBytes > policy.daily_upload_bytes) {
    const wait = secondsUntilUtcMidnight(now);
    const refusal = new HttpError(
      429,
      "upload.daily_limit",
      "Today's upload allowance for this address is used up",
      {
        headers: { "Retry-After": String(wait) },
      },
    );
    noteLastingRefusal(ctx, res, ip, refusal);
    throw refusal;
  }
  // An inbox upload belongs to no visitor: it is not the sender's parcel to list or share.
  const visitor = manifest.inbox ? null : currentVisitor(ctx, req);
  const passwordHash = manifest.password ? await hashPickupPassword(manifest.password) : null;
  const id = randomId();
  const token = issueManageToken(ctx.keys.cookie, id);
  const files = manifest.files.map((f) => ({ id: randomId(), name: f.name, size: f.size }));
  const expiresAt = ctx.now() + SESSION_SECONDS;
  admitSession(ctx, {
    id,
    owner: visitor?.id ?? null,
    tokenHash: sha256Hex(token),
    passwordHash,
    days: manifest.days,
    downloads: manifest.downloads,
    renew: manifest.renew,
    now: ctx.now(),
    expiresAt,
    reservedBytes: manifest.totalBytes,
    clientIp: ip,
    searchNames: searchNames(files.map((f) => f.name)),
    files,
    inbox: manifest.inbox,
  });
  const actor: Actor = visitor ? { kind: "visitor", id: visitor.id } : { kind: "token" };
  ctx.audit(actor, "upload.create", `parcel:${id}`, clientIp(req), {
    files: files.length,
    bytes: manifest.totalBytes,
    ...(manifest.inbox ? { inbox: true } : {}),
  });
  return { id, manage_token: token, files, expires_at: expiresAt };
}

/** `POST /uploads/:id/publish`: the parcel goes to its recipients (or the operator's inbox). */
function publish(ctx: ParcelContext, id: string, req: Request): Delivered | Published {
  const { actor, token } = ownerOf(ctx, req, id);
  // Only the first publish hands out a code; later ones get the plain pickup page.
  const { parcel, code } = publishParcel(ctx, id, { from: clientIp(req), actor, token });
  const files = ctx.repos.parcels.files(id);
  if (parcel.inbox === 1) {
    // Delivered to the operator: the sender learns no code, and the operator is told.
    if (code !== null)
      ctx.emit({
        kind: "inbox.delivered",
        parcelId: id,
        files: files.map((f) => f.name),
        from: parcel.client_ip,
        at: ctx.clock.now(),
      });
    const delivered: Delivered = { ...parcelView(parcel, files), delivered: true };
    return delivered;
  }
  // Only the first publish finishes an upload (it is the one that hands out a code).
  if (code !== null)
    ctx.emit({
      kind: "upload.finished",
      parcelId: id,
      files: files.map((f) => f.name),
      at: ctx.clock.now(),
    });
  const published: Published = {
    ...parcelView(parcel, files),
    ...shareFields(ctx, ctx.entryFor(req).origin, code, parcel),
  };
  return published;
}

/** `POST /uploads`, `GET /uploads/:id`, `PUT /uploads/:id/files/:file`, publish. */
export function uploadsRouter(ctx: ParcelContext): Router {
  const r = ctx.routes.router();
  const { parcels } = ctx.repos;

  r.endpoint("POST /uploads", (input, req, res) => createUpload(ctx, input.body, req, res), {
    body: "as-is",
  });

  r.endpoint("GET /uploads/:id", ({ params }, req) => {
    requireOwner(ctx, req, params.id);
    const p = ownedParcel(ctx, params.id);
    return parcelView(p, parcels.files(p.id));
  });

  r.raw("PUT /uploads/:id/files/:file", putFileHandler(ctx));
  // The sender leaves one file out while the upload is still open; the rest goes on.
  r.endpoint("DELETE /uploads/:id/files/:file", ({ params }, req) => {
    const actor = requireOwner(ctx, req, params.id);
    const { parcel, files, removed } = removeUploadFile(ctx, params.id, params.file);
    ctx.audit(actor, "upload.remove", `file:${removed.id}`, clientIp(req), {
      name: removed.name,
      size: removed.size,
      parcel: parcel.id,
    });
    return parcelView(parcel, files);
  });
  const resume = resumeHandlers(ctx);
  r.raw("HEAD /uploads/:id/files/:file", resume.head);
  r.raw("PATCH /uploads/:id/files/:file", resume.patch);

  r.endpoint("POST /uploads/:id/publish", ({ params }, req) => publish(ctx, params.id, req));

  return r;
}
