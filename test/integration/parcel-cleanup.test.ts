import { afterEach, describe, expect, it } from "vitest";
import { runCleanup } from "../../server/parcel/cleanup.js";
import { auditOf, startParcel, type Harness } from "../helpers/parcel-harness.js";
import { emptyAudit, markExhausted, markForReview } from "../helpers/raw-db.js";
import {
  bearer,
  blobFiles,
  createUpload,
  putBytes,
  uploadAndPublish,
  type Created,
} from "../helpers/parcel-uploads.js";

let h: Harness;
afterEach(async () => h?.close(true));

const HOUR = 3600_000;
async function start(): Promise<void> {
  h = await startParcel({ reclaimDelayMs: 60_000 });
  const r = await h.request("POST", "/admin/login", {
    body: { username: "admin", password: "admin-password-1" },
  });
  expect(r.status).toBe(200);
}
async function published(
  files: Record<string, number>,
  fill: number,
  extra: Record<string, unknown> = {},
): Promise<Created> {
  const up = await createUpload(h, files, extra);
  expect((await uploadAndPublish(h, up, fill)).status).toBe(200);
  return up;
}
const owner = (up: Created) =>
  h.request("GET", `/uploads/${up.id}`, { headers: bearer(up.manage_token) });
/** Stats with a fresh sign-in (the clock jumps past the 8-hour session in these tests). */
async function stats() {
  await h.request("POST", "/admin/login", {
    body: { username: "admin", password: "admin-password-1" },
  });
  return (await h.request("GET", "/admin/stats")).json;
}
const row = (id: string) => h.repos.parcels.byId(id);

describe("periodic cleanup", () => {
  it("frees the bytes of ended parcels at once and removes their records after 24 hours", async () => {
    await start();
    // a.bin (fill 0x61) is shared with the live parcel; b.bin (0x62) only belongs to `ending`.
    const ending = await published({ "a.bin": 100, "b.bin": 40 }, 0x61, { days: 1 });
    const live = await published({ "same.bin": 100 }, 0x61, { days: 7 });
    expect(blobFiles(h)).toHaveLength(2);
    h.clock.advance(24 * HOUR);
    expect((await owner(ending)).json.state).toBe("expired");

    expect(await runCleanup(h.service.ctx, { full: false })).toEqual({
      parcels: 0,
      files: 0,
      bytes: 40,
    });
    expect(blobFiles(h)).toHaveLength(1);
    expect(row(ending.id)).toMatchObject({ state: "expired", bytes_freed: 1 });
    // The owner still sees how it ended; the live parcel keeps its bytes.
    const seen = await owner(ending);
    expect(seen.status).toBe(200);
    expect(seen.json).toMatchObject({
      state: "expired",
      files: [{ name: "a.bin" }, { name: "b.bin" }],
    });
    let s = await stats();
    expect(s.stored_bytes).toBe(100);
    expect(s.logical_bytes).toBe(100);
    expect(s.parcels.by_state).toMatchObject({ expired: 1, published: 1 });

    h.clock.advance(23 * HOUR);
    expect(await runCleanup(h.service.ctx, { full: false })).toEqual({
      parcels: 0,
      files: 0,
      bytes: 0,
    });
    expect((await owner(ending)).status).toBe(200);
    h.clock.advance(HOUR);
    expect(await runCleanup(h.service.ctx, { full: false })).toEqual({
      parcels: 1,
      files: 2,
      bytes: 0,
    });
    // A cleaned id answers 404 everywhere.
    expect((await owner(ending)).status).toBe(404);
    expect((await stats()).parcels.total).toBe(1);
    expect((await h.request("POST", `/admin/parcels/${ending.id}/delete`)).status).toBe(404);
    expect((await h.request("POST", `/admin/files/${ending.files[0].id}/delete`)).status).toBe(404);
    expect((await h.request("GET", `/admin/parcels?q=${ending.id}`)).json.total).toBe(0);
    expect((await owner(live)).json.state).toBe("published");
    s = await stats();
    expect(s.parcels.total).toBe(1);
    expect(s.files).toEqual({ total: 1, blobs: 1 });
    expect(blobFiles(h)).toHaveLength(1);
  });

  it("releases the data of a timed-out upload session", async () => {
    await start();
    const up = await createUpload(h, { "done.bin": 50, "never.bin": 70 });
    expect((await putBytes(h, up, 0, Buffer.alloc(50, 1))).status).toBe(200);
    expect((await stats()).reserved_bytes).toBe(70);
    h.clock.advance(HOUR + 1000);
    const result = await runCleanup(h.service.ctx, { full: false });
    expect(result).toEqual({ parcels: 0, files: 0, bytes: 50 });
    expect(row(up.id)?.state).toBe("revoked");
    const s = await stats();
    expect(s).toMatchObject({ reserved_bytes: 0, stored_bytes: 0, logical_bytes: 0 });
    expect(blobFiles(h)).toEqual([]);
  });

  it("never deletes a blob a running download reads", async () => {
    await start();
    const up = await published({ "a.bin": 30 }, 0x70);
    const sha = blobFiles(h)[0];
    h.service.ctx.activity.reading.set(sha, 1);
    expect(
      (await h.request("POST", `/parcels/${up.id}/revoke`, { headers: bearer(up.manage_token) }))
        .status,
    ).toBe(200);
    expect(await runCleanup(h.service.ctx, { full: true })).toEqual({
      parcels: 1,
      files: 1,
      bytes: 0,
    });
    expect(blobFiles(h)).toEqual([sha]);
    h.service.ctx.activity.reading.delete(sha);
    expect(await runCleanup(h.service.ctx, { full: false })).toEqual({
      parcels: 0,
      files: 0,
      bytes: 30,
    });
    expect(blobFiles(h)).toEqual([]);
    expect((await stats()).files.blobs).toBe(0);
  });
});

