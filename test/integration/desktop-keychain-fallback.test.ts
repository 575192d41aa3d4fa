import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  chooseSecretStore,
  NO_KEYCHAIN,
  noKeychainMessage,
  SecretStoreUnavailable,
  unavailableStore,
} from "../../main/secrets/choose.js";
import { createEncryptedFileStore } from "../../main/secrets/encrypted-file.js";
import type { SecretStore } from "../../main/secrets/keychain.js";
import { fakeSafeStorage } from "../helpers/fake-safe-storage.js";

/**
 * Where no Secret Service answers: secrets go to a safeStorage-encrypted private file only
 * when safeStorage's key is held by the OS, and are refused otherwise. The first tests run the
 * real @napi-rs/keyring in a child process that has no session bus; the others give the
 * chooser a keychain that fails the way that one does.
 */

const execFileAsync = promisify(execFile);
const posix = process.platform !== "win32";
const ID = "parcel:AbCdEfGhIjKlMnOpQrStUv";
let dir = "";

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gh-secrets-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

/** Runs the chooser with the real keyring in a process without any session bus. */
async function chooseWithoutBus(file: string, backend: string, key: Buffer) {
  const noBus = join(dir, "no-bus");
  mkdirSync(noBus, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_RUNTIME_DIR: noBus };
  delete env.DBUS_SESSION_BUS_ADDRESS;
  env.GATEHOUSE_TEST_KEY = key.toString("hex");
  const { stdout } = await execFileAsync(
    process.execPath,
    [
      "--import",
      "tsx",
      "test/fixtures/desktop-secret-choice.ts",
      file,
      backend,
      `Gatehouse-test-${randomBytes(4).toString("hex")}`,
    ],
    { env, timeout: 20_000 },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as Record<string, unknown>;
}

/** A keychain that fails like @napi-rs/keyring does when no Secret Service answers. */
function missingKeychain(): SecretStore {
  const fail = (): never => {
    throw new Error("keychain: Couldn't access platform storage: Secret Service: no result found");
  };
  return { get: fail, set: fail, delete: fail, list: fail };
}

describe.skipIf(!posix)("secret store without a Secret Service (real keyring, no bus)", () => {
  it("keeps secrets encrypted in a 0600 file when safeStorage's key is held by KWallet", async () => {
    const key = randomBytes(32);
    const file = join(dir, "user-data", "secrets.json");
    const result = await chooseWithoutBus(file, "kwallet6", key);
    expect(result).toEqual({ ok: true, kind: "encrypted-file", readBack: "the manage token" });
    expect(mode(file)).toBe(0o600);
    expect(mode(join(dir, "user-data"))).toBe(0o700);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain("the manage token");
    // The same key reads it; another key cannot.
    expect(createEncryptedFileStore(file, fakeSafeStorage("kwallet6", key)).get(ID)).toBe(
      "the manage token",
    );
    expect(() =>
      createEncryptedFileStore(file, fakeSafeStorage("kwallet6", randomBytes(32))).get(ID),
    ).toThrow();
  });

  it("refuses, and says what to install, when safeStorage would only obscure (basic_text)", async () => {
    const file = join(dir, "user-data", "secrets.json");
    const result = await chooseWithoutBus(file, "basic_text", randomBytes(32));
    expect(result).toEqual({
      ok: false,
      code: NO_KEYCHAIN,
      message:
        "No keychain is available: install and unlock gnome-keyring (or KWallet) and restart Gatehouse.",
      reason: expect.stringMatching(/platform storage.*basic_text/),
    });
    expect(existsSync(file)).toBe(false);
  });
});

describe("secret store choice when the keychain fails", () => {
  const file = () => join(dir, "secrets.json");

  it("refuses for every safeStorage that cannot protect a key, and writes nothing", () => {
    for (const safeStorage of [
      null,
      fakeSafeStorage("basic_text"),
      fakeSafeStorage("unknown"),
      fakeSafeStorage("gnome_libsecret", randomBytes(32), false),
      fakeSafeStorage(null, randomBytes(32), false),
    ]) {
      const choice = chooseSecretStore({
        keyring: missingKeychain(),
        safeStorage,
        fallbackFile: file(),
        platform: "linux",
      });
      expect(choice).toMatchObject({ ok: false, code: NO_KEYCHAIN });
    }
    expect(existsSync(file())).toBe(false);
  });

  it("uses safeStorage where no backend is reported (macOS, Windows) and it can encrypt", () => {
    const choice = chooseSecretStore({
      keyring: missingKeychain(),
      safeStorage: fakeSafeStorage(null),
      fallbackFile: file(),
      platform: "darwin",
    });
    expect(choice).toMatchObject({ ok: true, kind: "encrypted-file", file: file() });
  });

  it("names the platform's own keychain in the refusal", () => {
    expect(noKeychainMessage("linux")).toMatch(/gnome-keyring \(or KWallet\)/);
    expect(noKeychainMessage("darwin")).toMatch(/Keychain Access/);
    expect(noKeychainMessage("win32")).toMatch(/Credential Manager/);
  });

  it("stands in with a store whose every call refuses with the sentence and code", () => {
    const choice = chooseSecretStore({
      keyring: missingKeychain(),
      safeStorage: fakeSafeStorage("basic_text"),
      fallbackFile: file(),
      platform: "linux",
    });
    if (choice.ok) throw new Error("expected a refusal");
    const store = unavailableStore(choice);
    for (const call of [
      () => store.get(ID),
      () => store.set(ID, "x"),
      () => store.delete(ID),
      () => store.list(),
    ]) {
      expect(call).toThrow(SecretStoreUnavailable);
      expect(call).toThrow(choice.message);
    }
  });
});

describe("encrypted secrets file", () => {
  it("stores, lists, replaces and deletes secrets, each encrypted on its own", () => {
    const file = join(dir, "nested", "secrets.json");
    const store = createEncryptedFileStore(file, fakeSafeStorage("kwallet6"));
    expect(store.get(ID)).toBeNull();
    expect(store.list()).toEqual([]);
    store.set(ID, "first token");
    store.set("operator:proxy-admin", "proxy password");
    store.set(ID, "second token");
    expect(store.get(ID)).toBe("second token");
    expect(store.list()).toEqual([
      { account: ID, secret: "second token" },
      { account: "operator:proxy-admin", secret: "proxy password" },
    ]);
    const text = readFileSync(file, "utf8");
    expect(text).not.toMatch(/token|password/);
    expect(store.delete(ID)).toBe(true);
    expect(store.delete(ID)).toBe(false);
    expect(store.list()).toEqual([{ account: "operator:proxy-admin", secret: "proxy password" }]);
    if (posix) expect(mode(file)).toBe(0o600);
    // Written whole each time: no temporary file stays beside it.
    expect(readFileSync(file, "utf8")).toContain('"version": 1');
    expect(existsSync(`${file}.${process.pid}.tmp`)).toBe(false);
  });

  it("refuses odd account names and empty secrets like the keychain does", () => {
    const store = createEncryptedFileStore(join(dir, "s.json"), fakeSafeStorage("kwallet6"));
    expect(() => store.set("x y", "secret")).toThrow(/invalid keychain account/);
    expect(() => store.set(ID, "")).toThrow(/empty secret/);
  });
});
