import type { Request, RequestHandler, Response } from "express";
import { HttpError, isDiskFull } from "../../http/errors.js";
import { requestIdOf } from "../../http/request-log.js";
import type { UploadedFile } from "../../contract/parcel-views.js";
import type { Actor, ParcelContext } from "../context.js";
import { clientIp, requireOwner } from "../http/identity.js";
import { countDailyTraffic, watchUpload } from "../http/upload-watch.js";
import type { FileRow } from "../repos/parcels.js";
import { DEFAULT_FLOOR, receiveBody, ReceiveError, type Received } from "../storage/receive.js";

function fileView(f: FileRow): UploadedFile {
  return { id: f.id, name: f.name, size: f.size, state: f.state, sha256: f.sha256 };
}

/**
 * `PUT /uploads/:id/files/:file`: streams the raw body (no body parser) to a temporary file,
 * counts every incoming byte toward the client's daily traffic, then commits the blob (dedup)
 * and marks the file ready in one transaction. Any failure removes the partial data and leaves
 * the file `failed`, retryable in full.
 */
export function putFileHandler(ctx: ParcelContext): RequestHandler {
  const { sessions, blobs, traffic } = ctx.repos;

  const hold = (sha256: string, delta: number) => {
    const n = (ctx.activity.reading.get(sha256) ?? 0) + delta;
    if (n > 0) ctx.activity.reading.set(sha256, n);
    else ctx.activity.reading.delete(sha256);
  };

  const floor = ctx.options.uploadFloor ?? DEFAULT_FLOOR;

  const sessionOpen = (parcelId: string): boolean => sessions.isOpen(parcelId, ctx.now());

  /** Marks the file ready; false when the session ended meanwhile (the bytes are dropped). */
  const finish = (file: FileRow, got: Received): boolean =>
    sessions.storeFile(file, got, ctx.now());

  const fail = (req: Request, actor: Actor, file: FileRow, reason: string, bytes: number) => {
    sessions.failFile(file.id);
    ctx.audit(req, actor, "upload.fail", `file:${file.id}`, {
      name: file.name,
      parcel: file.parcel_id,
      reason,
      bytes,
    });
  };

  return async (req: Request, res: Response) => {
    const parcelId = req.params.id as string;
    const actor = requireOwner(ctx, req, parcelId);
    // Past its deadline counts as ended even before a sweep has revoked it.
    if (!sessionOpen(parcelId))
      throw new HttpError(409, "upload.closed", "This parcel is no longer accepting uploads");
    const file = sessions.fileOf(req.params.file as string, parcelId);
    if (!file) throw new HttpError(404, "parcel.file_not_found", "No such file in this parcel");
    if (file.state === "ready") {
      res.json(fileView(file));
      return;
    }
    if (ctx.activity.uploading.has(file.id))
      throw new HttpError(409, "upload.busy", "This file is already being uploaded");

    // The body is not read on these answers: close the connection instead of draining it.
    const length = req.get("content-length");
    if (length !== undefined) {
      const n = Number(length);
      if (n > file.size) {
        fail(req, actor, file, "too-long", 0);
        res.setHeader("Connection", "close");
        throw new HttpError(413, "upload.too_long", "The body is longer than the declared size");
      }
      if (n < file.size) {
        fail(req, actor, file, "too-short", 0);
        res.setHeader("Connection", "close");
        throw new HttpError(
          400,
          "upload.length_mismatch",
          "The body length does not match the declared size",
        );
      }
    }

    const tmpPath = ctx.storage.tempPath(file.id);
    const watch = watchUpload(ctx, parcelId, file.id, floor.windowMs);
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
        const reason = err.kind === "stopped" ? "session-ended" : err.kind;
        fail(req, actor, file, reason, err.bytes);
        // The rest of the body is not read: the connection is closed after the answer.
        res.setHeader("Connection", "close");
        throw answerFor(ctx, file, err, requestIdOf(res) || null);
      }
      watch.stop();
      traffic.flush();
      if (!sessionOpen(parcelId)) {
        await ctx.storage.discard(tmpPath);
        fail(req, actor, file, "session-ended", got.bytes);
        throw new HttpError(409, "upload.closed", "This parcel is no longer accepting uploads");
      }
      // Held like a blob being read, so background reclamation cannot delete an existing
      // copy between the dedup check and the moment this file references it.
      hold(got.sha256, 1);
      try {
        const added = await ctx.storage.commit(tmpPath, got.sha256);
        if (!finish(file, got)) {
          // Nothing references bytes that were only just added: drop them again.
          if (added && !blobs.exists(got.sha256)) ctx.storage.remove(got.sha256);
          fail(req, actor, file, "session-ended", got.bytes);
          throw new HttpError(409, "upload.closed", "This parcel is no longer accepting uploads");
        }
      } finally {
        hold(got.sha256, -1);
      }
      // A part an earlier resumable upload of this file left is of no use any more.
      ctx.storage.clearTemp(file.id);
      const now = sessions.fileOf(file.id, parcelId) as FileRow;
      res.json(fileView(now));
    } finally {
      watch.end();
      await ctx.storage.discard(tmpPath);
    }
  };
}

/** The answer to a body that could not be received (PUT, and PATCH of a resumable upload). */
export function answerFor(
  ctx: ParcelContext,
  file: { id: string; name: string },
  err: ReceiveError,
  requestId: string | null,
): HttpError {
  switch (err.kind) {
    case "cut-off":
      return err.cause instanceof HttpError
        ? err.cause
        : new HttpError(400, "upload.cut_off", err.message);
    case "too-long":
      return new HttpError(413, "upload.too_long", err.message);
    case "slow":
      return new HttpError(
        408,
        "upload.slow",
        "The upload was too slow and has been stopped; send the whole file again",
      );
    case "stopped":
      return new HttpError(409, "upload.closed", "This parcel is no longer accepting uploads");
    case "io":
      // The operator hears of it (the admin's problem list), with the request it ended.
      ctx.log.warn("upload.not_stored", `The upload of file ${file.id} could not be stored`, {
        requestId,
        err: err.cause,
        params: { name: file.name },
      });
      if (isDiskFull(err))
        return new HttpError(
          507,
          "upload.disk_full",
          "There is not enough free disk space to store this file",
          {
            cause: err,
          },
        );
      return new HttpError(500, "upload.store_failed", "The file could not be stored", {
        cause: err,
      });
    default:
      return new HttpError(400, "upload.aborted", err.message);
  }
}
