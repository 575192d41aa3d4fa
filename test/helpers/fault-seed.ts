import Database from "better-sqlite3";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";

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
  const db = new Database(join(dir, "parcel.db"));
  const now = Math.floor(Date.now() / 1000);
  const blobs: string[] = [];
  try {
    const parcel = db.prepare(
      `INSERT INTO parcels (id, state, token_hash, days, downloads_allowed, downloads_left, renew,
         created_at, sent_at, sort_at, expires_at, ended_at, client_ip, search_names)
       VALUES (?, 'revoked', ?, 1, 1, 1, 0, ?, ?, ?, ?, ?, '127.0.0.1', ?)`,
    );
    const file = db.prepare(
      "INSERT INTO files (id, parcel_id, idx, name, size, state, sha256) VALUES (?, ?, 0, ?, ?, 'ready', ?)",
    );
    const blob = db.prepare(
      "INSERT INTO blobs (sha256, size, crc32, created_at) VALUES (?, ?, ?, ?)",
    );
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const id = `seed${String(i).padStart(6, "0")}${randomBytes(6).toString("hex")}`;
        const name = `seeded-${i}.bin`;
        parcel.run(
          id,
          randomBytes(16).toString("hex"),
          now - 7200,
          now - 7200,
          now - 7200,
          now + 86400,
          now - 3600,
          name,
        );
        const ref = shared.length > 0 && i % 10 === 0 ? shared[(i / 10) % shared.length] : null;
        if (ref) {
          file.run(`${id}f`, id, name, ref.size, ref.sha256);
          continue;
        }
        const body = Buffer.from(`${name} ${randomBytes(8).toString("hex")}\n`.repeat(16));
        const sha = createHash("sha256").update(body).digest("hex");
        mkdirSync(join(dir, "blobs", sha.slice(0, 2)), { recursive: true });
        writeFileSync(join(dir, "blobs", sha.slice(0, 2), sha), body);
        blob.run(sha, body.length, crc32(body) >>> 0, now - 7200);
        file.run(`${id}f`, id, name, body.length, sha);
        blobs.push(sha);
      }
    })();
  } finally {
    db.close();
  }
  return { blobs };
}
