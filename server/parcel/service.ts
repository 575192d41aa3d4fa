import express, { type Express, type Request } from "express";
import { statfsSync } from "node:fs";
import { privateDatabaseFile, tightenEntries } from "../private-files.js";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { randomBytes } from "node:crypto";
import { systemClock, unixSeconds } from "../clock.js";
import { migrate, openDatabase } from "../db/open.js";
import { errorHandler, HttpError, notFound } from "../http/errors.js";
import { EXACT } from "../http/route-table.js";
import { requestLog } from "../http/request-log.js";
import { createLogger, createServiceLog, loggerForLines } from "../log.js";
import type { ParcelProblemCode } from "../problem-codes.js";
import type { Activity, ParcelContext, ParcelServiceOptions } from "./context.js";
import { DEFAULT_POLICY, DEFAULT_RUNTIME, type Policy, type Runtime } from "./domain/policy.js";
import { hashPassword } from "./domain/secrets.js";
import { Entries } from "./http/entries.js";
import {
  apiNoStore,
  CONTENT_SECURITY_POLICY,
  hostGuard,
  originGuard,
  securityHeaders,
} from "./http/guards.js";
import { auditSource, clientIp } from "./http/identity.js";
import { parcelRouteTable } from "./http/route-access.js";
import { auditWriter } from "./repos/audit.js";
import { getJson, persistentKey, setJson } from "./repos/meta.js";
import { BlobStore } from "./storage/blob-store.js";
import { reclaimBlobs, runCleanup } from "./cleanup.js";
import { publicRouter } from "./routes/public.js";
import { uploadsRouter } from "./routes/uploads.js";
import { ownerRouter } from "./routes/owner.js";
import { pickupRouter } from "./routes/pickup.js";
import { adminRouter } from "./routes/admin.js";

import { VERSION } from "./version.js";
import { MINUTE_MS } from "../contract/time-units.js";
export { VERSION };
const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), "migrations");

export interface ParcelService {
  app: Express;
  ctx: ParcelContext;
  /** Set when no administrator existed and none was given: print it once. */
  generatedAdminPassword: string | null;
  adminUser: string;
  close(): Promise<void>;
}

function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return Number(s.bavail) * Number(s.bsize);
}

