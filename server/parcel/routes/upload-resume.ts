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
import { claimUpload, countDailyTraffic, type UploadWatch } from "../http/upload-watch.js";
import { storeUpload, uploadEnded } from "../domain/store-upload.js";
import type { FileRow } from "../repos/parcels.js";
import {
  DEFAULT_FLOOR,
  receiveBody,
  ReceiveError,
  type RateFloor,
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
 * Per part, a checkpoint: the hash state at an offset whose bytes are in the part. Set where
 * each PATCH starts, moved on at every sync while it runs and where it ends, and kept when a
 * request is cut, so the next PATCH re-reads at most what the cut one added. Dropped when the
 * file is stored or fails.
 */
function checkpoints(sessionOpen: (parcelId: string) => boolean) {
  const points = new Map<string, { parcelId: string; point: ResumePoint }>();
  /** Makes room: parts of ended sessions first, then (never in practice) the oldest. */
  const prune = (): void => {
    for (const [id, p] of points) if (!sessionOpen(p.parcelId)) points.delete(id);
    while (points.size >= MAX_POINTS) points.delete(points.keys().next().value as string);
  };
  return {
    get: (fileId: string): ResumePoint | undefined => points.get(fileId)?.point,
    keep: (file: FileRow, point: ResumePoint): void => {
      if (!points.has(file.id) && points.size >= MAX_POINTS) prune();
      points.set(file.id, { parcelId: file.parcel_id, point });
    },
    drop: (fileId: string): void => {
      points.delete(fileId);
    },
  };
}

/** What the two handlers share. */
interface Resume {
  ctx: ParcelContext;
  floor: RateFloor;
  points: ReturnType<typeof checkpoints>;
  /** The offset each running PATCH started from: what a HEAD meanwhile can vouch for. */
  running: Map<string, number>;
  partPath: (fileId: string) => string;
  sessionOpen: (parcelId: string) => boolean;
}

/** One PATCH holding its file's claim; `ended` says the file failed and its part goes. */
interface Append {
  req: Request;
  res: Response;
  file: FileRow;
  watch: UploadWatch;
  path: string;
  ended: boolean;
}

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
  const sessionOpen = (parcelId: string): boolean => ctx.repos.sessions.isOpen(parcelId, ctx.now());
  const s: Resume = {
    ctx,
    floor: ctx.options.uploadFloor ?? DEFAULT_FLOOR,
    points: checkpoints(sessionOpen),
    running: new Map(),
    partPath: (fileId) => join(ctx.storage.tmpDir, `${fileId}.resume.part`),
    sessionOpen,
  };
  return {
    head: async (req, res) => {
      speaksOurTus(req, res);
      const file = target(s, req);
      tusHeaders(res, await storedOffset(s, file));
      res.setHeader("Upload-Length", String(file.size));
      res.status(200).end();
    },
    patch: (req, res) => patch(s, req, res),
  };
}

/**
 * A tus client names the protocol version it speaks; one we do not speak is refused before
 * anything else (412 with the version we do, as tus asks). Without the header the request
 * is taken as this version (the send page, curl).
 */
function speaksOurTus(req: Request, res: Response): void {
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
}

/** The file the path names, in an open session of this owner. */
function target(s: Resume, req: Request): FileRow {
  const parcelId = req.params.id as string;
  requireOwner(s.ctx, req, parcelId);
  if (!s.sessionOpen(parcelId)) throw uploadClosed();
  const file = s.ctx.repos.sessions.fileOf(req.params.file as string, parcelId);
  if (!file) throw noSuchFile();
  return file;
}

/** Whether the file is still one of its upload's (not left out by a DELETE meanwhile). */
function stillDeclared(s: Resume, file: FileRow): boolean {
  return s.ctx.repos.sessions.fileOf(file.id, file.parcel_id) !== undefined;
}

/** Bytes of the file safely stored. */
async function storedOffset(s: Resume, file: FileRow): Promise<number> {
  if (file.state === "ready") return file.size;
  const start = s.running.get(file.id);
  if (start !== undefined) return start;
  try {
    return (await stat(s.partPath(file.id))).size;
  } catch {
    return 0;
  }
}

function tusHeaders(res: Response, offset: number): void {
  res.setHeader("Tus-Resumable", TUS_VERSION);
  res.setHeader("Upload-Offset", String(offset));
  res.setHeader("Cache-Control", "no-store");
}

/** A refusal that does not read the body: the connection is closed after the answer. */
function refuse(res: Response, err: Error): never {
  res.setHeader("Connection", "close");
  throw err;
}

/** The part now holds `offset` bytes. */
function appended(res: Response, offset: number): void {
  res.setHeader("Upload-Offset", String(offset));
  res.status(204).end();
}

async function patch(s: Resume, req: Request, res: Response): Promise<void> {
  speaksOurTus(req, res);
  const file = target(s, req);
  res.setHeader("Tus-Resumable", TUS_VERSION);
  const claimed = claimedOffset(req, res);
  // One writer per file: claimed here, before the first await, or refused.
  const watch = claimUpload(s.ctx, file.parcel_id, file.id, s.floor.windowMs);
  if (!watch) refuse(res, uploadBusy());
  const a: Append = { req, res, file, watch, path: s.partPath(file.id), ended: false };
  try {
    await append(s, a, claimed);
  } finally {
    watch.end();
    s.running.delete(file.id);
    if (a.ended) {
      s.points.drop(file.id);
      s.ctx.repos.sessions.failFile(file.id);
      await s.ctx.storage.discard(a.path);
    }
  }
}

