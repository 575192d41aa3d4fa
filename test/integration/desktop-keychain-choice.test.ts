import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { chooseSecretStore, probeKeyring } from "../../main/secrets/choose.js";
import { createEncryptedFileStore } from "../../main/secrets/encrypted-file.js";
import { createKeychain, tokenAccount } from "../../main/secrets/keychain.js";
import { fakeSafeStorage } from "../helpers/fake-safe-storage.js";

/**
 * The secret store choice against the real OS keychain (Secret Service over D-Bus). CI starts
 * a session bus with an unlocked gnome-keyring (`.ci/run`); elsewhere, without a bus, the suite
 * says so and skips, except under CI=true, where a missing keychain is a failure.
 */
const haveBus = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
if (!haveBus && !process.env.CI) {
  console.warn(
    "keychain choice tests skipped: no D-Bus session (run under dbus-run-session with gnome-keyring)",
  );
}

describe.runIf(haveBus || process.env.CI)("secret store choice with a keychain", () => {
  const service = `Gatehouse-test-${randomBytes(4).toString("hex")}`;
  const keychain = createKeychain(service);
  const dirs: string[] = [];
  const fallback = () => {
    const dir = mkdtempSync(join(tmpdir(), "gh-keychain-"));
    dirs.push(dir);
    return join(dir, "secrets.json");
  };
  const clear = () => {
    for (const { account } of keychain.list()) keychain.delete(account);
  };
  afterEach(() => {
    clear();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  afterAll(clear);

  it("chooses the keychain after a round trip through it, and leaves no probe behind", () => {
    expect(probeKeyring(keychain)).toBeNull();
    const choice = chooseSecretStore({
      keyring: keychain,
      safeStorage: fakeSafeStorage("basic_text"),
      fallbackFile: fallback(),
      platform: "linux",
    });
    expect(choice).toMatchObject({ ok: true, kind: "keychain", moved: 0 });
    if (!choice.ok) throw new Error("no store");
    expect(choice.store).toBe(keychain);
    expect(keychain.list()).toEqual([]);
    choice.store.set(tokenAccount("AbCdEfGhIjKlMnOpQrStUv"), "a manage token");
    expect(keychain.get(tokenAccount("AbCdEfGhIjKlMnOpQrStUv"))).toBe("a manage token");
  });

  it("moves what an earlier run kept in the encrypted file into the keychain, keychain values first", () => {
    const file = fallback();
    const safeStorage = fakeSafeStorage("kwallet6");
    const earlier = createEncryptedFileStore(file, safeStorage);
    earlier.set("operator:proxy-admin", "proxy password from the file");
    earlier.set("operator:parcel-admin", "parcel password from the file");
    keychain.set("operator:parcel-admin", "parcel password in the keychain");

    const choice = chooseSecretStore({ keyring: keychain, safeStorage, fallbackFile: file });
    expect(choice).toMatchObject({ ok: true, kind: "keychain", moved: 1 });
    expect(existsSync(file)).toBe(false);
    expect(keychain.get("operator:proxy-admin")).toBe("proxy password from the file");
    expect(keychain.get("operator:parcel-admin")).toBe("parcel password in the keychain");
  });

  it("leaves an encrypted file it cannot read where it is", () => {
    const file = fallback();
    createEncryptedFileStore(file, fakeSafeStorage("kwallet6")).set("operator:proxy-admin", "x1");
    // Another key: the file is someone else's to read (or a backend that changed).
    const choice = chooseSecretStore({
      keyring: keychain,
      safeStorage: fakeSafeStorage("kwallet6"),
      fallbackFile: file,
    });
    expect(choice).toMatchObject({ ok: true, kind: "keychain", moved: 0 });
    expect(existsSync(file)).toBe(true);
    expect(keychain.get("operator:proxy-admin")).toBeNull();
  });
});
