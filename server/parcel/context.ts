import type { Request } from "express";
import type { Logger } from "pino";
import type { Clock } from "../clock.js";
import type { ServiceLog } from "../log.js";
import type { ParcelProblemCode } from "../problem-codes.js";
import type { RouteTable } from "../http/route-table.js";
import type { Entries, Entry } from "./http/entries.js";
import type { ParcelEvent, ParcelEventListener } from "./events.js";
import type { ParcelAccess } from "./http/access-kinds.js";
import type { PARCEL_API } from "../contract/parcel.js";
import type { VerifyStatus } from "../contract/parcel-verify.js";
import type { Policy, Runtime } from "./domain/policy.js";
import type { BlobStore } from "./storage/blob-store.js";
import type { ParcelRepos } from "./repos/index.js";

export interface ParcelServiceOptions {
  /** The Gatehouse data dir; this service keeps everything under `<dataDir>/parcel`. */
  dataDir: string;
  /** Entry origins (`access_urls`), e.g. `http://127.0.0.1:8000`. */
  entries: string[];
  clock?: Clock;
  /** The process's JSON logger (the host passes one child per service). */
  logger?: Logger;
  /** Without `logger`: a sink for the JSON lines (tests pass `() => undefined`). */
  log?: (line: string) => void;
  /** Administrator to create (or whose password to set) at start. */
  adminUser?: string;
  adminPassword?: string;
  /**
   * Give the administrator a new generated password (returned as `generatedAdminPassword`,
   * shown once) and end its sessions; ignored when `adminPassword` is given.
   */
  resetAdminPassword?: boolean;
  /** Built web UI to serve at `/` (renderer/dist); absent in API-only tests. */
  staticDir?: string;
  /** Free bytes of the data dir's file system; injectable so headroom can be tested. */
  diskFree?: (dir: string) => number;
  /** Periodic cleanup interval (10 minutes); 0 disables the timer (tests call it directly). */
  cleanupIntervalMs?: number;
  /** Delay before deleted bytes are reclaimed in the background (well inside a minute). */
  reclaimDelayMs?: number;
  /**
   * Least progress of a running PUT (default 1 KiB per 60 s); a slower one is ended.
   * Injectable so tests need not wait a minute.
   */
  uploadFloor?: { bytes: number; windowMs: number };
  /** The computer's name a sender sees when opening the inbox (default: the host name). */
  computerName?: string;
  /** Told when a download completes and when an upload is published (desktop notifications). */
  onEvent?: ParcelEventListener;
  /** How hard the check of the stored blobs reads (tests make it rest less). */
  verifyPace?: VerifyPace;
  /**
   * How often the service looks whether the weekly check of the stored blobs is due (an hour);
   * 0 disables the look (tests start checks themselves).
   */
  verifyCheckMs?: number;
}

/** In-memory activity counters (concurrency stats, blobs being read). */
export interface Activity {
  uploadsActive: number;
  downloadsActive: number;
  /** sha256 -> number of running downloads reading it; cleanup never deletes these. */
  reading: Map<string, number>;
  /** file ids with a PUT or PATCH in flight (one writer per file: another is refused). */
  uploading: Set<string>;
  /** file id -> stops its running PUT (used when the session ends under it). */
  uploadStops: Map<string, () => void>;
  /**
   * Bytes of resumable parts read back to rebuild a hash state, since the start: a PATCH pays
   * only for the bytes a cut request before it added (the hash is kept at synced offsets).
   */
  resumeRereadBytes: number;
}

export type Actor =
  | { kind: "admin"; username: string }
  | { kind: "visitor"; id: string }
  | { kind: "token" }
  | { kind: "anonymous" };

/**
 * Everything a route module needs. The database is reached only through `repos`; routes
 * handle HTTP and call the domain, which uses the repositories.
 */
export interface ParcelContext {
  repos: ParcelRepos;
  clock: Clock;
  /** Structured log (`ctx.log.warn(code, "...", { requestId, err })`) and the plain `ctx.log("...")`. */
  log: ServiceLog<ParcelProblemCode>;
  /** `<dataDir>/parcel` */
  dir: string;
  options: ParcelServiceOptions;
  entries: Entries;
  storage: BlobStore;
  /**
   * Keys kept in the database: pickup codes (HMAC), pickup and inbox cookies (HMAC), and the
   * inbox's sealed codes (the inbox's own and its deliveries', shown to the administrator).
   */
  keys: { code: Buffer; cookie: Buffer; inbox: Buffer };
  activity: Activity;
  /** Unix seconds from the injected clock. */
  now(): number;
  policy(): Policy;
  setPolicy(next: Policy): void;
  runtime(): Runtime;
  setRuntime(next: Runtime): void;
  /**
   * Appends an audit record (`source` = `<actor>@<client ip>`): `from` is the request, the
   * client's address, or null for the service itself (`local`).
   */
  audit(
    from: Request | string | null,
    actor: Actor,
    action: string,
    target: string,
    detail?: Record<string, unknown>,
  ): void;
  /** Moves parcels whose time ran out: published -> expired, uploading -> revoked (releasing reservations). */
  sweep(): void;
  /** Free bytes on the data dir's file system. */
  diskFree(): number;
  /** Schedules background reclamation of blobs no live parcel references. */
  scheduleReclaim(): void;
  /** The entry the request came through (validated by the host middleware). */
  entryFor(req: Request): Entry;
  /** Every route of the service; routers are made from it (exact paths, guarded by access). */
  routes: RouteTable<ParcelAccess, typeof PARCEL_API>;
  /** The check of every stored blob against its name (`/admin/verify`, weekly). */
  verify: BlobCheck;
  /** Hands an event to `options.onEvent`; a listener that throws does not affect the request. */
  emit(event: ParcelEvent): void;
}

/** How hard a check reads. */
export interface VerifyPace {
  /** Bytes read (and hashed) at a time: small enough that the event loop turns between. */
  chunkBytes: number;
  /**
   * After each piece the check rests this many times as long as the piece took (1: it uses at
   * most half of the disk's time, and of the service's thread); `busy` while a transfer runs.
   */
  rest: number;
  busyRest: number;
  /** The least rest after a piece, in ms (0: a turn of the event loop). */
  minRestMs?: number;
}

/**
 * The check of every stored blob (`server/parcel/domain/blob-verifier.ts`), as the routes and
 * the service use it; named here so the context imports no domain module that imports it.
 */
export interface BlobCheck {
  status(): VerifyStatus;
  /** Starts a run now; false when one is running. */
  start(): boolean;
  /** Starts a run when the weekly one is due; false otherwise. */
  startIfDue(): boolean;
  /** Stops a running check and waits for it. */
  stop(): Promise<void>;
}
