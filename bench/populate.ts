import { randomBytes } from "node:crypto";
import {
  insertAuditRow,
  insertFileRow,
  insertParcelRow,
  openForWriting,
} from "../test/helpers/raw-db.js";
import type { ParcelState } from "../server/parcel/repos/parcels.js";

/**
 * Fills a migrated parcel database with synthetic parcels (each with two files) and audit
 * rows, written straight in (through the tests' one door to raw SQL), so the list endpoints can
 * be measured at scale.
 */
export function populate(
  file: string,
  parcels: number,
  auditRows: number,
  /** Creation time of the first parcel (unix seconds) and the seconds between parcels. */
  time: { base: number; step: number } = { base: 1767225600, step: 30 },
): void {
  const db = openForWriting(file);
  db.pragma("synchronous = OFF");
  const states: ParcelState[] = [
    "published",
    "published",
    "published",
    "expired",
    "exhausted",
    "revoked",
    "review",
  ];
  const { base, step } = time;
  const fill = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const id = randomBytes(16).toString("base64url");
      const state = states[i % states.length];
      const t = base + Math.floor(i * step);
      const names = [`report-${i % 500}.pdf`, `photo_${i}.jpg`];
      insertParcelRow(db, {
        id,
        state,
        tokenHash: randomBytes(32).toString("hex"),
        codeHash: randomBytes(32).toString("hex"),
        downloadsLeft: 5,
        createdAt: t,
        sentAt: t,
        endedAt: state === "published" || state === "review" ? null : t + 86400,
        clientIp: "192.168.1.20",
        searchNames: names.map((n) => n.toLowerCase()).join("/"),
      });
      names.forEach((name, idx) =>
        insertFileRow(db, {
          id: randomBytes(16).toString("base64url"),
          parcelId: id,
          idx,
          name,
          size: 1000 + i,
        }),
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
  const fillAudit = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const action = actions[i % actions.length];
      const source =
        i % 11 === 0
          ? `admin:admin@192.168.1.${i % 250}`
          : `visitor:${((i * 2654435761) % 4294967296).toString(16).padStart(8, "0")}@192.168.1.${i % 250}`;
      const target = `parcel:${randomBytes(12).toString("base64url")}`;
      insertAuditRow(db, {
        action,
        source,
        target,
        time: base + Math.floor(i * 3),
        size: action.length + source.length + target.length + 10,
      });
    }
  });
  for (let i = 0; i < auditRows; i += 50_000) fillAudit(i, Math.min(auditRows, i + 50_000));
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
}
