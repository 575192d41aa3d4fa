import type { Stats } from "../../contract/parcel-admin.js";
import type { Db } from "../../db/open.js";
import { PARCEL_STATES, type ParcelState } from "./parcels.js";
import { prepared } from "./statements.js";

/** The wire shape of `GET /admin/stats`. */
export type { Stats };

/** The stored counts behind the stats (the rest comes from the runtime and the activity). */
export interface StoredStats {
  parcels: { total: number; by_state: Record<ParcelState, number> };
  files: { total: number; blobs: number };
  /** Files and declared bytes of live parcels, by the rules of admission's usage. */
  live: { files: number; bytes: number };
  stored_bytes: number;
  reserved_bytes: number;
}

/**
 * The counts of `GET /admin/stats`, read in one transaction. Usage follows admission's rules
 * (SessionsRepo.usage), so the numbers an administrator sees are the ones new uploads are
 * judged by.
 */
export function readStoredStats(db: Db): StoredStats {
  return db.transaction(() => {
    const byState = Object.fromEntries(PARCEL_STATES.map((s) => [s, 0])) as Record<
      ParcelState,
      number
    >;
    const rows = prepared(
      db,
      "SELECT state, COUNT(*) AS n FROM parcels GROUP BY state",
    ).all() as Array<{ state: ParcelState; n: number }>;
    let total = 0;
    for (const r of rows) {
      byState[r.state] = r.n;
      total += r.n;
    }
    const n = (sql: string) => (prepared(db, sql).get() as { n: number }).n;
    // One pass over the live parcels' files (covered by files_parcel_size); the same rules as
    // admission's usage.
    const live = prepared(
      db,
      `SELECT COUNT(*) AS files, COALESCE(SUM(f.size), 0) AS bytes
       FROM files f JOIN parcels p ON p.id = f.parcel_id
       WHERE p.state IN ('uploading','published','review')`,
    ).get() as { files: number; bytes: number };
    return {
      parcels: { total, by_state: byState },
      files: {
        total: n("SELECT COUNT(*) AS n FROM files"),
        blobs: n("SELECT COUNT(*) AS n FROM blobs WHERE quarantined_at IS NULL"),
      },
      live,
      stored_bytes: n("SELECT COALESCE(SUM(size), 0) AS n FROM blobs WHERE quarantined_at IS NULL"),
      reserved_bytes: n(
        "SELECT COALESCE(SUM(reserved_bytes), 0) AS n FROM parcels WHERE state = 'uploading'",
      ),
    };
  })();
}
