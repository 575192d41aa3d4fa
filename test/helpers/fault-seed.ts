import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { insertBlobRow, insertFileRow, insertParcelRow, openForWriting } from "./raw-db.js";

/**
 * Writes `count` ended (revoked) parcels of one small file each straight into a stopped
 * service's store, each with its own blob (row and bytes), the way uploads that later ended
 * leave them. `shared` blobs (already stored) get extra ended references, so a cleanup must
 * keep the bytes the live parcels still use. Far faster than uploading thousands of parcels.
 */
export function seedEndedParcels(
  dataDir: string,
  count: number,
  shared: Array<{ sha256: string; size: number }> = [],
): { blobs: string[] } {
  const dir = join(dataDir, "parcel");
  const db = openForWriting(join(dir, "parcel.db"));
  const now = Math.floor(Date.now() / 1000);
  const blobs: string[] = [];
  try {
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const id = `seed${String(i).padStart(6, "0")}${randomBytes(6).toString("hex")}`;
        const name = `seeded-${i}.bin`;
        insertParcelRow(db, {
          id,
          state: "revoked",
          tokenHash: randomBytes(16).toString("hex"),
          days: 1,
          downloadsAllowed: 1,
          renew: false,
          createdAt: now - 7200,
          sentAt: now - 7200,
          expiresAt: now + 86400,
          endedAt: now - 3600,
          clientIp: "127.0.0.1",
          searchNames: name,
        });
        const ref = shared.length > 0 && i % 10 === 0 ? shared[(i / 10) % shared.length] : null;
        if (ref) {
          insertFileRow(db, {
            id: `${id}f`,
            parcelId: id,
            idx: 0,
            name,
            size: ref.size,
            sha256: ref.sha256,
          });
          continue;
        }
        const body = Buffer.from(`${name} ${randomBytes(8).toString("hex")}\n`.repeat(16));
        const sha = createHash("sha256").update(body).digest("hex");
        mkdirSync(join(dir, "blobs", sha.slice(0, 2)), { recursive: true });
        writeFileSync(join(dir, "blobs", sha.slice(0, 2), sha), body);
        insertBlobRow(db, {
          sha256: sha,
          size: body.length,
          crc32: crc32(body) >>> 0,
          createdAt: now - 7200,
        });
        insertFileRow(db, {
          id: `${id}f`,
          parcelId: id,
          idx: 0,
          name,
          size: body.length,
          sha256: sha,
        });
        blobs.push(sha);
      }
    })();
  } finally {
    db.close();
  }
  return { blobs };
}
