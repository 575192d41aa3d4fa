import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { crc32 } from "node:zlib";
import type { Request, RequestHandler, Response } from "express";
import { HttpError } from "../../http/errors.js";
import { requestIdOf } from "../../http/request-log.js";
import type { ParcelContext } from "../context.js";
import { clientIp, requireOwner } from "../http/identity.js";
import { claimUpload, countDailyTraffic } from "../http/upload-watch.js";
import { storeUpload } from "../domain/store-upload.js";
import type { FileRow } from "../repos/parcels.js";
import {
  DEFAULT_FLOOR,
  receiveBody,
  ReceiveError,
  type Received,
  type ResumePoint,
} from "../storage/receive.js";
import { notStored, refusal } from "./upload-file.js";
import { noSuchFile, uploadBusy, uploadClosed } from "../domain/upload-errors.js";

/** The tus protocol version spoken (core semantics: HEAD for the offset, PATCH to append). */
const TUS_VERSION = "1.0.0";
const OFFSET_TYPE = "application/offset+octet-stream";
/**
 * Checkpoints kept at most; beyond this those of ended sessions go (files of open sessions are
 * bounded by the file budget, 10,000 by default, each checkpoint a few hundred bytes).
 */
const MAX_POINTS = 20_000;

/**
 * Resumable uploads beside the full-retry PUT: `HEAD /uploads/:id/files/:file` says how many
 * bytes of a file are safely stored, `PATCH` appends from exactly that offset. The bytes
 * collect in one part per file (`tmp/<file>.resume.part`, so ending the session removes it
 * like any partial data); a cut connection keeps what arrived, synced. When the last byte is
 * in, the file is stored exactly like the end of a PUT.
 */
