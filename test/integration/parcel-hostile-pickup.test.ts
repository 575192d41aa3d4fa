import { afterEach, describe, expect, it } from "vitest";
import { PICKUP_SERVICE_BUDGET } from "../../server/parcel/domain/pickup.js";
import { CookieJar, type Harness } from "../helpers/parcel-harness.js";
import { bearer } from "../helpers/parcel-uploads.js";
import { recipient, resolve, shareParcel, startPickup } from "./parcel-pickup-support.js";

let h: Harness;
afterEach(async () => h?.close(true));

/** A well-formed code no parcel here has (a clash with a random code is one in a billion). */
const unknownCode = (i: number) => `ZZ${String(i).padStart(4, "0")}`;

/** `n` failed resolves with unknown codes, each from a fresh client without cookies. */
async function failUnknown(n: number, from = 0): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i += 25) {
    const batch = Array.from({ length: Math.min(25, n - i) }, (_, j) =>
      resolve(h, new CookieJar(), unknownCode(from + i + j)),
    );
    statuses.push(...(await Promise.all(batch)).map((r) => r.status));
  }
  return statuses;
}

/** A service whose per-client limit is out of the way, so only the service-wide one acts. */
async function start(): Promise<void> {
  h = await startPickup();
  h.service.ctx.setPolicy({
    ...h.service.ctx.policy(),
    pickup_failures_per_ip: 100_000,
    password_attempts: 100,
  });
}

describe("service-wide budget of failed pickups", () => {
  it("answers 429 with Retry-After to clients without a pickup cookie once 200 failures fall in 10 minutes", async () => {
    await start();
    expect(PICKUP_SERVICE_BUDGET).toBe(200);
    const p = await shareParcel(h, { a: 3 });
    const holder = await recipient(h, p.code);
    expect(await failUnknown(200)).toEqual(Array(200).fill(404));

    const blocked = await resolve(h, new CookieJar(), unknownCode(999));
    expect(blocked.status).toBe(429);
    const retry = Number(blocked.headers["retry-after"]);
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(600);
    // Even the right code is refused to a client without a cookie...
    expect((await resolve(h, new CookieJar(), p.code)).status).toBe(429);
    // ...while a recipient who already holds a current pickup cookie is not locked out.
    const again = await resolve(h, holder, p.code);
    expect(again.status).toBe(200);
    expect(again.json.id).toBe(p.id);
    expect((await resolve(h, holder, unknownCode(1000))).status).toBe(404);

    // A new code makes the old cookie stale: its holder is blocked like everyone else.
    const code = await h.request("POST", `/parcels/${p.id}/code`, {
      headers: bearer(p.manage_token),
    });
    expect(code.status).toBe(200);
    expect((await resolve(h, holder, code.json.code)).status).toBe(429);

    // Once the failures leave the window, pickups work again.
    h.clock.advance(retry * 1000);
    expect((await resolve(h, new CookieJar(), code.json.code)).status).toBe(200);
  });

  it("counts wrong passwords toward the budget before the password check, so parallel guesses cannot overshoot it", async () => {
    await start();
    const p = await shareParcel(h, { a: 3 }, { password: "right-password" });
    // Missing passwords (the normal first step) count for nothing.
    for (let i = 0; i < 5; i++) {
      const r = await resolve(h, new CookieJar(), p.code);
      expect(r.status).toBe(401);
      expect(r.json.password_required).toBe(true);
    }
    expect(await failUnknown(PICKUP_SERVICE_BUDGET - 2)).toEqual(
      Array(PICKUP_SERVICE_BUDGET - 2).fill(404),
    );
    const guesses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => resolve(h, new CookieJar(), p.code, `guess-${i}`)),
    );
    const statuses = guesses.map((g) => g.status).sort();
    expect(statuses).toEqual([...Array(2).fill(401), ...Array(6).fill(429)]);
    for (const g of guesses.filter((x) => x.status === 429))
      expect(Number(g.headers["retry-after"])).toBeGreaterThan(0);
  });

  it("lets failures age out one by one: Retry-After is when the oldest leaves the window", async () => {
    await start();
    await failUnknown(100);
    h.clock.advance(300_000);
    await failUnknown(100, 100);
    const blocked = await resolve(h, new CookieJar(), unknownCode(5000));
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers["retry-after"])).toBe(300);
    h.clock.advance(300_000);
    // The first hundred have left the window; the second hundred still count.
    expect(await failUnknown(100, 200)).toEqual(Array(100).fill(404));
    expect((await resolve(h, new CookieJar(), unknownCode(6000))).status).toBe(429);
  });
});
