import { afterEach, describe, expect, it } from "vitest";
import { reclaimBlobs } from "../../server/parcel/cleanup.js";
import { auditOf, startParcel, type Harness } from "../helpers/parcel-harness.js";
import { markForReview } from "../helpers/raw-db.js";
import {
  blobFiles,
  createUpload,
  uploadAndPublish,
  waitFor,
  type Created,
} from "../helpers/parcel-uploads.js";

let h: Harness;
afterEach(async () => h?.close(true));

const DISK = 50 * 1024 ** 3;
async function start(): Promise<void> {
  h = await startParcel({ diskFree: () => DISK });
  const r = await h.request("POST", "/admin/login", {
    body: { username: "admin", password: "admin-password-1" },
  });
  expect(r.status).toBe(200);
}

async function published(files: Record<string, number>, fill = 0x61): Promise<Created> {
  const up = await createUpload(h, files);
  const r = await uploadAndPublish(h, up, fill);
  expect(r.status).toBe(200);
  return up;
}

const stats = async () => (await h.request("GET", "/admin/stats")).json;
const blobOf = (fileId: string) => h.repos.parcels.file(fileId)?.sha256 ?? "";

describe("GET /admin/stats", () => {
  it("answers every state with zero counts on an empty service", async () => {
    await start();
    const s = await stats();
    expect(s).toEqual({
      parcels: {
        total: 0,
        by_state: { uploading: 0, published: 0, expired: 0, exhausted: 0, revoked: 0, review: 0 },
      },
      files: { total: 0, blobs: 0 },
      logical_bytes: 0,
      stored_bytes: 0,
      reserved_bytes: 0,
      budgets: {
        file_budget: 10000,
        files_used: 0,
        data_budget_bytes: 107374182400,
        data_used_bytes: 0,
        disk_free_bytes: DISK,
        disk_headroom_bytes: 2147483648,
      },
      concurrency: { uploads_active: 0, downloads_active: 0 },
    });
  });

  it("counts dedup once in stored bytes, and deletes drop logical bytes at once and stored bytes after reclaim", async () => {
    await start();
    const a = await published({ "a.bin": 100, "b.bin": 50 });
    const b = await published({ "c.bin": 100 }); // same bytes as a.bin
    const c = await createUpload(h, { "d.bin": 30 });
    expect(blobOf(a.files[0].id)).toBe(blobOf(b.files[0].id));
    let s = await stats();
    expect(s.parcels.total).toBe(3);
    expect(s.parcels.by_state).toMatchObject({ published: 2, uploading: 1 });
    expect(s.files).toEqual({ total: 4, blobs: 2 });
    expect(s.logical_bytes).toBe(280);
    expect(s.stored_bytes).toBe(150);
    expect(s.reserved_bytes).toBe(30);
    expect(s.budgets).toMatchObject({ files_used: 4, data_used_bytes: 150 });

    const del = await h.request("POST", `/admin/parcels/${a.id}/delete`);
    expect(del.status).toBe(200);
    expect(del.json).toMatchObject({ id: a.id, state: "revoked", bytes: 150, owner: "token" });
    expect(del.json.files).toHaveLength(2);
    s = await stats();
    expect(s.logical_bytes).toBe(130);
    expect(s.budgets.files_used).toBe(2);
    // The background reclaim removes b.bin only: c.bin still references a.bin's bytes.
    await waitFor(() => blobFiles(h).length === 1);
    s = await stats();
    expect(s.stored_bytes).toBe(100);
    expect(s.files.blobs).toBe(1);
    expect(blobFiles(h)).toEqual([blobOf(b.files[0].id)]);

    // Deleting the last file of b revokes it; its bytes go too.
    const fdel = await h.request("POST", `/admin/files/${b.files[0].id}/delete`);
    expect(fdel.status).toBe(200);
    expect(fdel.json).toMatchObject({ id: b.id, state: "revoked", files: [], bytes: 0 });
    expect((await stats()).logical_bytes).toBe(30);
    await waitFor(() => blobFiles(h).length === 0);
    s = await stats();
    expect(s.stored_bytes).toBe(0);
    expect(s.parcels.by_state).toMatchObject({ revoked: 2, uploading: 1 });

    // Deleting an open session releases its reservation.
    const cdel = await h.request("POST", `/admin/parcels/${c.id}/delete`);
    expect(cdel.json.state).toBe("revoked");
    s = await stats();
    expect(s.reserved_bytes).toBe(0);
    expect(s.logical_bytes).toBe(0);

    const deletes = ["admin.parcel_delete", "admin.file_delete"].flatMap((a) => auditOf(h, a));
    const audit = deletes
      .sort((x, y) => x.id - y.id)
      .map(({ action, target, source }) => ({ action, target, source }));
    expect(audit).toEqual([
      { action: "admin.parcel_delete", target: `parcel:${a.id}`, source: "admin:admin@127.0.0.1" },
      {
        action: "admin.file_delete",
        target: `file:${b.files[0].id}`,
        source: "admin:admin@127.0.0.1",
      },
      { action: "admin.parcel_delete", target: `parcel:${c.id}`, source: "admin:admin@127.0.0.1" },
    ]);
  });

  it("keeps a blob a running download reads until the read ends", async () => {
    await start();
    const a = await published({ "a.bin": 64 });
    const sha = blobOf(a.files[0].id);
    h.service.ctx.activity.reading.set(sha, 1);
    expect((await h.request("POST", `/admin/parcels/${a.id}/delete`)).status).toBe(200);
    expect(await reclaimBlobs(h.service.ctx)).toBe(0);
    expect(blobFiles(h)).toEqual([sha]);
    expect((await stats()).stored_bytes).toBe(64);
    h.service.ctx.activity.reading.delete(sha);
    expect(await reclaimBlobs(h.service.ctx)).toBe(64);
    expect(blobFiles(h)).toEqual([]);
    expect((await stats()).stored_bytes).toBe(0);
  });
});

