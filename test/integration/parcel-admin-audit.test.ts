import { afterEach, describe, expect, it, vi } from "vitest";
import { CookieJar, startParcel, type Harness } from "../helpers/parcel-harness.js";
import { bearer, createUpload, uploadAndPublish } from "../helpers/parcel-uploads.js";
import { countRows } from "../helpers/raw-db.js";

let h: Harness;
afterEach(async () => h?.close(true));

async function start(): Promise<void> {
  h = await startParcel();
  const r = await h.request("POST", "/admin/login", {
    body: { username: "admin", password: "admin-password-1" },
  });
  expect(r.status).toBe(200);
}

const addAudit = (action: string, source: string, target: string, time: number) =>
  h.repos.audit.write(action, source, target, time, {});

describe("GET /admin/audit", () => {
  it("lists records newest first, 20 to a page by default", async () => {
    await start();
    const now = h.service.ctx.now();
    for (let i = 0; i < 25; i++) addAudit("test.row", `visitor:${i}@10.0.0.1`, "system", now + i);
    const r = await h.request("GET", "/admin/audit");
    expect(r.status).toBe(200);
    // system.start and admin.login come first in the log.
    expect(r.json).toMatchObject({ total: 27, page: 1, page_size: 20, pages: 2 });
    expect(r.json.items[0]).toEqual({
      id: expect.any(Number),
      action: "test.row",
      source: "visitor:24@10.0.0.1",
      target: "system",
      time: now + 24,
      detail: {},
      target_name: null,
    });
    const ids = r.json.items.map((i: { id: number }) => i.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const last = await h.request("GET", "/admin/audit?page=5");
    expect(last.json).toMatchObject({ page: 2, pages: 2 });
    expect(last.json.items.map((i: { action: string }) => i.action).slice(-2)).toEqual([
      "admin.login",
      "system.start",
    ]);
  });

  it("names files and parcels by their files, even after a file was deleted", async () => {
    await start();
    const up = await createUpload(h, { "report.pdf": 3, "photo.jpg": 4, "notes.txt": 5 });
    const published = await uploadAndPublish(h, up);
    expect(published.status).toBe(200);
    const recipient = new CookieJar();
    const resolved = await h.request("POST", "/pickup/resolve", {
      jar: recipient,
      body: { code: published.json.code },
    });
    expect(resolved.status).toBe(200);
    const [report, photo] = up.files;
    const got = await h.request("GET", `/pickup/files/${report.id}/download`, { jar: recipient });
    expect(got.status).toBe(200);
    // The download is settled (and recorded) once the service has closed the file, which can
    // come just after the client has the last byte.
    await vi.waitFor(() =>
      expect(
        h.repos.audit.page({ action: "download.complete" }, { page: 1, pageSize: 20 }).total,
      ).toBe(1),
    );
    const del = await h.request("POST", `/admin/files/${photo.id}/delete`);
    expect(del.status).toBe(200);
    addAudit("test.row", "anonymous@local", "parcel:long-gone", h.service.ctx.now());
    addAudit("test.row", "anonymous@local", "file:long-gone", h.service.ctx.now());

    const r = await h.request("GET", "/admin/audit?page_size=100");
    expect(r.status).toBe(200);
    type Item = { action: string; target: string; target_name: unknown; detail: object };
    const items = r.json.items as Item[];
    const by = (action: string, target: string) =>
      items.find((i) => i.action === action && i.target === target);
    // The parcel now holds two files; its name follows what it holds.
    const tail = (published.json.code as string).slice(-2);
    expect(by("parcel.publish", `parcel:${up.id}`)?.target_name).toEqual({
      files: ["report.pdf", "notes.txt"],
      total: 2,
      bytes: 8,
      code_tail: tail,
      removed_at: null,
    });
    expect(by("download.complete", `file:${report.id}`)?.target_name).toEqual({
      files: ["report.pdf"],
      total: 1,
      bytes: 3,
      code_tail: null,
      removed_at: null,
    });
    // The deleted file's row is gone: the record kept its name and size.
    const deleted = by("admin.file_delete", `file:${photo.id}`);
    expect(deleted?.target_name).toEqual({
      files: ["photo.jpg"],
      total: 1,
      bytes: 4,
      code_tail: null,
      removed_at: null,
    });
    expect(deleted?.detail).toMatchObject({ name: "photo.jpg", size: 4, parcel: up.id });
    expect(by("test.row", "parcel:long-gone")?.target_name).toBeNull();
    expect(by("test.row", "file:long-gone")?.target_name).toBeNull();
  });

  it("still names a parcel cleanup removed: its files, size, code's end and when", async () => {
    await start();
    const up = await createUpload(h, { "holiday.mp4": 30, "map.png": 12, "list.txt": 2 });
    const published = await uploadAndPublish(h, up);
    expect(published.status).toBe(200);
    const revoke = await h.request("POST", `/parcels/${up.id}/revoke`, {
      headers: bearer(up.manage_token),
    });
    expect(revoke.status).toBe(200);
    // The periodic run keeps ended records for a day; the manual one removes them now.
    expect((await h.request("POST", "/admin/cleanup")).json.parcels).toBe(1);
    const removedAt = h.service.ctx.now();
    expect(h.repos.parcels.byId(up.id)).toBeUndefined();
    const r = await h.request(
      "GET",
      `/admin/audit?target=${encodeURIComponent(`parcel:${up.id}`)}`,
    );
    expect(r.status).toBe(200);
    const items = r.json.items as Array<{ action: string; target_name: unknown }>;
    expect(items.map((i) => i.action).sort()).toEqual([
      "parcel.publish",
      "parcel.revoke",
      "upload.create",
    ]);
    for (const item of items)
      expect(item.target_name).toEqual({
        files: ["holiday.mp4", "map.png"],
        total: 3,
        bytes: 44,
        code_tail: (published.json.code as string).slice(-2),
        removed_at: removedAt,
      });
    // Once the retention has pruned every record about it, the memo goes too.
    const put = await h.request("PUT", "/admin/runtime", { body: { audit_retention_days: 1 } });
    expect(put.status).toBe(200);
    h.clock.advance(2 * 86400_000);
    // The administrator's session (8 hours) has ended meanwhile.
    const login = await h.request("POST", "/admin/login", {
      body: { username: "admin", password: "admin-password-1" },
    });
    expect(login.status).toBe(200);
    expect((await h.request("POST", "/admin/cleanup")).status).toBe(200);
    expect(countRows(h.db, "parcel_memos")).toBe(0);
  });

  it("filters by exact action, literal source and target fragments and inclusive times", async () => {
    await start();
    addAudit("pickup.deny", "anonymous@10.0.0.9", "parcel:Ab%_cd", 5000);
    addAudit("pickup.deny", "anonymous@10.0.0.19", "parcel:Abxxcd", 5001);
    addAudit("pickup.resolve", "visitor:1234abcd@10.0.0.9", "parcel:Abxxcd", 5002);
    const get = async (q: string) => {
      const r = await h.request("GET", `/admin/audit?${q}`);
      expect([q, r.status]).toEqual([q, 200]);
      return r.json.items.map((i: { time: number }) => i.time) as number[];
    };
    expect(await get("action=pickup.deny")).toEqual([5001, 5000]);
    expect(await get("action=pickup.den")).toEqual([]);
    expect(await get("action=never.happens")).toEqual([]);
    expect(await get("source=10.0.0.9")).toEqual([5002, 5000]);
    expect(await get("target=%25")).toEqual([5000]);
    expect(await get("target=%25_")).toEqual([5000]);
    expect(await get("target=Ab_")).toEqual([]);
    expect(await get("target=ab")).toEqual([]);
    expect(await get("source=%25")).toEqual([]);
    expect(await get("from=5001&to=9999")).toEqual([5002, 5001]);
    expect(await get("to=5001")).toEqual([5001, 5000]);
    expect(await get("from=5001&to=5001")).toEqual([5001]);
    expect(await get("action=pickup.deny&source=anonymous&target=xx&from=5000&to=5002")).toEqual([
      5001,
    ]);
  });

  it("answers 400 to malformed filters and pages", async () => {
    await start();
    for (const q of [
      "action=pickup",
      "action=Pickup.deny",
      "action=pickup.deny.x",
      "action=pickup-deny.x",
      "action=",
      "action=a.b&action=c.d",
      "from=x",
      "from=1.5",
      "to=",
      "from=10&to=9",
      "page=0",
      "page_size=101",
      "page_size=0",
    ]) {
      const r = await h.request("GET", `/admin/audit?${q}`);
      expect([q, r.status]).toEqual([q, 400]);
      expect(r.json.error).toEqual(expect.any(String));
    }
    expect((await h.request("GET", "/admin/audit?from=10&to=10")).status).toBe(200);
    expect((await h.request("GET", "/admin/audit?from=-5")).status).toBe(200);
  });
});
