import type { Request, RequestHandler, Response } from "express";
import type { DomainError } from "../../domain-errors.js";
import { HttpError } from "../../http/errors.js";
import { requestIdOf } from "../../http/request-log.js";
import type { UploadedFile } from "../../contract/parcel-views.js";
import type { Actor, ParcelContext } from "../context.js";
import { clientIp, requireOwner } from "../http/identity.js";
import { claimUpload, countDailyTraffic } from "../http/upload-watch.js";
import { storeUpload, uploadEnded, type ReceivedBytes } from "../domain/store-upload.js";
import {
  fileRemoved,
  noSuchFile,
  receiveFailure,
  uploadBusy,
  uploadClosed,
} from "../domain/upload-errors.js";
import type { FileRow } from "../repos/parcels.js";
import { DEFAULT_FLOOR, receiveBody, ReceiveError, type Received } from "../storage/receive.js";

function fileView(f: FileRow): UploadedFile {
  return { id: f.id, name: f.name, size: f.size, state: f.state, sha256: f.sha256 };
}

/** Marks the file failed and records why, with the bytes that had arrived. */
function fail(
  ctx: ParcelContext,
  req: Request,
  actor: Actor,
  file: FileRow,
  reason: string,
  bytes: number,
): void {
  ctx.repos.sessions.failFile(file.id);
  ctx.audit(actor, "upload.fail", `file:${file.id}`, clientIp(req), {
    name: file.name,
    parcel: file.parcel_id,
    reason,
    bytes,
  });
}

/** A declared body length other than the file's size is refused before a byte is read. */
function refuseLength(
  ctx: ParcelContext,
  req: Request,
  res: Response,
  actor: Actor,
  file: FileRow,
): void {
  const length = req.get("content-length");
  if (length === undefined) return;
  const n = Number(length);
  if (n === file.size) return;
  // The body is not read on these answers: close the connection instead of draining it.
  res.setHeader("Connection", "close");
  if (n > file.size) {
    fail(ctx, req, actor, file, "too-long", 0);
    throw new HttpError(413, "upload.too_long", "The body is longer than the declared size");
  }
  fail(ctx, req, actor, file, "too-short", 0);
  throw new HttpError(
    400,
    "upload.length_mismatch",
    "The body length does not match the declared size",
  );
}

/**
 * `PUT /uploads/:id/files/:file`: streams the raw body (no body parser) to a temporary file,
 * counts every incoming byte toward the client's daily traffic, then commits the blob (dedup)
 * and marks the file ready in one transaction. One writer per file: a PUT or PATCH of a file
 * another one is writing is refused (409 `upload.busy`) before a byte is read. Any failure removes the partial data and leaves
 * the file `failed`, retryable in full.
 */
export function putFileHandler(ctx: ParcelContext): RequestHandler {
  const { sessions, traffic } = ctx.repos;
  const floor = ctx.options.uploadFloor ?? DEFAULT_FLOOR;

  const sessionOpen = (parcelId: string): boolean => sessions.isOpen(parcelId, ctx.now());

  return async (req: Request, res: Response) => {
    const parcelId = req.params.id as string;
    const actor = requireOwner(ctx, req, parcelId);
    // Past its deadline counts as ended even before a sweep has revoked it.
    if (!sessionOpen(parcelId)) throw uploadClosed();
    const file = sessions.fileOf(req.params.file as string, parcelId);
    if (!file) throw noSuchFile();
    if (file.state === "ready") {
      res.json(fileView(file));
      return;
    }
    // One writer per file: claimed here, before any await, or refused.
    const watch = claimUpload(ctx, parcelId, file.id, floor.windowMs);
    if (!watch) {
      res.setHeader("Connection", "close");
      throw uploadBusy();
    }
    try {
      refuseLength(ctx, req, res, actor, file);
    } catch (err) {
      // Answered at once, in this turn: a client that half-closes next must still read it.
      watch.end();
      throw err;
    }
    const tmpPath = ctx.storage.tempPath(file.id);
    try {
      let got: Received;
      try {
        got = await receiveBody(req, {
          tmpPath,
          declared: file.size,
          floor,
          signal: watch.signal,
          onBytes: countDailyTraffic(ctx, clientIp(req)),
        });
      } catch (err) {
        watch.stop();
        traffic.flush();
        if (!(err instanceof ReceiveError)) throw err;
        // The rest of the body is not read: the connection is closed after the answer.
        res.setHeader("Connection", "close");
        if (err.kind === "stopped") {
          // Stopped by its session's end, or by the file being left out of the upload.
          const ended = uploadEnded(ctx, file);
          fail(ctx, req, actor, file, ended.reason, err.bytes);
          throw ended.error;
        }
        fail(ctx, req, actor, file, err.kind, err.bytes);
        throw refusal(ctx, file, err, requestIdOf(res) || null);
      }
      watch.stop();
      traffic.flush();
      res.json(await storeReceived(ctx, req, res, actor, file, tmpPath, got));
    } finally {
      watch.end();
      await ctx.storage.discard(tmpPath);
    }
  };
}

/**
 * A PUT's whole body is in: its bytes become the file's content, or the upload is refused
 * because its session ended or its file was left out meanwhile (nothing of it is kept).
 */
async function storeReceived(
  ctx: ParcelContext,
  req: Request,
  res: Response,
  actor: Actor,
  file: FileRow,
  tmpPath: string,
  got: ReceivedBytes,
): Promise<UploadedFile> {
  if (!ctx.repos.sessions.isOpen(file.parcel_id, ctx.now())) {
    fail(ctx, req, actor, file, "session-ended", got.bytes);
    throw uploadClosed();
  }
  let outcome;
  try {
    outcome = await storeUpload(ctx, file, tmpPath, got);
  } catch (err) {
    fail(ctx, req, actor, file, "io", got.bytes);
    throw notStored(ctx, file, err, requestIdOf(res) || null);
  }
  if (outcome !== "stored") {
    const ended = uploadEnded(ctx, file, outcome);
    fail(ctx, req, actor, file, ended.reason, got.bytes);
    throw ended.error;
  }
  // A part an earlier resumable upload of this file left is of no use any more.
  ctx.storage.clearTemp(file.id);
  const now = ctx.repos.sessions.fileOf(file.id, file.parcel_id);
  if (!now) throw fileRemoved();
  return fileView(now);
}

/**
 * Received bytes that could not be stored (the disk, or bytes on disk that are not the ones
 * received): logged for the operator, then said as the receive failure it is.
 */
export function notStored(
  ctx: ParcelContext,
  file: { id: string; name: string },
  err: unknown,
  requestId: string | null,
): DomainError {
  return refusal(
    ctx,
    file,
    new ReceiveError("io", "The file could not be stored", 0, { cause: err }),
    requestId,
  );
}

/**
 * A body that could not be received (PUT, and PATCH of a resumable upload), as the domain says
 * it; one that could not be stored is told to the operator first (the admin's problem list),
 * with the request it ended.
 */
export function refusal(
  ctx: ParcelContext,
  file: { id: string; name: string },
  err: ReceiveError,
  requestId: string | null,
): DomainError {
  if (err.kind === "io")
    ctx.log.warn("upload.not_stored", `The upload of file ${file.id} could not be stored`, {
      requestId,
      err: err.cause,
      params: { name: file.name },
    });
  return receiveFailure(err);
}
