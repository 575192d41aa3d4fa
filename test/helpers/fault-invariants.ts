import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
} from "node:fs";
import { join } from "node:path";
import { openReadOnly, parcelStoreRows, subscriptionRows, type StoreRows } from "./raw-db.js";

/**
 * What must hold in a parcel data dir at rest (the service stopped, or between requests),
 * whatever moment a crash hit. Read straight from the files, never through the service.
 */
export interface ParcelStoreReport {
  /** Broken invariants, each a sentence naming the row or file; empty when all hold. */
  problems: string[];
  /** Blob rows no file of a live parcel references: bytes the next cleanup reclaims. */
  reclaimable: string[];
  /** Files under `parcel/tmp`. */
  temp: string[];
  /**
   * Blobs whose record is quarantined but whose file is still in `blobs/` (a crash between
   * the two steps of a quarantine: the next start moves them). Never served meanwhile.
   */
  quarantinePending: string[];
  /** Files under `parcel/quarantine`. */
  quarantined: string[];
  blobFiles: number;
  blobRows: number;
}

const LIVE = new Set(["uploading", "published", "review"]);

interface ParcelRow {
  id: string;
  state: string;
  downloads_allowed: number;
  downloads_left: number;
  reserved_bytes: number;
}

interface FileRow {
  id: string;
  parcel_id: string;
  size: number;
  state: string;
  sha256: string | null;
}

