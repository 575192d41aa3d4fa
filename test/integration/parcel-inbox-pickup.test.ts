import { afterEach, describe, expect, it } from "vitest";
import { PICKUP_FAILURE_WINDOW } from "../../server/parcel/domain/pickup.js";
import { CookieJar, startParcel, type Harness } from "../helpers/parcel-harness.js";
import { createUpload, uploadAndPublish } from "../helpers/parcel-uploads.js";

/**
 * The inbox's code typed into the pickup form (`POST /pickup/resolve`): said as an inbox code
 * (404 `pickup.inbox_code` with the computer's name) and not counted, exactly as
 * `POST /inbox/resolve` answers and counts the same code; every other wrong code still counts
 * as before, and a blocked device learns nothing.
 */

let h: Harness;
afterEach(async () => {
  await h?.close(true);
});

async function start(): Promise<void> {
  h = await startParcel({ computerName: "study-pc" });
  const login = await h.request("POST", "/admin/login", {
    body: { username: "admin", password: "admin-password-1" },
  });
  expect(login.status).toBe(200);
}

const pickup = (code: string) =>
  h.request("POST", "/pickup/resolve", { jar: new CookieJar(), body: { code } });
const failures = () =>
  h.repos.pickup.recentFailures("127.0.0.1", h.service.ctx.now(), PICKUP_FAILURE_WINDOW).length;

describe("the inbox code typed into the pickup form", () => {
  it("is said as the inbox's code with the computer's name, and counts no failure", async () => {
    await start();
    const { code } = (await h.request("POST", "/admin/inbox", { body: {} })).json;
    const before = failures();
    for (const typed of [code as string, (code as string).replace(/-/g, "").toLowerCase()]) {
      const r = await pickup(typed);
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ code: "pickup.inbox_code", params: { name: "study-pc" } });
    }
    expect(failures()).toBe(before);
    // The inbox's own route answers the same code the same way: no failure either.
    expect((await h.request("POST", "/inbox/resolve", { body: { code } })).status).toBe(200);
    expect(failures()).toBe(before);
  });

  it("with a password: still only says it is the inbox's code (the inbox page asks the password)", async () => {
    await start();
    const { code } = (await h.request("POST", "/admin/inbox", { body: { password: "tulip" } }))
      .json;
    const r = await pickup(code as string);
    expect(r.json.code).toBe("pickup.inbox_code");
    expect(r.json).not.toHaveProperty("password_required");
    expect(failures()).toBe(0);
  });

  it("a wrong code, and the code of a closed inbox, count one failure each as before", async () => {
    await start();
    const { code } = (await h.request("POST", "/admin/inbox", { body: {} })).json;
    const wrong = await pickup("ZZZ-ZZZ");
    expect(wrong.json.code).toBe("pickup.code_unknown");
    expect(failures()).toBe(1);
    await h.request("DELETE", "/admin/inbox");
    const closed = await pickup(code as string);
    expect(closed.json.code).toBe("pickup.code_unknown");
    expect(failures()).toBe(2);
  });

  it("a blocked device is refused before anything is said about the code", async () => {
    await start();
    h.service.ctx.setPolicy({ ...h.service.ctx.policy(), pickup_failures_per_ip: 2 });
    const { code } = (await h.request("POST", "/admin/inbox", { body: {} })).json;
    await pickup("ZZZ-ZZZ");
    await pickup("YYY-YYY");
    const blocked = await pickup(code as string);
    expect(blocked.status).toBe(429);
    expect(blocked.json.code).toBe("pickup.too_many");
  });

  it("a parcel's code still opens its parcel", async () => {
    await start();
    await h.request("POST", "/admin/inbox", { body: {} });
    const up = await createUpload(h, { "a.txt": 3 });
    const published = await uploadAndPublish(h, up);
    const r = await pickup(published.json.code as string);
    expect(r.status).toBe(200);
    expect(failures()).toBe(0);
  });
});
