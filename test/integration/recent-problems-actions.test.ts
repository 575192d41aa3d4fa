import { afterEach, describe, expect, it } from "vitest";
import { HttpError } from "../../server/http/errors.js";
import { CookieJar, startParcel, type Harness } from "../helpers/parcel-harness.js";
import { createUpload, uploadAndPublish } from "../helpers/parcel-uploads.js";
import {
  FakeCore,
  FakeFeeds,
  PASSWORD,
  startProxy,
  type ProxyHarness,
} from "./proxy-api-harness.js";

/**
 * The last warnings and errors (`recentErrors` of the proxy's /status, `GET /admin/errors` of
 * the parcel service) hold each failed action a person tried or met, with its code, the
 * values its sentence names and the error behind it; refusals that last are recorded once.
 */

interface Problem {
  level: string;
  code: string;
  params: Record<string, string | number>;
  requestId: string | null;
}

let proxy: ProxyHarness | undefined;
let parcel: Harness | undefined;
afterEach(async () => {
  await proxy?.close();
  await parcel?.close(true);
  proxy = parcel = undefined;
});

async function recent(h: ProxyHarness): Promise<Problem[]> {
  const r = await h.request("GET", "/status");
  expect(r.status).toBe(200);
  return r.json.recentErrors as Problem[];
}

