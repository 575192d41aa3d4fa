import { afterEach, describe, expect, it } from "vitest";
import { startParcel, type Harness } from "../helpers/parcel-harness.js";

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
  h.service.ctx.db
    .prepare(
      "INSERT INTO audit (action, source, target, time, detail, size) VALUES (?, ?, ?, ?, '{}', 1)",
    )
    .run(action, source, target, time);

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