/** The offset the PATCH says it appends at, from a body of the tus type; checked before the claim. */
function claimedOffset(req: Request, res: Response): number {
  const type = (req.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== OFFSET_TYPE)
    refuse(
      res,
      new HttpError(415, "upload.content_type", `The body must be sent as ${OFFSET_TYPE}`),
    );
  const raw = req.get("upload-offset") ?? "";
  const claimed = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(claimed))
    refuse(res, new HttpError(400, "upload.offset_invalid", "Upload-Offset must be a byte count"));
  return claimed;
}

/** Appends the body at the stored offset; stores the file when its last byte is in. */
async function append(s: Resume, a: Append, claimed: number): Promise<void> {
  const offset = await checkedOffset(s, a, claimed);
  if (a.file.state === "ready") {
    appended(a.res, a.file.size);
    return;
  }
  s.running.set(a.file.id, offset);
  const point = await pointFor(s, a.file, offset);
  const got = await receive(s, a, point);
  if (!s.sessionOpen(a.file.parcel_id) || !stillDeclared(s, a.file)) {
    a.ended = true;
    throw uploadEnded(s.ctx, a.file).error;
  }
  if (got.bytes < a.file.size) {
    // A clean end: the hash holds exactly the part's bytes, so the next PATCH goes on.
    s.points.keep(a.file, { offset: got.bytes, hash: point.hash, crc: got.crc32 });
    appended(a.res, got.bytes);
    return;
  }
  await store(s, a, got);
}

/** The stored offset, when it is the claimed one and the body fits the declared size. */
async function checkedOffset(s: Resume, a: Append, claimed: number): Promise<number> {
  const offset = await storedOffset(s, a.file);
  if (claimed !== offset) {
    a.res.setHeader("Upload-Offset", String(offset));
    refuse(
      a.res,
      new HttpError(409, "upload.offset_mismatch", "Upload-Offset is not the stored offset", {
        params: { offset },
      }),
    );
  }
  const length = a.req.get("content-length");
  if (length !== undefined && offset + Number(length) > a.file.size)
    refuse(
      a.res,
      new HttpError(413, "upload.too_long", "The body is longer than the declared size"),
    );
  return offset;
}

/**
 * The hash state of a part `offset` bytes long (its size now): the checkpoint's, with the
 * bytes after it read back, which are at most those the last (cut) PATCH added. The result
 * is kept as the new checkpoint before any byte of this PATCH arrives.
 */
async function pointFor(s: Resume, file: FileRow, offset: number): Promise<ResumePoint> {
  const kept = s.points.get(file.id);
  const from = kept && kept.offset <= offset ? kept : null;
  const hash = from ? from.hash.copy() : createHash("sha256");
  let crc = from?.crc ?? 0;
  const start = from?.offset ?? 0;
  if (offset > start) {
    const reader = createReadStream(s.partPath(file.id), {
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
          s.ctx.activity.resumeRereadBytes += chunk.length;
          done();
        },
      }),
    );
  }
  s.points.keep(file, { offset, hash: hash.copy(), crc });
  return { offset, hash, crc };
}

/** The body, appended to the part from `point`; a failed transfer is refused as a PUT's is. */
async function receive(s: Resume, a: Append, point: ResumePoint): Promise<Received> {
  const { ctx, floor } = s;
  const bodyRead = (): void => {
    a.watch.stop();
    ctx.repos.traffic.flush();
  };
  let got: Received;
  try {
    got = await receiveBody(a.req, {
      tmpPath: a.path,
      declared: a.file.size,
      floor,
      signal: a.watch.signal,
      resume: point,
      onCheckpoint: (p) => s.points.keep(a.file, p),
      onBytes: countDailyTraffic(ctx, clientIp(a.req)),
    });
  } catch (err) {
    bodyRead();
    if (!(err instanceof ReceiveError)) throw err;
    // The bytes that arrived stay in the part (synced); only a session's end (or the file
    // being left out of the upload) drops them.
    a.ended = err.kind === "stopped";
    a.res.setHeader("Connection", "close");
    if (a.ended) throw uploadEnded(ctx, a.file).error;
    throw refusal(ctx, a.file, err, requestIdOf(a.res) || null);
  }
  bodyRead();
  return got;
}

/** The whole file is in: stored like the end of a PUT, or the file starts again. */
async function store(s: Resume, a: Append, got: Received): Promise<void> {
  let outcome;
  try {
    outcome = await storeUpload(s.ctx, a.file, a.path, got);
  } catch (err) {
    // A part that is not what its writers sent is of no use: the file starts again.
    a.ended = true;
    throw notStored(s.ctx, a.file, err, requestIdOf(a.res) || null);
  }
  if (outcome !== "stored") {
    // Its session ended, or the file was left out of the upload, while it was stored.
    a.ended = true;
    throw uploadEnded(s.ctx, a.file, outcome).error;
  }
  s.points.drop(a.file.id);
  appended(a.res, a.file.size);
}
