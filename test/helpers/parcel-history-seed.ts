import type { Db } from "../../server/db/open.js";

/** Deterministic pseudo-random numbers, so a failing state can be replayed. */
function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

/** Audit times start here: 2026-01-01T00:00:00Z plus an odd offset, so hours split unevenly. */
export const AUDIT_T0 = 1_767_225_600 + 1234;

const ACTIONS = ["admin.login", "parcel.publish", "parcel.delete", "pickup.download"];

function addAudit(db: Db, step: number, count: number): void {
  const next = rng(1000 + step);
  const insert = db.prepare(
    "INSERT INTO audit (action, source, target, time, detail, size) VALUES (?, ?, ?, ?, ?, ?)",
  );
  for (let i = 0; i < count; i++) {
    const k = Math.floor(next() * 6);
    const source = [
      `admin:admin@10.0.0.${k}`,
      `visitor:${(k * 7919).toString(16)}abc@192.168.1.${k}`,
      "token@10.0.0.9",
    ][Math.floor(next() * 3)];
    const target = [`parcel:p${step}x${i}`, "system", `file:report-${k}.pdf`][
      Math.floor(next() * 3)
    ];
    // Each step's rows spread over a few hours and overlap the previous step's last hours; one in
    // ten is written with a clock set back, so ids and times disagree.
    const back = next() < 0.1 ? -5000 : 0;
    const time = AUDIT_T0 + step * 9000 + Math.floor((i / count) * 14_000) + back;
    const detail = JSON.stringify({ step, i });
    insert.run(ACTIONS[Math.floor(next() * ACTIONS.length)], source, target, time, detail, 40);
  }
}

function addParcel(db: Db, id: string, state: string, blob: string | null, t: number): void {
  db.prepare(
    `INSERT INTO parcels (id, state, owner_visitor, token_hash, code_hash, code_gen, password_hash,
       days, downloads_allowed, downloads_left, renew, created_at, sent_at, sort_at, expires_at,
       client_ip, search_names)
     VALUES (?, ?, 'v1', ?, ?, 1, NULL, 3, 5, 4, 0, ?, ?, ?, ?, '192.168.1.20', ?)`,
  ).run(
    id,
    state,
    `tok-${id}`,
    state === "uploading" ? null : `code-${id}`,
    t,
    t,
    t,
    t + 86_400,
    `${id}.txt`,
  );
  db.prepare(
    "INSERT INTO files (id, parcel_id, idx, name, size, state, sha256) VALUES (?, ?, 0, ?, 11, ?, ?)",
  ).run(`f-${id}`, id, `${id}.txt`, blob ? "ready" : "pending", blob);
}

/**
 * Rows a parcel database of a given age would hold, written after each migration step: the
 * first step (schema 0001) gets keys, an administrator and a session, identities, limits,
 * traffic, blobs, parcels and files; every step appends audit rows and a parcel, and later
 * steps prune the oldest audit rows the way retention does.
 */
export function seedParcel(db: Db, version: number, step: number): void {
  if (version < 1) return;
  if (step === 0) {
    const meta = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)");
    meta.run("key.code", "11".repeat(32));
    meta.run("key.cookie", "22".repeat(32));
    meta.run("policy", JSON.stringify({ max_days: 7 }));
    db.prepare(
      "INSERT INTO admins (username, password_hash, created_at) VALUES ('admin', 'scrypt$x', 1)",
    ).run();
    db.prepare(
      "INSERT INTO admin_sessions (token_hash, username, expires_at) VALUES ('st', 'admin', 9e9)",
    ).run();
    db.prepare(
      "INSERT INTO visitors (id, cookie_hash, expires_at) VALUES ('v1', 'ch1', 9e9)",
    ).run();
    db.prepare(
      "INSERT INTO failures (kind, client, time) VALUES ('pickup', '192.168.1.7', 50)",
    ).run();
    db.prepare(
      "INSERT INTO traffic (client, day, bytes) VALUES ('192.168.1.20', '2026-01-01', 4096)",
    ).run();
    for (const sha of ["a".repeat(64), "b".repeat(64)]) {
      db.prepare("INSERT INTO blobs (sha256, size, crc32, created_at) VALUES (?, 11, 7, 10)").run(
        sha,
      );
    }
  }
  addParcel(db, `p${step}a`, "published", "a".repeat(64), AUDIT_T0 + step * 100);
  addParcel(
    db,
    `p${step}b`,
    step % 2 ? "uploading" : "revoked",
    step % 2 ? null : "b".repeat(64),
    AUDIT_T0 + step * 100 + 1,
  );
  addAudit(db, step, 40);
  if (step > 0)
    db.prepare("DELETE FROM audit WHERE id IN (SELECT id FROM audit ORDER BY id LIMIT 3)").run();
}