export function resumeHandlers(ctx: ParcelContext): {
  head: RequestHandler;
  patch: RequestHandler;
} {
  const { sessions, traffic } = ctx.repos;
  const floor = ctx.options.uploadFloor ?? DEFAULT_FLOOR;
  /**
   * Per part, a checkpoint: the hash state at an offset whose bytes are in the part. Set where
   * each PATCH starts, moved on at every sync while it runs and where it ends, and kept when a
   * request is cut, so the next PATCH re-reads at most what the cut one added. Dropped when the
   * file is stored or fails.
   */
  const points = new Map<string, { parcelId: string; point: ResumePoint }>();
  const keep = (file: FileRow, point: ResumePoint): void => {
    if (!points.has(file.id) && points.size >= MAX_POINTS) prunePoints();
    points.set(file.id, { parcelId: file.parcel_id, point });
  };
  /** Makes room: parts of ended sessions first, then (never in practice) the oldest. */
  const prunePoints = (): void => {
    for (const [id, p] of points) if (!sessionOpen(p.parcelId)) points.delete(id);
    while (points.size >= MAX_POINTS) points.delete(points.keys().next().value as string);
  };
  /** The offset each running PATCH started from: what a HEAD meanwhile can vouch for. */
  const running = new Map<string, number>();

  const partPath = (fileId: string) => join(ctx.storage.tmpDir, `${fileId}.resume.part`);
  const sessionOpen = (parcelId: string): boolean => sessions.isOpen(parcelId, ctx.now());

  /**
   * A tus client names the protocol version it speaks; one we do not speak is refused before
   * anything else (412 with the version we do, as tus asks). Without the header the request
   * is taken as this version (the send page, curl).
   */
  const speaksOurTus = (req: Request, res: Response): void => {
    const asked = req.get("tus-resumable");
    if (asked === undefined || asked.trim() === TUS_VERSION) return;
    res.setHeader("Tus-Version", TUS_VERSION);
    res.setHeader("Tus-Resumable", TUS_VERSION);
    res.setHeader("Connection", "close");
    const version = asked.slice(0, 32);
    throw new HttpError(
      412,
      "upload.tus_version",
      `This server speaks tus ${TUS_VERSION}, not ${version}`,
      {
        params: { version },
      },
    );
  };

  /** The file the path names, in an open session of this owner. */
  const target = (req: Request): FileRow => {
    const parcelId = req.params.id as string;
    requireOwner(ctx, req, parcelId);
    if (!sessionOpen(parcelId)) throw uploadClosed();
    const file = sessions.fileOf(req.params.file as string, parcelId);
    if (!file) throw noSuchFile();
    return file;
  };

  /** Bytes of the file safely stored. */
  const storedOffset = async (file: FileRow): Promise<number> => {
    if (file.state === "ready") return file.size;
    const start = running.get(file.id);
    if (start !== undefined) return start;
    try {
      return (await stat(partPath(file.id))).size;
    } catch {
      return 0;
    }
  };

  const tusHeaders = (res: Response, offset: number) => {
    res.setHeader("Tus-Resumable", TUS_VERSION);
    res.setHeader("Upload-Offset", String(offset));
    res.setHeader("Cache-Control", "no-store");
  };

  const head: RequestHandler = async (req, res) => {
    speaksOurTus(req, res);
    const file = target(req);
    tusHeaders(res, await storedOffset(file));
    res.setHeader("Upload-Length", String(file.size));
    res.status(200).end();
  };

  /**
   * The hash state of a part `offset` bytes long (its size now): the checkpoint's, with the
   * bytes after it read back, which are at most those the last (cut) PATCH added. The result
   * is kept as the new checkpoint before any byte of this PATCH arrives.
   */
  const pointFor = async (file: FileRow, offset: number): Promise<ResumePoint> => {
    const kept = points.get(file.id)?.point;
    const from = kept && kept.offset <= offset ? kept : null;
    const hash = from ? from.hash.copy() : createHash("sha256");
    let crc = from?.crc ?? 0;
    const start = from?.offset ?? 0;
    if (offset > start) {
      const reader = createReadStream(partPath(file.id), {
        start,
        end: offset - 1,
        highWaterMark: 1 << 20,
      });
      await pipeline(
        reader,
        new Transform({
          transform(chunk: Buffer, _enc, done) {
            hash.update(chunk);
            crc = crc32(chunk, crc);
            ctx.activity.resumeRereadBytes += chunk.length;
            done();
          },
        }),
      );
    }
    keep(file, { offset, hash: hash.copy(), crc });
    return { offset, hash, crc };
  };

  const patch: RequestHandler = async (req, res) => {
    speaksOurTus(req, res);
    const file = target(req);
    const parcelId = file.parcel_id;
    res.setHeader("Tus-Resumable", TUS_VERSION);
    // None of these refusals reads the body: the connection is closed after the answer.
    const refuse = (err: HttpError): never => {
      res.setHeader("Connection", "close");
      throw err;
    };
    const type = (req.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    if (type !== OFFSET_TYPE)
      refuse(new HttpError(415, "upload.content_type", `The body must be sent as ${OFFSET_TYPE}`));
    const raw = req.get("upload-offset") ?? "";
    const claimed = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(claimed))
      refuse(new HttpError(400, "upload.offset_invalid", "Upload-Offset must be a byte count"));
    // One writer per file: claimed here, before the first await, or refused.
    const watch = claimUpload(ctx, parcelId, file.id, floor.windowMs);
    if (!watch) {
      res.setHeader("Connection", "close");
      throw uploadBusy();
    }
    const path = partPath(file.id);
    let ended = false;
    try {
      const offset = await storedOffset(file);
      if (claimed !== offset) {
        res.setHeader("Upload-Offset", String(offset));
        refuse(
          new HttpError(409, "upload.offset_mismatch", "Upload-Offset is not the stored offset", {
            params: { offset },
          }),
        );
      }
      const length = req.get("content-length");
      if (length !== undefined && offset + Number(length) > file.size)
        refuse(new HttpError(413, "upload.too_long", "The body is longer than the declared size"));
      if (file.state === "ready") {
        res.setHeader("Upload-Offset", String(file.size));
        res.status(204).end();
        return;
      }
      running.set(file.id, offset);
      const point = await pointFor(file, offset);
      let got: Received;
      try {
        got = await receiveBody(req, {
          tmpPath: path,
          declared: file.size,
          floor,
          signal: watch.signal,
          resume: point,
          onCheckpoint: (p) => keep(file, p),
          onBytes: countDailyTraffic(ctx, clientIp(req)),
        });
      } catch (err) {
        watch.stop();
        traffic.flush();
        if (!(err instanceof ReceiveError)) throw err;
        // The bytes that arrived stay in the part (synced); only a session's end drops them.
        ended = err.kind === "stopped";
        res.setHeader("Connection", "close");
        throw refusal(ctx, file, err, requestIdOf(res) || null);
      }
      watch.stop();
      traffic.flush();
      if (!sessionOpen(parcelId)) {
        ended = true;
        throw uploadClosed();
      }
      if (got.bytes < file.size) {
        // A clean end: the hash holds exactly the part's bytes, so the next PATCH goes on.
        keep(file, { offset: got.bytes, hash: point.hash, crc: got.crc32 });
        res.setHeader("Upload-Offset", String(got.bytes));
        res.status(204).end();
        return;
      }
      let stored: boolean;
      try {
        stored = await storeUpload(ctx, file, path, got);
      } catch (err) {
        // A part that is not what its writers sent is of no use: the file starts again.
        ended = true;
        throw notStored(ctx, file, err, requestIdOf(res) || null);
      }
      if (!stored) {
        ended = true;
        throw uploadClosed();
      }
      points.delete(file.id);
      res.setHeader("Upload-Offset", String(file.size));
      res.status(204).end();
    } finally {
      watch.end();
      running.delete(file.id);
      if (ended) {
        points.delete(file.id);
        sessions.failFile(file.id);
        await ctx.storage.discard(path);
      }
    }
  };

  return { head, patch };
}