describe("the proxy service's recent problems", () => {
  it("hold a failed refresh by the subscription's name and the server's answer, not an unknown id", async () => {
    const feeds = new FakeFeeds();
    proxy = await startProxy({ core: new FakeCore(), feeds });
    await proxy.setup();
    const url = "http://feeds.test/gone?token=secret";
    feeds.responses.set(
      url,
      new HttpError(502, "subscription.fetch_status", "The subscription server answered 404", {
        params: { status: 404 },
      }),
    );
    const made = await proxy.request("POST", "/subscriptions", { body: { name: "Home", url } });
    const failed = await proxy.request("POST", `/subscriptions/${made.json.id}/refresh`);
    expect(failed.status).toBe(400);
    // An id nobody has is the caller's mistake, answered on the spot, not a problem to keep.
    const unknown = await proxy.request("POST", `/subscriptions/${"f".repeat(24)}/refresh`);
    expect(unknown.status).toBe(400);
    const list = await recent(proxy);
    expect(list).toEqual([
      expect.objectContaining({
        level: "warn",
        code: "subscription.manual_refresh_failed",
        params: expect.objectContaining({ name: "Home", reason_code: expect.any(String) }),
        requestId: failed.headers["x-request-id"],
      }),
    ]);
    expect(JSON.stringify(list)).not.toContain("secret");
  });

  it("hold a failed start as an error naming the action, and nothing for a start that worked", async () => {
    const core = new FakeCore();
    core.installed = true;
    proxy = await startProxy({ core, feeds: new FakeFeeds() });
    await proxy.setup();
    core.failApply = "rules[0] is wrong";
    const r = await proxy.request("POST", "/system/service", { body: { action: "start" } });
    expect(r.status).toBe(400);
    core.failApply = null;
    expect(
      (await proxy.request("POST", "/system/service", { body: { action: "start" } })).status,
    ).toBe(200);
    // A malformed action is refused before anything is tried.
    expect(
      (await proxy.request("POST", "/system/service", { body: { action: "jump" } })).status,
    ).toBe(400);
    const list = await recent(proxy);
    expect(list.map((p) => [p.level, p.code, p.params])).toEqual([
      ["error", "control.failed", { action: "start", reason_code: "core.config_rejected" }],
    ]);
    // The core's own words are not among the values a page shows.
    expect(JSON.stringify(list.map((p) => p.params))).not.toContain("rules[0]");
  });

  it("hold a blocked sign-in once, however many wrong passwords arrive together", async () => {
    proxy = await startProxy({ core: new FakeCore(), feeds: new FakeFeeds() });
    await proxy.setup();
    const h = proxy;
    const statuses = await Promise.all(
      Array.from({ length: 9 }, (_, i) =>
        h
          .request("POST", "/auth/login", {
            body: { password: `${PASSWORD} no ${i}` },
            noCookie: true,
          })
          .then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(4);
    // More refused attempts while it lasts add nothing.
    await h.request("POST", "/auth/login", { body: { password: "again" }, noCookie: true });
    const blocked = (await recent(h)).filter((p) => p.code === "auth.sign_in_blocked");
    expect(blocked).toEqual([
      expect.objectContaining({ level: "warn", params: { attempts: 5, minutes: 15 } }),
    ]);
    // Once the block has ended, a new one is recorded again.
    h.clock.advance(16 * 60_000);
    for (let i = 0; i < 5; i++)
      await h.request("POST", "/auth/login", { body: { password: `x ${i}` }, noCookie: true });
    expect((await recent(h)).filter((p) => p.code === "auth.sign_in_blocked")).toHaveLength(2);
  });

  it("hold a failed update check with the release server's answer", async () => {
    proxy = await startProxy({
      core: new FakeCore(),
      feeds: new FakeFeeds(),
      coreReleaseURL: "http://127.0.0.1:9/nowhere",
    });
    await proxy.setup();
    const r = await proxy.request("GET", "/system/updates");
    expect(r.status).toBe(502);
    expect((await recent(proxy)).map((p) => [p.level, p.code, p.params.reason_code])).toEqual([
      ["warn", "updates.check_failed", r.json.code],
    ]);
  });
});

describe("the parcel service's recent problems", () => {
  async function problems(h: Harness): Promise<Problem[]> {
    const admin = new CookieJar();
    const login = await h.request("POST", "/admin/login", {
      body: { username: "admin", password: "admin-password-1" },
      jar: admin,
    });
    expect(login.status).toBe(200);
    const r = await h.request("GET", "/admin/errors", { jar: admin });
    expect(r.status).toBe(200);
    return r.json.items as Problem[];
  }

  it("hold a parcel locked by wrong passwords once, by its first file's name", async () => {
    parcel = await startParcel();
    const h = parcel;
    const up = await createUpload(h, { "report.pdf": 20, "b.txt": 5 }, { password: "right one" });
    const code = (await uploadAndPublish(h, up)).json.code as string;
    const answers = await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        h
          .request("POST", "/pickup/resolve", {
            body: { code, password: `wrong ${i}` },
            jar: new CookieJar(),
          })
          .then((r) => r.status),
      ),
    );
    expect(answers.every((s) => s === 401 || s === 423)).toBe(true);
    const locked = (await problems(h)).filter((p) => p.code === "pickup.parcel_locked");
    expect(locked).toEqual([
      expect.objectContaining({
        level: "warn",
        params: { name: "report.pdf", attempts: 5, files: 2 },
      }),
    ]);
    expect(JSON.stringify(locked)).not.toContain(code);
  });

  it("hold a device blocked from pickups and a blocked administrator sign-in once each", async () => {
    parcel = await startParcel();
    const h = parcel;
    for (let i = 0; i < 14; i++)
      await h.request("POST", "/pickup/resolve", {
        body: { code: `NOPE${i}CODE` },
        jar: new CookieJar(),
      });
    for (let i = 0; i < 8; i++)
      await h.request("POST", "/admin/login", {
        body: { username: "admin", password: `guess ${i}` },
        jar: new CookieJar(),
      });
    // Past the block, the administrator signs in again (the test's own helper does).
    h.clock.advance(16 * 60_000);
    const list = await problems(h);
    expect(list.map((p) => [p.code, p.params])).toEqual([
      ["admin.sign_in_blocked", { attempts: 5, minutes: 15 }],
      ["pickup.client_blocked", { minutes: 10 }],
    ]);
  });
});