export async function createParcelService(options: ParcelServiceOptions): Promise<ParcelService> {
  const clock = options.clock ?? systemClock;
  const log = createServiceLog<ParcelProblemCode>(
    options.logger ?? (options.log ? loggerForLines(options.log) : createLogger()),
    clock,
  );
  const dir = join(options.dataDir, "parcel");
  // 0700/0600 on every start: a data dir left readable by an older version is tightened.
  tightenEntries(dir);
  const db = openDatabase(privateDatabaseFile(join(dir, "parcel.db")));
  migrate(db, MIGRATIONS);
  const storage = new BlobStore(dir);
  const entries = new Entries(options.entries);
  if (entries.list.length === 0)
    throw new Error("the parcel service needs at least one entry address");
  const writeAudit = auditWriter(db);
  let policyCache: Policy = getJson(db, "policy", DEFAULT_POLICY);
  let runtimeCache: Runtime = getJson(db, "runtime", DEFAULT_RUNTIME);
  const activity: Activity = {
    uploadsActive: 0,
    downloadsActive: 0,
    reading: new Map(),
    uploading: new Set(),
    uploadStops: new Map(),
  };
  let reclaimTimer: NodeJS.Timeout | null = null;
  let closed = false;

  const expirePublished = db.prepare(
    "UPDATE parcels SET state = 'expired', ended_at = expires_at WHERE state = 'published' AND expires_at <= ?",
  );
  const timedOutSessions = db.prepare(
    "SELECT id FROM parcels WHERE state = 'uploading' AND expires_at <= ?",
  );
  const revokeSession = db.prepare(
    "UPDATE parcels SET state = 'revoked', ended_at = ?, reserved_bytes = 0 WHERE id = ? AND state = 'uploading'",
  );
  const pendingFileIds = db.prepare(
    "SELECT id FROM files WHERE parcel_id = ? AND state != 'ready'",
  );

  const ctx: ParcelContext = {
    db,
    clock,
    log,
    dir,
    options,
    entries,
    storage,
    keys: { code: persistentKey(db, "key.code"), cookie: persistentKey(db, "key.cookie") },
    activity,
    now: () => unixSeconds(clock),
    policy: () => policyCache,
    setPolicy(next) {
      setJson(db, "policy", next);
      policyCache = next;
    },
    runtime: () => runtimeCache,
    setRuntime(next) {
      setJson(db, "runtime", next);
      runtimeCache = next;
    },
    audit(req: Request | null, actor, action, target, detail = {}) {
      const ip = req ? clientIp(req) : "local";
      writeAudit(action, auditSource(actor, ip), target, ctx.now(), detail);
    },
    sweep() {
      const now = ctx.now();
      expirePublished.run(now);
      const stale = timedOutSessions.all(now) as Array<{ id: string }>;
      if (stale.length === 0) return;
      for (const { id } of stale) {
        const files = pendingFileIds.all(id) as Array<{ id: string }>;
        // Revoked (and its reservation released) even while a PUT runs: the PUT is stopped
        // and removes its own temporary file on the way out.
        revokeSession.run(now, id);
        for (const f of files) {
          const stopUpload = activity.uploadStops.get(f.id);
          if (stopUpload) stopUpload();
          else if (!activity.uploading.has(f.id)) storage.clearTemp(f.id);
        }
      }
      ctx.scheduleReclaim();
    },
    diskFree: () => (options.diskFree ?? freeBytes)(dir),
    scheduleReclaim() {
      if (reclaimTimer || closed) return;
      reclaimTimer = setTimeout(() => {
        reclaimTimer = null;
        reclaimBlobs(ctx).catch((err: unknown) =>
          log.error("cleanup.reclaim_failed", "Freeing the space of deleted files failed", { err }),
        );
      }, options.reclaimDelayMs ?? 1000);
      reclaimTimer.unref();
    },
    entryFor(req) {
      const e = entries.forRequest(req);
      if (!e)
        throw new HttpError(
          421,
          "request.wrong_host",
          "This address is not one of the service's entry addresses",
        );
      return e;
    },
    routes: parcelRouteTable(() => ctx),
    emit(event) {
      try {
        options.onEvent?.(event);
      } catch (err) {
        log.pino.warn({ err, event: event.kind }, "A listener of the parcel events failed");
      }
    },
  };

  // Start-up recovery: every unpublished session is revoked and its partial data released.
  const now = ctx.now();
  db.prepare(
    "UPDATE parcels SET state = 'revoked', ended_at = ?, reserved_bytes = 0 WHERE state = 'uploading'",
  ).run(now);
  storage.clearTemp();
  // Bytes without a row (a crash between the two steps of storing or reclaiming a blob) are
  // reachable by nothing and counted nowhere: they go now, before any upload can start.
  const recorded = db.prepare("SELECT sha256 FROM blobs WHERE sha256 > ? AND sha256 < ?").pluck();
  const orphans = storage.removeUnknown(
    (prefix) => new Set(recorded.all(prefix, `${prefix}g`) as string[]),
  );
  if (orphans > 0) log(`removed ${orphans} stored file(s) no blob record refers to`);
  ctx.audit(null, { kind: "anonymous" }, "system.start", "system", { version: VERSION });

  const generatedAdminPassword = await ensureAdmin(ctx, options);
  const adminUser = options.adminUser ?? "admin";

  const app = express();
  // Paths match exactly everywhere: another letter case or a trailing slash is another path.
  app.set("case sensitive routing", true);
  app.set("strict routing", true);
  app.disable("x-powered-by");
  app.use(requestLog(log));
  app.set("etag", false);
  app.use(securityHeaders);
  const api = express.Router(EXACT);
  api.use(apiNoStore);
  api.use(hostGuard(ctx));
  api.use(originGuard(ctx));
  api.use((_req, _res, next) => {
    ctx.sweep();
    next();
  });
  api.use(publicRouter(ctx));
  api.use(uploadsRouter(ctx));
  api.use(ownerRouter(ctx));
  api.use(pickupRouter(ctx));
  api.use("/admin", adminRouter(ctx));
  api.use(notFound("No such endpoint", "request.no_endpoint"));
  app.use("/api/v1", api);
  if (options.staticDir) {
    const staticDir = options.staticDir;
    app.get(["/", "/index.html"], (_req, res) => {
      res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
      res.setHeader("Cache-Control", "no-cache");
      res.sendFile(join(staticDir, "parcel.html"));
    });
    app.use(express.static(staticDir, { index: false, maxAge: "1h" }));
  }
  app.use(notFound("No such page", "request.no_page"));
  app.use(errorHandler(log));

  const cleanupEvery = options.cleanupIntervalMs ?? 10 * MINUTE_MS;
  const cleanupTimer =
    cleanupEvery > 0
      ? setInterval(() => {
          runCleanup(ctx, { full: false }).catch((err: unknown) =>
            log.error("cleanup.failed", "The periodic cleanup failed", { err }),
          );
        }, cleanupEvery)
      : null;
  cleanupTimer?.unref();

  return {
    app,
    ctx,
    generatedAdminPassword,
    adminUser,
    async close() {
      closed = true;
      if (cleanupTimer) clearInterval(cleanupTimer);
      if (reclaimTimer) clearTimeout(reclaimTimer);
      // The host has already closed the sockets; let the transfers' own failure paths
      // (temp file removal, refunds) finish before the database goes away.
      for (
        let i = 0;
        i < 100 && (activity.uploadsActive > 0 || activity.downloadsActive > 0);
        i++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      db.close();
    },
  };
}

/** Creates the administrator, or sets its password when one is given. */
async function ensureAdmin(
  ctx: ParcelContext,
  options: ParcelServiceOptions,
): Promise<string | null> {
  const username = options.adminUser ?? "admin";
  const existing = ctx.db.prepare("SELECT username FROM admins WHERE username = ?").get(username);
  if (options.adminPassword) {
    const hash = await hashPassword(options.adminPassword);
    ctx.db
      .prepare(
        "INSERT INTO admins (username, password_hash, created_at) VALUES (?, ?, ?) ON CONFLICT(username) DO UPDATE SET password_hash = excluded.password_hash",
      )
      .run(username, hash, ctx.now());
    return null;
  }
  const any = ctx.db.prepare("SELECT 1 FROM admins LIMIT 1").get();
  if ((existing || any) && !options.resetAdminPassword) return null;
  const generated = randomBytes(12).toString("base64url");
  const hash = await hashPassword(generated);
  ctx.db.transaction(() => {
    ctx.db
      .prepare(
        "INSERT INTO admins (username, password_hash, created_at) VALUES (?, ?, ?) ON CONFLICT(username) DO UPDATE SET password_hash = excluded.password_hash",
      )
      .run(username, hash, ctx.now());
    // A reset password ends every session signed in with the old one.
    ctx.db.prepare("DELETE FROM admin_sessions WHERE username = ?").run(username);
  })();
  return generated;
}