describe("POST /admin/cleanup", () => {
  it("removes every ended record now, keeps live ones and audits the run", async () => {
    await start();
    const revoked = await published({ "r.bin": 10 }, 0x41);
    const exhausted = await published({ "x.bin": 20 }, 0x42);
    const review = await published({ "v.bin": 30 }, 0x43);
    const live = await published({ "l.bin": 40 }, 0x44);
    const open = await createUpload(h, { "o.bin": 5 });
    await h.request("POST", `/parcels/${revoked.id}/revoke`, {
      headers: bearer(revoked.manage_token),
    });
    markExhausted(h.db, exhausted.id, h.service.ctx.now());
    markForReview(h.db, review.id);
    const r = await h.request("POST", "/admin/cleanup");
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ parcels: 2, files: 2, bytes: 30 });
    for (const gone of [revoked, exhausted]) expect((await owner(gone)).status).toBe(404);
    for (const kept of [review, live, open]) expect((await owner(kept)).status).toBe(200);
    expect(blobFiles(h)).toHaveLength(2);
    expect(auditOf(h, "admin.cleanup")).toMatchObject([
      { target: "system", detail: { parcels: 2, files: 2, bytes: 30 } },
    ]);
    expect(await runCleanup(h.service.ctx, { full: true })).toEqual({
      parcels: 0,
      files: 0,
      bytes: 0,
    });
  });
});

describe("retention", () => {
  /** A record of `size` counted bytes: the repository counts its fields, so a pad fills it. */
  const insertAudit = (time: number, size = 100, source = "test@local") => {
    const counted = Buffer.byteLength(`test.row${source}system{"pad":""}`) + 8;
    h.repos.audit.write("test.row", source, "system", time, { pad: "x".repeat(size - counted) });
  };
  const remaining = () => auditOf(h, "test.row").map((r) => r.time);
  const everyRecord = { page: 1, pageSize: 1000 };

  it("prunes audit records older than the retention days", async () => {
    await start();
    await h.request("PUT", "/admin/runtime", { body: { audit_retention_days: 2 } });
    const now = h.service.ctx.now();
    for (const t of [now - 3 * 86400, now - 2 * 86400 - 1, now - 2 * 86400, now - 86400, now])
      insertAudit(t);
    await runCleanup(h.service.ctx, { full: false });
    expect(remaining()).toEqual([now - 2 * 86400, now - 86400, now]);
    // The fragment index forgets pruned rows too.
    expect(h.repos.audit.page({ source: "t@l" }, everyRecord).total).toBe(3);
  });

  it("keeps only the newest audit_retention_rows records", async () => {
    await start();
    await h.request("PUT", "/admin/runtime", { body: { audit_retention_rows: 4 } });
    const now = h.service.ctx.now();
    for (let i = 0; i < 10; i++) insertAudit(now - 10 + i);
    await runCleanup(h.service.ctx, { full: false });
    expect(remaining()).toEqual([now - 4, now - 3, now - 2, now - 1]);
    expect(h.repos.audit.page({}, everyRecord).total).toBe(4);
  });

  it("drops the oldest records beyond the audit content budget", async () => {
    await start();
    const now = h.service.ctx.now();
    emptyAudit(h.db);
    for (let i = 0; i < 6; i++) insertAudit(now - 6 + i, 100 + i);
    // 100..105 = 615 bytes; a budget of 311 keeps the newest three (103+104+105 = 312 > 311: two).
    h.service.ctx.setRuntime({ ...h.service.ctx.runtime(), audit_content_budget_bytes: 311 });
    await runCleanup(h.service.ctx, { full: false });
    expect(remaining()).toEqual([now - 2, now - 1]);
    h.service.ctx.setRuntime({ ...h.service.ctx.runtime(), audit_content_budget_bytes: 208 });
    await runCleanup(h.service.ctx, { full: false });
    expect(remaining()).toEqual([now - 1]);
  });

  it("expires visitor identities, admin sessions and old rate-limit and traffic rows", async () => {
    await start();
    const { identity, pickup, traffic } = h.repos;
    const now = h.service.ctx.now();
    const DAY = 86400;
    identity.addVisitor("old", "h1", now);
    identity.addVisitor("new", "h2", now + 1);
    identity.addAdminSession("s-old", "admin", now - 1);
    pickup.addFailure("1.2.3.4", now - DAY);
    pickup.addFailure("1.2.3.4", now - 60);
    // 2025-12-30, 2025-12-31 and 2026-01-01 (the test clock's day).
    traffic.add("a", now - 2 * DAY, 1);
    traffic.add("a", now - DAY, 2);
    traffic.add("a", now, 3);
    traffic.flush();
    await runCleanup(h.service.ctx, { full: false });
    expect(identity.visitor("h1")).toBeUndefined();
    expect(identity.visitor("h2")).toMatchObject({ id: "new" });
    expect(identity.adminSession("s-old")).toBeUndefined();
    // The signed-in session survives.
    expect((await h.request("GET", "/admin/status")).json.authenticated).toBe(true);
    expect(pickup.recentFailures("1.2.3.4", now, 7 * DAY)).toEqual([now - 60]);
    expect([-2, -1, 0].map((d) => traffic.used("a", now + d * DAY))).toEqual([0, 2, 3]);
  });
});
