import Database from "better-sqlite3";
import { randomBytes } from "node:crypto";

/**
 * Fills a migrated parcel database with synthetic parcels (each with two files) and audit
 * rows, straight through SQL, so the list endpoints can be measured at scale.
 */
export function populate(
  file: string,
  parcels: number,
  auditRows: number,
  /** Creation time of the first parcel (unix seconds) and the seconds between parcels. */
  time: { base: number; step: number } = { base: 1767225600, step: 30 },
): void {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = OFF");
  const states = [
    "published",
    "published",
    "published",
    "expired",
    "exhausted",
    "revoked",
    "review",
  ];
  const { base, step } = time;
  const insertParcel = db.prepare(
    `INSERT INTO parcels (id, state, owner_visitor, token_hash, code_hash, days, downloads_allowed, downloads_left, renew,
       created_at, sent_at, sort_at, expires_at, ended_at, client_ip, search_names)
     VALUES (?, ?, NULL, ?, ?, 7, 10, 5, 1, ?, ?, ?, ?, ?, '192.168.1.20', ?)`,
  );
  const insertFile = db.prepare(
    "INSERT INTO files (id, parcel_id, idx, name, size, state, sha256) VALUES (?, ?, ?, ?, ?, 'ready', NULL)",
  );
  const fill = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const id = randomBytes(16).toString("base64url");
      const state = states[i % states.length];
      const t = base + Math.floor(i * step);
      const names = [`report-${i % 500}.pdf`, `photo_${i}.jpg`];
      insertParcel.run(
        id,
        state,
        randomBytes(32).toString("hex"),
        randomBytes(32).toString("hex"),
        t,
        t,
        t,
        t + 7 * 86400,
        state === "published" || state === "review" ? null : t + 86400,
        names.map((n) => n.toLowerCase()).join("/"),
      );
      names.forEach((n, k) =>
        insertFile.run(randomBytes(16).toString("base64url"), id, k, n, 1000 + i),
      );
    }
  });
  for (let i = 0; i < parcels; i += 10_000) fill(i, Math.min(parcels, i + 10_000));

  const actions = [
    "upload.create",
    "parcel.publish",
    "pickup.resolve",
    "download.start",
    "download.complete",
    "pickup.deny",
    "admin.login",
  ];
  const insertAudit = db.prepare(
    "INSERT INTO audit (action, source, target, time, detail, size) VALUES (?, ?, ?, ?, '{}', ?)",
  );
  const fillAudit = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const action = actions[i % actions.length];
      const source =
        i % 11 === 0
          ? `admin:admin@192.168.1.${i % 250}`
          : `visitor:${((i * 2654435761) % 4294967296).toString(16).padStart(8, "0")}@192.168.1.${i % 250}`;
      const target = `parcel:${randomBytes(12).toString("base64url")}`;
      insertAudit.run(
        action,
        source,
        target,
        base + Math.floor(i * 3),
        action.length + source.length + target.length + 10,
      );
    }
  });
  for (let i = 0; i < auditRows; i += 50_000) fillAudit(i, Math.min(auditRows, i + 50_000));
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
}
