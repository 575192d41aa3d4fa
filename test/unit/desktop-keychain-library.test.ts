import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chooseSecretStore, noKeychainMessage } from "../../main/secrets/choose.js";
import { createKeychain, loadKeyring } from "../../main/secrets/keychain.js";
import { fakeSafeStorage } from "../helpers/fake-safe-storage.js";

/**
 * The keychain library loaded on demand: a platform package that is missing (an Intel dmg
 * built on an Apple Silicon runner) is a module that throws when it is loaded, like the
 * loader napi-rs generates. The app must reach the safeStorage path with a clear reason.
 */

const require = createRequire(import.meta.url);
let dir = "";

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gh-keyring-lib-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A CommonJS module that fails to load the way @napi-rs/keyring's index.js does. */
function throwingModule(): string {
  const file = join(dir, "keyring-without-binding.cjs");
  writeFileSync(
    file,
    'throw new Error("Cannot find native binding. npm has a bug related to optional dependencies\\n    at Object.<anonymous> (index.js:1:1)");\n',
  );
  return file;
}

describe("loading the keychain library", () => {
  it("answers the failure instead of throwing, first line only", () => {
    const file = throwingModule();
    const loaded = loadKeyring(() => require(file));
    expect(loaded).toEqual({
      ok: false,
      reason:
        "the keychain library could not be loaded: Cannot find native binding. npm has a bug related to optional dependencies",
    });
  });

  it("refuses a module that is not the keychain library", () => {
    expect(loadKeyring(() => ({ Entry: 1 }))).toMatchObject({ ok: false });
  });

  it("gives a keychain that refuses every call with the reason", () => {
    const keychain = createKeychain(
      "Gatehouse-test",
      loadKeyring(() => require(throwingModule())),
    );
    for (const call of [
      () => keychain.get("a"),
      () => keychain.set("a", "b"),
      () => keychain.delete("a"),
      () => keychain.list(),
    ])
      expect(call).toThrow(
        /^keychain: the keychain library could not be loaded: Cannot find native binding/,
      );
  });

  it("loads the real library of this machine", () => {
    const loaded = loadKeyring();
    expect(loaded.ok).toBe(true);
  });
});

describe("choosing where secrets go when the library does not load", () => {
  it("keeps them with safeStorage and says the library is why", () => {
    const choice = chooseSecretStore({
      keyring: loadKeyring(() => require(throwingModule())),
      safeStorage: fakeSafeStorage(null),
      fallbackFile: join(dir, "secrets.json"),
      platform: "darwin",
    });
    expect(choice).toMatchObject({ ok: true, kind: "encrypted-file", cause: "library" });
    if (!choice.ok || choice.kind !== "encrypted-file") throw new Error("unreachable");
    expect(choice.reason).toMatch(
      /keychain library could not be loaded: Cannot find native binding/,
    );
    choice.store.set("parcel:AbCdEfGhIjKlMnOpQrStUv", "token-1");
    expect(choice.store.get("parcel:AbCdEfGhIjKlMnOpQrStUv")).toBe("token-1");
  });

  it("refuses with what to do when safeStorage cannot keep them either", () => {
    const choice = chooseSecretStore({
      keyring: loadKeyring(() => require(throwingModule())),
      safeStorage: fakeSafeStorage("basic_text"),
      fallbackFile: join(dir, "secrets.json"),
      platform: "linux",
    });
    expect(choice).toMatchObject({
      ok: false,
      message: noKeychainMessage("linux", "library"),
    });
    expect(noKeychainMessage("linux", "library")).toMatch(/build made for this computer/);
  });
});
