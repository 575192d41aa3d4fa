import type { Db } from "../../db/open.js";
import { AdminParcelsRepo } from "./admin-parcels.js";
import { AuditRepo } from "./audit.js";
import { BlobsRepo } from "./blobs.js";
import { CleanupRepo } from "./cleanup.js";
import { IdentityRepo } from "./identity.js";
import { InboxRepo } from "./inbox.js";
import { MetaRepo } from "./meta.js";
import { ParcelsRepo } from "./parcels.js";
import { PickupRepo } from "./pickup.js";
import { SessionsRepo } from "./sessions.js";
import { readStoredStats, type StoredStats } from "./stats.js";
import { TrafficRepo } from "./traffic.js";

/**
 * Every repository of the parcel service, made once at start: the only code that holds the
 * database. Each prepares its statements when it is made (or, for the filtered admin lists,
 * the first time each shape of query is asked for), never per request.
 */
export interface ParcelRepos {
  parcels: ParcelsRepo;
  sessions: SessionsRepo;
  blobs: BlobsRepo;
  pickup: PickupRepo;
  traffic: TrafficRepo;
  identity: IdentityRepo;
  inbox: InboxRepo;
  audit: AuditRepo;
  admin: AdminParcelsRepo;
  cleanup: CleanupRepo;
  meta: MetaRepo;
  stats(): StoredStats;
  /**
   * Runs `fn` in one transaction (nested calls become savepoints); `immediate` takes the write
   * lock first, for a read that decides a write (admission, publishing).
   */
  transaction<T>(fn: () => T, mode?: "deferred" | "immediate"): T;
}

export function createRepos(db: Db): ParcelRepos {
  return {
    parcels: new ParcelsRepo(db),
    sessions: new SessionsRepo(db),
    blobs: new BlobsRepo(db),
    pickup: new PickupRepo(db),
    traffic: new TrafficRepo(db),
    identity: new IdentityRepo(db),
    inbox: new InboxRepo(db),
    audit: new AuditRepo(db),
    admin: new AdminParcelsRepo(db),
    cleanup: new CleanupRepo(db),
    meta: new MetaRepo(db),
    stats: () => readStoredStats(db),
    transaction: (fn, mode = "deferred") => {
      const tx = db.transaction(fn);
      return mode === "immediate" ? tx.immediate() : tx();
    },
  };
}
