import type { Express } from "express";
import { join } from "node:path";
import { systemClock } from "../clock.js";
import { HOUR_MS, MINUTE_MS } from "../contract/time-units.js";
import { createLogger, createServiceLog, loggerForLines } from "../log.js";
import { tightenEntries } from "../private-files.js";
import type { ParcelProblemCode } from "../problem-codes.js";
import { parcelApp } from "./app.js";
import { buildContext } from "./build-context.js";
import { runCleanup } from "./cleanup.js";
import type { ParcelContext, ParcelServiceOptions } from "./context.js";
import { ensureAdmin } from "./domain/admin-account.js";
import { finishQuarantines } from "./domain/blob-integrity.js";
import { LOCAL_SOURCE } from "./domain/ports.js";
import { recoverAtStart } from "./domain/sessions.js";
import { Entries } from "./http/entries.js";
import { openParcelStorage } from "./repos/open-storage.js";
import { BlobStore } from "./storage/blob-store.js";
import { VERSION } from "../version.js";

export { VERSION };

export interface ParcelService {
  app: Express;
  ctx: ParcelContext;
  /** Set when no administrator existed and none was given: print it once. */
  generatedAdminPassword: string | null;
  adminUser: string;
  close(): Promise<void>;
}

/** Opens the data dir and the database, recovers from the last run, and builds the app. */
export async function createParcelService(options: ParcelServiceOptions): Promise<ParcelService> {
  const clock = options.clock ?? systemClock;
  const log = createServiceLog<ParcelProblemCode>(
    options.logger ?? (options.log ? loggerForLines(options.log) : createLogger()),
    clock,
  );
  const dir = join(options.dataDir, "parcel");
  // 0700/0600 on every start: a data dir left readable by an older version is tightened.
  tightenEntries(dir);
  const entries = new Entries(options.entries);
  if (entries.list.length === 0)
    throw new Error("the parcel service needs at least one entry address");
  const database = openParcelStorage(dir);
  const storage = new BlobStore(dir);
  const { ctx, stop } = buildContext({
    options,
    clock,
    log,
    dir,
    repos: database.repos,
    storage,
    entries,
  });

  const orphans = recoverAtStart(ctx);
  if (orphans > 0) log(`removed ${orphans} stored file(s) no blob record refers to`);
  const quarantined = await finishQuarantines(ctx);
  if (quarantined > 0) log(`moved ${quarantined} damaged stored file(s) to quarantine`);
  ctx.audit({ kind: "anonymous" }, "system.start", "system", LOCAL_SOURCE, { version: VERSION });
  const adminUser = options.adminUser ?? "admin";
  const generatedAdminPassword = await ensureAdmin(
    ctx.repos.identity,
    { username: adminUser, password: options.adminPassword, reset: options.resetAdminPassword },
    ctx.now(),
    log,
  );

  const app = parcelApp(ctx);
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
  // The weekly check of the stored blobs: looked for hourly, so a restart never skips it.
  const verifyEvery = options.verifyCheckMs ?? HOUR_MS;
  const verifyTimer =
    verifyEvery > 0 ? setInterval(() => ctx.verify.startIfDue(), verifyEvery) : null;
  verifyTimer?.unref();

  return {
    app,
    ctx,
    generatedAdminPassword,
    adminUser,
    async close() {
      if (cleanupTimer) clearInterval(cleanupTimer);
      if (verifyTimer) clearInterval(verifyTimer);
      stop();
      await ctx.verify.stop();
      // The host has already closed the sockets; let the transfers' own failure paths
      // (temp file removal, refunds) finish before the database goes away.
      const { activity } = ctx;
      for (let i = 0; i < 100 && activity.uploadsActive + activity.downloadsActive > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      database.close();
    },
  };
}
