import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { createKeychain, tokenAccount } from "../../main/secrets/keychain.js";

/**
 * Runs against the real OS keychain (Secret Service over D-Bus). CI starts a D-Bus session
 * with an unlocked gnome-keyring (`.ci/run`); elsewhere, without a session bus, the suite says
 * so and skips — except under CI=true, where a missing keychain is a failure.
 */
const haveBus = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
if (!haveBus && !process.env.CI) {
  console.warn(
    "keychain tests skipped: no D-Bus session (run under dbus-run-session with gnome-keyring)",
  );
}

describe.runIf(haveBus || process.env.CI)("OS keychain", () => {
  const service = `Gatehouse-test-${randomBytes(4).toString("hex")}`;
  const keychain = createKeychain(service);

  it("stores, reads, lists and deletes a manage token", () => {
    const account = tokenAccount("abcDEF123_-");
    const token = randomBytes(32).toString("base64url");
    expect(keychain.get(account)).toBeNull();
    keychain.set(account, token);
    expect(keychain.get(account)).toBe(token);
    expect(keychain.list()).toContainEqual({ account, secret: token });
    expect(keychain.delete(account)).toBe(true);
    expect(keychain.get(account)).toBeNull();
    expect(keychain.list().find((c) => c.account === account)).toBeUndefined();
  });

  it("refuses odd account names and empty secrets", () => {
    expect(() => keychain.get("x y")).toThrow(/invalid keychain account/);
    expect(() => keychain.set(tokenAccount("p1"), "")).toThrow(/empty secret/);
  });
});
