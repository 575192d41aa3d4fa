import type { Request } from "express";
import type { Logger } from "pino";
import type { Clock } from "../clock.js";
import type { RouteTable } from "../http/route-table.js";
import type { Entries, Entry } from "./http/entries.js";
import type { ParcelEventListener } from "./events.js";
import type { ParcelAccess } from "./http/access-kinds.js";
import type { PARCEL_API } from "../contract/parcel.js";
import type { Policy, Runtime } from "./domain/policy.js";
import type { BlobCheck, ParcelDomain, VerifyPace } from "./domain/ports.js";

export type { Activity, Actor, BlobCheck, ParcelDomain, VerifyPace } from "./domain/ports.js";

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
  /**
   * Administrator to create (or whose password to set) at start. A password that differs from
   * the stored one counts as a reset, as `resetAdminPassword` does.
   */
  adminUser?: string;
  adminPassword?: string;
  /**
   * Give the administrator a new generated password (returned as `generatedAdminPassword`,
   * shown once), end its sessions and lift any sign-in lockout; ignored when `adminPassword`
   * is given.
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

/**
 * Everything a route module needs: the domain's ports (`domain/ports.ts`) and what only the
 * HTTP side uses (options, entries, the route table). The database is reached only through
 * `repos`; routes handle HTTP and call the domain, which uses the repositories.
 */
export interface ParcelContext extends ParcelDomain {
  /** `<dataDir>/parcel` */
  dir: string;
  options: ParcelServiceOptions;
  entries: Entries;
  setPolicy(next: Policy): void;
  setRuntime(next: Runtime): void;
  /** Moves parcels whose time ran out: published -> expired, uploading -> revoked (releasing reservations). */
  sweep(): void;
  /** The entry the request came through (validated by the host middleware). */
  entryFor(req: Request): Entry;
  /** Every route of the service; routers are made from it (exact paths, guarded by access). */
  routes: RouteTable<ParcelAccess, typeof PARCEL_API>;
  /** The check of every stored blob against its name (`/admin/verify`, weekly). */
  verify: BlobCheck;
}
