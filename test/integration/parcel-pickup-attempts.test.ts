import { afterEach, describe, expect, it } from "vitest";
import { CookieJar, type Harness } from "../helpers/parcel-harness.js";
import {
  adminJar,
  parcelRow,
  requestFrom,
  resolve,
  shareParcel,
  startPickup,
} from "./parcel-pickup-support.js";

let h: Harness;
afterEach(async () => h?.close(true));

const setPolicy = (patch: Record<string, unknown>) =>
  h.service.ctx.setPolicy({ ...h.service.ctx.policy(), ...patch });

describe("wrong pickup passwords say how many tries are left", () => {
  it("counts attempts_left down to 0 on the try that locks the parcel", async () => {
    h = await startPickup();
    setPolicy({ password_attempts: 3 });
    const p = await shareParcel(h, { "a.txt": 2 }, { password: "s3cret" });
    const seen: number[] = [];
    for (let i = 1; i <= 3; i++) {
      const r = await resolve(h, new CookieJar(), p.code, `wrong-${i}`);
      expect(r.status, `attempt ${i}`).toBe(401);
      expect(r.json.password_required).toBe(true);
      seen.push(r.json.attempts_left as number);
    }
    expect(seen).toEqual([2, 1, 0]);
    expect(parcelRow(h, p.id).state).toBe("review");
    // Locked: the answer is 423 now, with no count.
    const after = await resolve(h, new CookieJar(), p.code, "wrong-4");
    expect(after.status).toBe(423);
    expect(after.json.attempts_left).toBeUndefined();
  });

  it("leaves attempts_left out when no password or an empty one was given", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 2 }, { password: "s3cret" });
    for (const pw of [undefined, ""]) {
      const r = await resolve(h, new CookieJar(), p.code, pw);
      expect(r.status).toBe(401);
      expect(r.json).toEqual({
        error: expect.any(String),
        code: "pickup.password_required",
        password_required: true,
      });
    }
  });

  it("shares one count between every client, and follows the current policy", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 2 }, { password: "s3cret" });
    const first = await requestFrom(h, "127.0.0.2", "POST", "/pickup/resolve", {
      code: p.code,
      password: "nope",
    });
    expect(first).toMatchObject({ status: 401, json: { attempts_left: 4 } });
    const second = await requestFrom(h, "127.0.0.3", "POST", "/pickup/resolve", {
      code: p.code,
      password: "nope again",
    });
    expect(second).toMatchObject({ status: 401, json: { attempts_left: 3 } });
    setPolicy({ password_attempts: 10 });
    const third = await resolve(h, new CookieJar(), p.code, "still wrong");
    expect(third.json.attempts_left).toBe(7);
  });

  it("starts again from the full count after the administrator reissues a locked parcel", async () => {
    h = await startPickup();
    setPolicy({ password_attempts: 1 });
    const p = await shareParcel(h, { "a.txt": 2 }, { password: "s3cret" });
    const lock = await resolve(h, new CookieJar(), p.code, "wrong");
    expect(lock.json.attempts_left).toBe(0);
    // The owner cannot unlock it with a new code: that is refused while it is locked.
    const code = await h.request("POST", `/parcels/${p.id}/code`, {
      headers: { authorization: `Bearer ${p.manage_token}` },
    });
    expect(code.status).toBe(409);
    setPolicy({ password_attempts: 2 });
    const re = await h.request("POST", `/admin/parcels/${p.id}/reissue`, {
      jar: await adminJar(h),
    });
    expect(re.status).toBe(200);
    const again = await resolve(h, new CookieJar(), re.json.code as string, "wrong");
    expect(again).toMatchObject({ status: 401, json: { attempts_left: 1 } });
  });
});
