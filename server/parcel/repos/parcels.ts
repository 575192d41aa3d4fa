import type { Db } from "../../db/open.js";

export type ParcelState =
  "uploading" | "published" | "expired" | "exhausted" | "revoked" | "review";
export const PARCEL_STATES: readonly ParcelState[] = [
  "uploading",
  "published",
  "expired",
  "exhausted",
  "revoked",
  "review",
];
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
}

export interface FileRow {
  id: string;
  parcel_id: string;
  idx: number;
  name: string;
  size: number;
  state: "pending" | "ready" | "failed";
  sha256: string | null;
}

export interface ParcelView {
  id: string;
  state: ParcelState;
  files: Array<{ id: string; name: string; size: number; state: FileRow["state"] }>;
  created_at: number;
  sent_at: number | null;
  expires_at: number;
  downloads_allowed: number;
  downloads_left: number;
  has_password: boolean;
  renew: boolean;
}

export interface AdminParcelView extends ParcelView {
  bytes: number;
  owner: "visitor" | "token";
}

export interface RecipientView {
  id: string;
  files: Array<{ id: string; name: string; size: number }>;
  expires_at: number;
  downloads_left: number;
}

export function getParcel(db: Db, id: string): ParcelRow | undefined {
  return db.prepare("SELECT * FROM parcels WHERE id = ?").get(id) as ParcelRow | undefined;
}

export function getFiles(db: Db, parcelId: string): FileRow[] {
  return db
    .prepare("SELECT * FROM files WHERE parcel_id = ? ORDER BY idx")
    .all(parcelId) as FileRow[];
}

/** Files of many parcels in one query (list pages), grouped by parcel id. */
export function getFilesOf(db: Db, parcelIds: string[]): Map<string, FileRow[]> {
  const out = new Map<string, FileRow[]>();
  if (parcelIds.length === 0) return out;
  const rows = db
    .prepare(
      `SELECT * FROM files WHERE parcel_id IN (${parcelIds.map(() => "?").join(",")}) ORDER BY parcel_id, idx`,
    )
    .all(...parcelIds) as FileRow[];
  for (const r of rows) {
    const list = out.get(r.parcel_id);
    if (list) list.push(r);
    else out.set(r.parcel_id, [r]);
  }
  return out;
}

export function parcelView(p: ParcelRow, files: FileRow[]): ParcelView {
  return {
    id: p.id,
    state: p.state,
    files: files.map((f) => ({ id: f.id, name: f.name, size: f.size, state: f.state })),
    created_at: p.created_at,
    sent_at: p.sent_at,
    expires_at: p.expires_at,
    downloads_allowed: p.downloads_allowed,
    downloads_left: p.downloads_left,
    has_password: p.password_hash !== null,
    renew: p.renew === 1,
  };
}

export function adminParcelView(p: ParcelRow, files: FileRow[]): AdminParcelView {
  return {
    ...parcelView(p, files),
    bytes: files.reduce((sum, f) => sum + f.size, 0),
    owner: p.owner_visitor ? "visitor" : "token",
  };
}

export function recipientView(p: ParcelRow, files: FileRow[]): RecipientView {
  return {
    id: p.id,
    files: files.map((f) => ({ id: f.id, name: f.name, size: f.size })),
    expires_at: p.expires_at,
    downloads_left: p.downloads_left,
  };
}

/** Lower-cased file names for the admin `q` search. */
export function searchNames(names: string[]): string {
  return names.map((n) => n.toLowerCase()).join("/");
}