describe("POST /admin/files/:id/delete", () => {
  it("removes one reference, updates the name search and the open reservation", async () => {
    await start();
    const up = await createUpload(h, { "Keep.txt": 10, "Drop.txt": 20 });
    expect((await stats()).reserved_bytes).toBe(30);
    const r = await h.request("POST", `/admin/files/${up.files[1].id}/delete`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: up.id, state: "uploading", bytes: 10 });
    expect(r.json.files.map((f: { name: string }) => f.name)).toEqual(["Keep.txt"]);
    expect((await stats()).reserved_bytes).toBe(10);
    expect((await h.request("GET", "/admin/parcels?q=drop")).json.total).toBe(0);
    expect((await h.request("GET", "/admin/parcels?q=keep")).json.total).toBe(1);
    expect((await h.request("POST", `/admin/files/${up.files[1].id}/delete`)).status).toBe(404);
    expect((await h.request("POST", "/admin/parcels/nope/delete")).status).toBe(404);
  });
});

describe("POST /admin/parcels/:id/reissue", () => {
  it("restores a parcel in review with a new code and the current defaults, and only then", async () => {
    await start();
    const up = await published({ "a.bin": 5 });
    expect((await h.request("POST", `/admin/parcels/${up.id}/reissue`)).status).toBe(409);
    expect((await h.request("POST", "/admin/parcels/nope/reissue")).status).toBe(404);
    markForReview(h.db, up.id, { wrongPasswords: 5, passwordHash: "kept", downloadsLeft: 1 });
    const before = h.repos.parcels.byId(up.id)!;
    await h.request("PUT", "/admin/policy", { body: { default_days: 3, default_downloads: 4 } });
    h.clock.advance(3600_000);
    const r = await h.request("POST", `/admin/parcels/${up.id}/reissue`);
    expect(r.status).toBe(200);
    const now = h.service.ctx.now();
    expect(r.json).toMatchObject({
      id: up.id,
      state: "published",
      expires_at: now + 3 * 86400,
      downloads_left: 4,
      downloads_allowed: 4,
      has_password: true,
      code: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{3}-[0-9A-HJKMNP-TV-Z]{3}$/),
    });
    const plain = (r.json.code as string).replace("-", "");
    expect(r.json.url).toBe(`${h.origin}/#/pickup/${plain}`);
    expect(r.json.urls.map((u: { url: string }) => u.url)).toEqual([
      `${h.origin}/#/pickup/${plain}`,
      `http://localhost:${h.port}/#/pickup/${plain}`,
    ]);
    const after = h.repos.parcels.byId(up.id);
    expect(after).toMatchObject({
      code_hash: expect.not.stringMatching(before.code_hash ?? ""),
      code_gen: before.code_gen + 1,
      wrong_passwords: 0,
      password_hash: "kept",
      ended_at: null,
    });
    expect((await h.request("POST", `/admin/parcels/${up.id}/reissue`)).status).toBe(409);
    expect(auditOf(h, "admin.reissue")).toMatchObject([{ target: `parcel:${up.id}` }]);
  });
});
