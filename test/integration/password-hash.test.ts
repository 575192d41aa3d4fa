import { scryptSync } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import {
  ACCOUNT_COST,
  hashPassword,
  hashPickupPassword,
  limitPickupWaitingForTests,
  PasswordQueueFull,
  passwordWork,
  PICKUP_COST,
  storedCost,
  verifyPassword,
} from "../../server/password-hash.js";

/** A hash in the stored format made here, with any cost (as an older build may have stored). */
function storedAt(password: string, cost: { N: number; r: number; p: number }): string {
  const salt = Buffer.from("0123456789abcdef");
  const key = scryptSync(password, salt, 32, { ...cost, maxmem: 64 << 20 });
  return ["scrypt", cost.N, cost.r, cost.p, salt.toString("base64url"), key.toString("base64url")]
    .map(String)
    .join("$");
}

afterEach(() => limitPickupWaitingForTests());

describe("password hashing", () => {
  it("verifies the right password and refuses a wrong one or a malformed hash", async () => {
    const stored = await hashPassword("correct horse battery");
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await verifyPassword("correct horse battery", stored)).toBe(true);
    expect(await verifyPassword("correct horse batterY", stored)).toBe(false);
    for (const bad of [
      "",
      "scrypt$1$2",
      "bcrypt$1$2$3$4$5",
      "scrypt$16384$8$1$c2FsdA$",
      // Costs no build of the service writes: not a power of two, gigabytes of memory.
      "scrypt$16383$8$1$c2FsdA$" + "A".repeat(43),
      "scrypt$1048576$8$1$c2FsdA$" + "A".repeat(43),
    ]) {
      expect(await verifyPassword("x", bad)).toBe(false);
    }
  });

  it("keeps the account cost for the administrator and console passwords, and a lower one for pickups", async () => {
    expect(ACCOUNT_COST).toEqual({ N: 16384, r: 8, p: 1 });
    expect(storedCost(await hashPassword("an account password"))).toEqual(ACCOUNT_COST);
    const pickup = await hashPickupPassword("a parcel password");
    expect(storedCost(pickup)).toEqual(PICKUP_COST);
    expect(PICKUP_COST.N).toBeLessThan(ACCOUNT_COST.N);
    expect(await verifyPassword("a parcel password", pickup, "pickup")).toBe(true);
    expect(await verifyPassword("a parcel passwort", pickup, "pickup")).toBe(false);
  });

  it("verifies hashes stored at another cost, each at the cost it names", async () => {
    const older = storedAt("stored before the change", ACCOUNT_COST);
    expect(await verifyPassword("stored before the change", older, "pickup")).toBe(true);
    expect(await verifyPassword("stored before the chang", older, "pickup")).toBe(false);
    const cheap = storedAt("cheap one", { N: 1024, r: 8, p: 1 });
    expect(await verifyPassword("cheap one", cheap)).toBe(true);
  });

  it("answers every check of a crowd, right ones true and wrong ones false", async () => {
    const stored = await hashPickupPassword("queue me please");
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        verifyPassword(i % 2 ? "queue me please" : "no", stored, "pickup"),
      ),
    );
    expect(results).toEqual(Array.from({ length: 40 }, (_, i) => i % 2 === 1));
    expect(passwordWork()).toEqual({ pending: 0, pickups: 0 });
  });

  it("checks an account password before pickups that were waiting longer", async () => {
    const pickup = await hashPickupPassword("a parcel password");
    const account = await hashPassword("the console password");
    const done: string[] = [];
    const pickups = Array.from({ length: 30 }, (_, i) =>
      verifyPassword("a parcel password", pickup, "pickup").then(() => done.push(`p${i}`)),
    );
    const signIn = verifyPassword("the console password", account).then(() => done.push("account"));
    await Promise.all([...pickups, signIn]);
    // Only pickups the thread had already taken on may finish first; 30 of them take far
    // longer than one account hash, so the sign-in lands early, not last.
    expect(done.indexOf("account")).toBeLessThan(10);
  });

  it("refuses a pickup check at once when the pickup line is full, and counts nothing for it", async () => {
    const stored = await hashPickupPassword("a parcel password");
    limitPickupWaitingForTests(3);
    const waiting = Array.from({ length: 3 }, () =>
      verifyPassword("a parcel password", stored, "pickup"),
    );
    await expect(verifyPassword("a parcel password", stored, "pickup")).rejects.toBeInstanceOf(
      PasswordQueueFull,
    );
    // Account checks are never refused, and neither is the hash of a new parcel's password.
    const account = await hashPassword("the administrator");
    expect(await verifyPassword("the administrator", account)).toBe(true);
    expect(await Promise.all(waiting)).toEqual([true, true, true]);
    expect(await verifyPassword("a parcel password", stored, "pickup")).toBe(true);
    expect(passwordWork()).toEqual({ pending: 0, pickups: 0 });
  });
});
