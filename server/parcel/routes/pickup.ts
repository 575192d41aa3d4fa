import { type Router, type Request, type Response } from "express";
import { HttpError } from "../../http/errors.js";
import type { ParcelContext } from "../context.js";
import { archiveLang, archiveName, archiveOffset } from "../domain/archive-name.js";
import { damaged, openVerified, verifyAll } from "../domain/blob-integrity.js";
import { grantedParcel, PICKUP_TTL, pickupGrant, resolvePickup } from "../domain/pickup.js";
import {
  PICKUP_COOKIE,
  pickupActor,
  pickupCaller,
  readCookie,
  setCookie,
  clientIp,
} from "../http/identity.js";
import { noteLastingRefusal } from "../http/lasting-refusals.js";
import { sendTransfer } from "../http/transfer.js";
import type { FileRow } from "../repos/parcels.js";
import { recipientView } from "../domain/parcel-views.js";
import { createZip } from "../storage/zip.js";

/** The parcel the caller's pickup cookie opens. */
function granted(ctx: ParcelContext, req: Request) {
  return grantedParcel(ctx, readCookie(ctx, req, PICKUP_COOKIE));
}

/** The blob of a file that can be sent, or 410 when its bytes are gone. */
function readyBlob(f: FileRow): string {
  if (f.state !== "ready" || f.sha256 === null)
    throw new HttpError(410, "parcel.file_gone", "This file is no longer available");
  return f.sha256;
}

/** `GET|HEAD /pickup/files/:file/download`: one file of the granted parcel. */
async function sendFile(ctx: ParcelContext, req: Request, res: Response): Promise<void> {
  const { parcels, blobs } = ctx.repos;
  const { parcel, grant } = granted(ctx, req);
  const file = parcels.files(parcel.id).find((f) => f.id === req.params.file);
  if (!file) throw new HttpError(404, "parcel.file_not_found", "No such file in this parcel");
  const sha = readyBlob(file);
  if (blobs.blob(sha)?.quarantined_at != null) throw damaged(file.name);
  await sendTransfer(ctx, req, res, {
    parcel,
    grant,
    target: `file:${file.id}`,
    // Name and size stay in the record: the audit names the file by them after cleanup.
    detail: { parcel: parcel.id, name: file.name, size: file.size },
    blobs: [sha],
    length: file.size,
    filename: file.name,
    picked: { file: file.name, files: 1 },
    // Sent from the open file by the download sender (http/transfer.ts pumpFile).
    open: () => openVerified(ctx, sha, file.size, file.name),
  });
}

/** `GET|HEAD /pickup/archive`: every file of the granted parcel in one zip. */
async function sendArchive(ctx: ParcelContext, req: Request, res: Response): Promise<void> {
  const { parcels, blobs } = ctx.repos;
  const { parcel, grant } = granted(ctx, req);
  const files = parcels.files(parcel.id);
  if (files.length === 0)
    throw new HttpError(410, "parcel.no_files", "This parcel has no files left");
  const sources = files.map((f) => {
    const sha = readyBlob(f);
    const blob = blobs.blob(sha);
    if (!blob) throw new HttpError(410, "parcel.file_gone", "This file is no longer available");
    if (blob.quarantined_at !== null) throw damaged(f.name);
    return { file: f, sha, crc32: blob.crc32 };
  });
  const zip = createZip(
    sources.map((s) => ({
      name: s.file.name,
      size: s.file.size,
      crc32: s.crc32,
      open: () => ctx.storage.openRead(s.sha),
    })),
    { mtime: (parcel.sent_at ?? parcel.created_at) * 1000 },
  );
  await sendTransfer(ctx, req, res, {
    parcel,
    grant,
    target: `parcel:${parcel.id}`,
    detail: { archive: true, files: files.length },
    blobs: sources.map((s) => s.sha),
    length: zip.length,
    picked: { file: null, files: files.length },
    // Named after the parcel, in the page's language (`?lang=`) or the browser's, and on
    // the reader's calendar (`?utc_offset=`) when the page says it.
    filename: archiveName(
      parcel.sent_at ?? parcel.created_at,
      files.length,
      archiveLang(req.query.lang, req.get("accept-language")),
      archiveOffset(req.query.utc_offset),
    ),
    open: async () => {
      // Every blob is checked before the first byte, so a damaged one returns the download.
      await verifyAll(
        ctx,
        sources.map((s) => ({ sha256: s.sha, size: s.file.size, name: s.file.name })),
      );
      return zip.stream();
    },
  });
}

/**
 * The recipient side: `POST /pickup/resolve`, `GET /pickup`,
 * `GET|HEAD /pickup/files/:file/download` and `GET|HEAD /pickup/archive`.
 */
export function pickupRouter(ctx: ParcelContext): Router {
  const r = ctx.routes.router();
  const { parcels } = ctx.repos;

  r.endpoint(
    "POST /pickup/resolve",
    async ({ body: input }, req, res) => {
      const caller = pickupCaller(ctx, req);
      const p = await resolvePickup(ctx, caller, input).catch((err: unknown) => {
        noteLastingRefusal(ctx, res, caller.ip, err);
        throw err;
      });
      setCookie(ctx, req, res, PICKUP_COOKIE, pickupGrant(ctx, p), PICKUP_TTL);
      ctx.audit(pickupActor(ctx, req), "pickup.resolve", `parcel:${p.id}`, clientIp(req));
      return recipientView(p, parcels.files(p.id));
    },
    { body: "as-is" },
  );

  r.endpoint("GET /pickup", (_input, req) => {
    const { parcel } = granted(ctx, req);
    return recipientView(parcel, parcels.files(parcel.id));
  });

  // Express hands HEAD to the GET route; sendTransfer answers it with headers only.
  r.raw("GET /pickup/files/:file/download", (req, res) => sendFile(ctx, req, res));

  r.raw("GET /pickup/archive", (req, res) => sendArchive(ctx, req, res));

  return r;
}
