import { scryptSync } from "node:crypto";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  ACCOUNT_COST,
  limitPickupWaitingForTests,
  PICKUP_COST,
  storedCost,
} from "../../server/password-hash.js";
import { AccountsRepo } from "../../server/proxy/store/accounts-repo.js";
import { CookieJar, startParcel, type Harness } from "../helpers/parcel-harness.js";
import { openReadOnly, storeParcelPasswordHash } from "../helpers/raw-db.js";
import { FakeCore, startProxy, type ProxyHarness } from "./proxy-api-harness.js";
import { parcelRow, resolve, shareParcel, startPickup } from "./parcel-pickup-support.js";

/**
 * Which scrypt cost each stored password gets, read from the databases of the real services:
 * the parcel administrator's and the proxy console's keep the account cost whatever pickups
 * cost; a parcel's pickup password is hashed at the (lower) pickup cost; and a parcel whose
 * hash was stored at another cost still opens with its password.
 */
let parcel: Harness | undefined;
let proxy: ProxyHarness | undefined;
afterEach(async () => {
  limitPickupWaitingForTests();
  await parcel?.close(true);
  await proxy?.close(true);
  parcel = proxy = undefined;
});

const adminHash = (h: Harness) => h.repos.identity.adminHash("admin") ?? "";

function consoleHash(h: ProxyHarness): string {
  const db = openReadOnly(join(h.dataDir, "proxy", "proxy.db"));
  try {
    return new AccountsRepo(db).passwordHash() ?? "";
  } finally {
    db.close();
  }
}

describe("stored password costs", () => {
  it("keeps the account cost for the parcel administrator, before and after a change", async () => {
    parcel = await startParcel();
    expect(ACCOUNT_COST).toEqual({ N: 16384, r: 8, p: 1 });
    expect(storedCost(adminHash(parcel))).toEqual(ACCOUNT_COST);
    const jar = new CookieJar();
    const login = { username: "admin", password: "admin-password-1" };
    expect((await parcel.request("POST", "/admin/login", { jar, body: login })).status).toBe(200);
    const change = { current_password: "admin-password-1", password: "another admin pass 2" };
    const r = await parcel.request("PUT", "/admin/password", { jar, body: change });
    expect(r.status).toBe(200);
    expect(storedCost(adminHash(parcel))).toEqual(ACCOUNT_COST);
  });

  it("keeps the account cost for the proxy console, at setup and after a change", async () => {
    proxy = await startProxy({ core: new FakeCore() });
    await proxy.setup();
    expect(storedCost(consoleHash(proxy))).toEqual(ACCOUNT_COST);
    const r = await proxy.request("PUT", "/auth/password", {
      body: { currentPassword: "correct horse battery", password: "a changed console pw" },
    });
    expect(r.status).toBe(200);
    expect(storedCost(consoleHash(proxy))).toEqual(ACCOUNT_COST);
  });

  it("hashes a parcel's pickup password at the pickup cost, and it opens the parcel", async () => {
    parcel = await startPickup();
    const p = await shareParcel(parcel, { "a.txt": 2 }, { password: "the parcel pw" });
    expect(storedCost(parcelRow(parcel, p.id).password_hash ?? "")).toEqual(PICKUP_COST);
    expect(PICKUP_COST.N).toBeLessThan(ACCOUNT_COST.N);
    expect((await resolve(parcel, new CookieJar(), p.code, "the parcel pw")).status).toBe(200);
    expect((await resolve(parcel, new CookieJar(), p.code, "not the pw")).status).toBe(401);
  });

  it("opens a parcel whose password was stored at the account cost by an earlier build", async () => {
    parcel = await startPickup();
    const p = await shareParcel(parcel, { "a.txt": 2 }, { password: "placeholder" });
    const salt = Buffer.from("an older salt!!!");
    const key = scryptSync("stored long ago", salt, 32, { ...ACCOUNT_COST, maxmem: 64 << 20 });
    const older = `scrypt$16384$8$1$${salt.toString("base64url")}$${key.toString("base64url")}`;
    storeParcelPasswordHash(parcel.db, p.id, older);
    expect((await resolve(parcel, new CookieJar(), p.code, "stored long ago")).status).toBe(200);
    expect((await resolve(parcel, new CookieJar(), p.code, "placeholder")).status).toBe(401);
  });
});

describe("POST /pickup/resolve while many recipients check passwords", () => {
  it("answers 429 pickup.checks_busy with Retry-After when the line is full, and counts no guess", async () => {
    parcel = await startPickup();
    const p = await shareParcel(parcel, { "a.txt": 2 }, { password: "the parcel pw" });
    limitPickupWaitingForTests(0);
    const r = await resolve(parcel, new CookieJar(), p.code, "not the pw");
    expect(r.status).toBe(429);
    expect(r.json).toMatchObject({ code: "pickup.checks_busy", error: expect.any(String) });
    expect(r.headers["retry-after"]).toBe("1");
    // Not a guess: the parcel counts no wrong password, the client no failure.
    expect(parcelRow(parcel, p.id).wrong_passwords).toBe(0);
    // Every pickup failure ever stored (a window reaching back to the epoch).
    const failures = parcel.repos.pickup.serviceFailures(
      Number.MAX_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER,
    );
    expect(failures).toBe(0);
    limitPickupWaitingForTests();
    expect((await resolve(parcel, new CookieJar(), p.code, "the parcel pw")).status).toBe(200);
  });
});