/** sha256 of a file, read a piece at a time (a blob may be gigabytes). */
export function hashFile(path: string): string {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(path, "r");
  try {
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

/** `PRAGMA integrity_check` and `foreign_key_check` of one database file. */
export function databaseProblems(file: string): string[] {
  const db = openReadOnly(file);
  try {
    const problems: string[] = [];
    const rows = db.pragma("integrity_check") as Array<{ integrity_check: string }>;
    const verdict = rows.map((r) => r.integrity_check).join("; ");
    if (verdict !== "ok") problems.push(`integrity_check of ${file}: ${verdict}`);
    const fk = db.pragma("foreign_key_check") as unknown[];
    if (fk.length > 0) problems.push(`foreign_key_check of ${file}: ${JSON.stringify(fk)}`);
    return problems;
  } finally {
    db.close();
  }
}

/** Every `blobs/<aa>/<name>` file: name -> size. */
export function blobFilesOnDisk(dataDir: string): Map<string, number> {
  const root = join(dataDir, "parcel", "blobs");
  const out = new Map<string, number>();
  if (!existsSync(root)) return out;
  for (const dir of readdirSync(root)) {
    for (const name of readdirSync(join(root, dir))) {
      out.set(`${dir}/${name}`, statSync(join(root, dir, name)).size);
    }
  }
  return out;
}

/**
 * Checks the parcel store of `dataDir`: database integrity; every blob file has its row and
 * every good row its file, of the recorded size, and with `hashContent` of content hashing to
 * its name (a quarantined row's file is out of the store, or listed in `quarantinePending`);
 * every ready file points at a blob whose row and file both hold its declared size;
 * every ready file of a live parcel points at a stored blob; no reservation outside an open session and open
 * reservations equal to the declared bytes still missing; downloads within what the audit
 * log's `download.start` and `download.complete` records allow, and states matching the count.
 */
export function checkParcelStore(
  dataDir: string,
  opts: { hashContent?: boolean } = {},
): ParcelStoreReport {
  const dir = join(dataDir, "parcel");
  const problems = databaseProblems(join(dir, "parcel.db"));
  const db = openReadOnly(join(dir, "parcel.db"));
  try {
    const stored = parcelStoreRows(db);
    const rows = stored.blobs;
    const blobs = new Map(rows.map((b) => [b.sha256, b.size]));
    const quarantinedRows = new Set(
      rows.filter((b) => b.quarantined_at !== null).map((b) => b.sha256),
    );
    const quarantinePending: string[] = [];
    const files: FileRow[] = stored.files;
    const parcels = new Map(stored.parcels.map((p) => [p.id, p]));

    // Bytes on disk against blob rows, both ways.
    const onDisk = blobFilesOnDisk(dataDir);
    for (const [rel, size] of onDisk) {
      const [prefix, sha] = rel.split("/");
      if (!/^[0-9a-f]{64}$/.test(sha) || !sha.startsWith(prefix)) {
        problems.push(`stray file in the blob store: ${rel}`);
        continue;
      }
      const recorded = blobs.get(sha);
      if (recorded === undefined) problems.push(`blob file without a blobs row: ${rel}`);
      else if (quarantinedRows.has(sha)) quarantinePending.push(sha);
      else if (recorded !== size)
        problems.push(`blob ${sha} holds ${size} bytes, its row says ${recorded}`);
      else if (opts.hashContent) {
        const real = hashFile(join(dir, "blobs", rel));
        if (real !== sha) problems.push(`blob ${sha} holds content hashing to ${real}`);
      }
    }
    for (const sha of blobs.keys()) {
      if (!quarantinedRows.has(sha) && !onDisk.has(`${sha.slice(0, 2)}/${sha}`))
        problems.push(`blobs row without its file: ${sha}`);
    }

    // File rows against parcels and blobs.
    const referenced = new Set<string>();
    const missingByParcel = new Map<string, number>();
    for (const f of files) {
      const p = parcels.get(f.parcel_id);
      if (!p) {
        problems.push(`file ${f.id} belongs to no parcel`);
        continue;
      }
      if (f.state !== "ready") {
        if (f.sha256 !== null) problems.push(`file ${f.id} is ${f.state} but points at a blob`);
        missingByParcel.set(p.id, (missingByParcel.get(p.id) ?? 0) + f.size);
        continue;
      }
      if (f.sha256 === null) {
        if (LIVE.has(p.state)) problems.push(`ready file ${f.id} of ${p.state} parcel has no blob`);
        continue;
      }
      const size = blobs.get(f.sha256);
      const onDiskSize = onDisk.get(`${f.sha256.slice(0, 2)}/${f.sha256}`);
      if (size === undefined) problems.push(`file ${f.id} points at a missing blob ${f.sha256}`);
      else if (size !== f.size)
        problems.push(`file ${f.id} declares ${f.size} bytes, its blob's row says ${size}`);
      else if (!quarantinedRows.has(f.sha256) && onDiskSize !== f.size)
        problems.push(`file ${f.id} declares ${f.size} bytes, its blob holds ${onDiskSize}`);
      if (LIVE.has(p.state)) referenced.add(f.sha256);
    }

    // Reservations: only open sessions hold one, and exactly the bytes still to come.
    for (const p of parcels.values()) {
      const missing = missingByParcel.get(p.id) ?? 0;
      if (p.state !== "uploading" && p.reserved_bytes !== 0)
        problems.push(`${p.state} parcel ${p.id} still reserves ${p.reserved_bytes} bytes`);
      if (p.state === "uploading" && p.reserved_bytes !== missing)
        problems.push(`open parcel ${p.id} reserves ${p.reserved_bytes} bytes, ${missing} missing`);
    }

    problems.push(...downloadProblems(stored.downloads, parcels));

    const tmpDir = join(dir, "tmp");
    const quarantineDir = join(dir, "quarantine");
    return {
      problems,
      reclaimable: [...blobs.keys()].filter((sha) => !referenced.has(sha)),
      temp: existsSync(tmpDir) ? readdirSync(tmpDir) : [],
      quarantinePending,
      quarantined: existsSync(quarantineDir) ? readdirSync(quarantineDir) : [],
      blobFiles: onDisk.size,
      blobRows: blobs.size,
    };
  } finally {
    db.close();
  }
}

/**
 * Downloads left against the audit log: every start took one, a refund can only give back one
 * that never completed, so `allowed - starts <= left <= allowed - completes`. Parcels that were
 * reissued (a fresh allowance) are left out.
 */
function downloadProblems(rows: StoreRows["downloads"], parcels: Map<string, ParcelRow>): string[] {
  const problems: string[] = [];
  const counts = new Map<string, { start: number; complete: number }>();
  const reissued = new Set<string>();
  for (const r of rows) {
    const detail = JSON.parse(r.detail) as { parcel?: string };
    const parcel = r.target.startsWith("parcel:") ? r.target.slice(7) : detail.parcel;
    if (!parcel) continue;
    if (r.action === "admin.reissue") {
      reissued.add(parcel);
      continue;
    }
    const c = counts.get(parcel) ?? { start: 0, complete: 0 };
    if (r.action === "download.start") c.start++;
    else c.complete++;
    counts.set(parcel, c);
  }
  for (const p of parcels.values()) {
    if (p.downloads_left < 0 || p.downloads_left > p.downloads_allowed)
      problems.push(`parcel ${p.id} has ${p.downloads_left} of ${p.downloads_allowed} downloads`);
    if (p.state === "published" && p.downloads_left === 0)
      problems.push(`parcel ${p.id} is published with no downloads left`);
    if (p.state === "exhausted" && p.downloads_left > 0)
      problems.push(`parcel ${p.id} is exhausted with ${p.downloads_left} downloads left`);
    if (reissued.has(p.id)) continue;
    const c = counts.get(p.id) ?? { start: 0, complete: 0 };
    if (c.complete > c.start)
      problems.push(`parcel ${p.id} has ${c.complete} completed downloads but ${c.start} starts`);
    if (p.downloads_left < p.downloads_allowed - c.start)
      problems.push(
        `parcel ${p.id} has ${p.downloads_left} downloads left after ${c.start} starts of ${p.downloads_allowed} (over-spent)`,
      );
    if (p.downloads_left > p.downloads_allowed - c.complete)
      problems.push(
        `parcel ${p.id} has ${p.downloads_left} downloads left after ${c.complete} complete ones of ${p.downloads_allowed} (refunded too often)`,
      );
  }
  return problems;
}

export interface SnapshotReport {
  problems: string[];
  /** Subscription id -> node names of its snapshot file. */
  nodes: Map<string, string[]>;
  /** Leftover temporary files in the snapshot dir. */
  temp: string[];
}

/**
 * Checks the proxy store of `dataDir`: database integrity; every snapshot file parses as a
 * node array and belongs to a subscription; every refreshed subscription has its snapshot,
 * with as many nodes as its row records.
 */
export function checkProxyStore(dataDir: string): SnapshotReport {
  const dir = join(dataDir, "proxy");
  const problems = databaseProblems(join(dir, "proxy.db"));
  const db = openReadOnly(join(dir, "proxy.db"));
  const nodes = new Map<string, string[]>();
  const temp: string[] = [];
  try {
    const subs = subscriptionRows(db);
    const snapDir = join(dir, "snapshots");
    for (const name of existsSync(snapDir) ? readdirSync(snapDir) : []) {
      if (!name.endsWith(".json") || name.startsWith(".")) {
        temp.push(name);
        continue;
      }
      const id = name.slice(0, -5);
      try {
        const parsed: unknown = JSON.parse(readFileSync(join(snapDir, name), "utf8"));
        if (!Array.isArray(parsed)) throw new Error("not an array");
        nodes.set(
          id,
          parsed.map((n) => String((n as { name?: unknown }).name)),
        );
      } catch (err) {
        problems.push(`snapshot ${name} does not parse: ${String(err)}`);
      }
      if (!subs.some((s) => s.id === id)) problems.push(`snapshot ${name} has no subscription`);
    }
    for (const s of subs) {
      if (s.updated_at === null) continue;
      const got = nodes.get(s.id);
      if (!got) problems.push(`refreshed subscription ${s.id} has no snapshot`);
      else if (got.length !== s.node_count)
        problems.push(
          `subscription ${s.id} records ${s.node_count} nodes, its snapshot ${got.length}`,
        );
    }
    return { problems, nodes, temp };
  } finally {
    db.close();
  }
}
