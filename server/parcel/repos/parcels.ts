import type { Db } from "../../db/open.js";

import {
  PARCEL_STATES,
  type AdminParcelView,
  type FileState,
  type ParcelState,
  type ParcelView,
  type RecipientView,
} from "../../contract/parcel-views.js";

// The views below are the wire shapes of the contract, so a view cannot send another shape.
export { PARCEL_STATES };
export type { AdminParcelView, ParcelState, ParcelView, RecipientView };
export const ENDED_STATES: readonly ParcelState[] = ["expired", "exhausted", "revoked"];
/** States whose files still hold their bytes (and count against budgets). */
export const LIVE_STATES: readonly ParcelState[] = ["uploading", "published", "review"];

export interface ParcelRow {
  id: string;
  state: ParcelState;
  owner_visitor: string | null;
  token_hash: string;
  code_hash: string | null;
  code_gen: number;
  password_hash: string | null;
  wrong_passwords: number;
  days: number;
  downloads_allowed: number;
  downloads_left: number;
  renew: number;
  created_at: number;
  sent_at: number | null;
  sort_at: number;
  expires_at: number;
  ended_at: number | null;
  bytes_freed: number;
  reserved_bytes: number;
  client_ip: string;
  search_names: string;
  /** 1 for a parcel sent to the inbox, NULL otherwise. */
  inbox: number | null;
  /** An inbox parcel's current pickup code, sealed with the inbox key. */
  inbox_box: string | null;
}

/**
 * Published parcels past their expiry that a running download may still renew: the ids with a
 * download in flight and how far any renewal could reach (`renew_cap_days` in seconds).
 */
export interface RenewalHold {
  ids: string[];
  capSeconds: number;
}

/**
 * SQL condition (named parameters `@now`, `@held` as a JSON array of ids, `@cap`): the parcel
 * has a download in flight whose completion could still renew it, i.e. renewal on and before
 * sent_at + renew_cap_days (no renewal reaches past that, so neither does the hold).
 */
export const HELD_FOR_RENEWAL = `(renew = 1 AND COALESCE(sent_at, created_at) + @cap > @now
  AND id IN (SELECT value FROM json_each(@held)))`;

/** The named parameters of `HELD_FOR_RENEWAL`. */
export function holdParams(now: number, hold: RenewalHold): Record<string, unknown> {
  return { now, held: JSON.stringify(hold.ids), cap: hold.capSeconds };
}

export interface FileRow {
  id: string;
  parcel_id: string;
  idx: number;
  name: string;
  size: number;
  state: FileState;
  sha256: string | null;
}

/**
 * Reads of parcels and their files, prepared once. Many parcels' files come in one query over
 * a JSON list of ids, so the statement's text never depends on how many there are.
 */
export class ParcelsRepo {
  private readonly byIdStmt;
  private readonly filesStmt;
  private readonly filesOfStmt;
  private readonly fileStmt;
  private readonly mineStmt;

  constructor(db: Db) {
    this.byIdStmt = db.prepare("SELECT * FROM parcels WHERE id = ?");
    this.filesStmt = db.prepare("SELECT * FROM files WHERE parcel_id = ? ORDER BY idx");
    this.filesOfStmt = db.prepare(
      `SELECT * FROM files WHERE parcel_id IN (SELECT value FROM json_each(?))
       ORDER BY parcel_id, idx`,
    );
    this.fileStmt = db.prepare("SELECT * FROM files WHERE id = ?");
    this.mineStmt = db.prepare(
      "SELECT * FROM parcels WHERE owner_visitor = ? ORDER BY sort_at DESC, id DESC LIMIT ?",
    );
  }

  byId(id: string): ParcelRow | undefined {
    return this.byIdStmt.get(id) as ParcelRow | undefined;
  }

  files(parcelId: string): FileRow[] {
    return this.filesStmt.all(parcelId) as FileRow[];
  }

  /** Files of many parcels in one query (list pages), grouped by parcel id. */
  filesOf(parcelIds: string[]): Map<string, FileRow[]> {
    const out = new Map<string, FileRow[]>();
    if (parcelIds.length === 0) return out;
    for (const r of this.filesOfStmt.all(JSON.stringify(parcelIds)) as FileRow[]) {
      const list = out.get(r.parcel_id);
      if (list) list.push(r);
      else out.set(r.parcel_id, [r]);
    }
    return out;
  }

  file(fileId: string): FileRow | undefined {
    return this.fileStmt.get(fileId) as FileRow | undefined;
  }

  /** A visitor's parcels, newest first. */
  ownedBy(visitorId: string, limit: number): ParcelRow[] {
    return this.mineStmt.all(visitorId, limit) as ParcelRow[];
  }
}
