import { statfsSync } from "node:fs";
import { hostname } from "node:os";
import { unixSeconds, type Clock } from "../clock.js";
import { HttpError } from "../http/errors.js";
import type { ServiceLog } from "../log.js";
import type { ParcelProblemCode } from "../problem-codes.js";
import { reclaimBlobs } from "./cleanup.js";
import type { Activity, ParcelContext, ParcelServiceOptions } from "./context.js";
import { BlobVerifier } from "./domain/blob-verifier.js";
import { DEFAULT_POLICY, DEFAULT_RUNTIME, type Policy, type Runtime } from "./domain/policy.js";
import { sweepInbox } from "./domain/inbox.js";
import { sweepSessions } from "./domain/sessions.js";
import type { Entries } from "./http/entries.js";
import { auditSource } from "./http/identity.js";
import { parcelRouteTable } from "./http/route-access.js";
import type { ParcelRepos } from "./repos/index.js";
import type { BlobStore } from "./storage/blob-store.js";

function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return Number(s.bavail) * Number(s.bsize);
}

export interface ContextParts {
  options: ParcelServiceOptions;
  clock: Clock;
  log: ServiceLog<ParcelProblemCode>;
  /** `<dataDir>/parcel` */
  dir: string;
  repos: ParcelRepos;
  storage: BlobStore;
  entries: Entries;
}

/** No transfer running yet. */
function idleActivity(): Activity {
  return {
    uploadsActive: 0,
    downloadsActive: 0,
    reading: new Map(),
    uploading: new Set(),
    uploadStops: new Map(),
    downloading: new Map(),
    resumeRereadBytes: 0,
  };
}

/** The entry address the request came in on; 421 when it is none of the service's. */
function entryOrRefuse(entries: Entries, req: Parameters<Entries["forRequest"]>[0]) {
  const e = entries.forRequest(req);
  if (!e)
    throw new HttpError(
      421,
      "request.wrong_host",
      "This address is not one of the service's entry addresses",
    );
  return e;
}

/**
 * The context every route and domain function gets: the repositories, the settings cached in
 * memory, the running transfers, and the service's own timers. `stop()` ends the timers.
 */
export function buildContext(parts: ContextParts): { ctx: ParcelContext; stop(): void } {
  const { options, clock, log, dir, repos, storage, entries } = parts;
  let policyCache: Policy = repos.meta.json("policy", DEFAULT_POLICY);
  let runtimeCache: Runtime = repos.meta.json("runtime", DEFAULT_RUNTIME);
  const activity = idleActivity();
  let reclaimTimer: NodeJS.Timeout | null = null;
  let stopped = false;

  const ctx: ParcelContext = {
    repos,
    clock,
    log,
    dir,
    options,
    entries,
    storage,
    keys: {
      code: repos.meta.key("key.code"),
      cookie: repos.meta.key("key.cookie"),
      inbox: repos.meta.key("key.inbox"),
    },
    activity,
    now: () => unixSeconds(clock),
    policy: () => policyCache,
    setPolicy(next) {
      repos.meta.setJson("policy", next);
      policyCache = next;
    },
    runtime: () => runtimeCache,
    setRuntime(next) {
      repos.meta.setJson("runtime", next);
      runtimeCache = next;
    },
    audit(actor, action, target, source, detail = {}) {
      repos.audit.write(action, auditSource(actor, source), target, ctx.now(), detail);
    },
    computerName: () => options.computerName ?? hostname(),
    sweep: () => {
      sweepSessions(ctx);
      sweepInbox(ctx);
    },
    diskFree: () => (options.diskFree ?? freeBytes)(dir),
    scheduleReclaim() {
      if (reclaimTimer || stopped) return;
      reclaimTimer = setTimeout(() => {
        reclaimTimer = null;
        reclaimBlobs(ctx).catch((err: unknown) =>
          log.error("cleanup.reclaim_failed", "Freeing the space of deleted files failed", { err }),
        );
      }, options.reclaimDelayMs ?? 1000);
      reclaimTimer.unref();
    },
    entryFor: (req) => entryOrRefuse(entries, req),
    routes: parcelRouteTable(() => ctx),
    verify: new BlobVerifier(() => ctx, options.verifyPace),
    emit(event) {
      try {
        options.onEvent?.(event);
      } catch (err) {
        log.pino.warn({ err, event: event.kind }, "A listener of the parcel events failed");
      }
    },
  };
  return {
    ctx,
    stop() {
      stopped = true;
      if (reclaimTimer) clearTimeout(reclaimTimer);
    },
  };
}
