import { randomBytes } from "node:crypto";
import {
  createEncryptedFileStore,
  moveFileSecretsToKeychain,
  type SafeStorageLike,
} from "./encrypted-file.js";
import { createKeychain, type LoadedKeyring, type SecretStore } from "./keychain.js";

/**
 * Where the desktop keeps its secrets (manage tokens, the operator's passwords):
 * 1. the OS keychain, when a real write/read/delete round trip through it works;
 * 2. otherwise values encrypted with Electron's safeStorage in a private file, but only when
 *    safeStorage's key is itself held by the OS (its Linux backend is not `basic_text`);
 * 3. otherwise nothing: a refusal that says what to install. Secrets are never written in
 *    plain text, and safeStorage's `basic_text` backend is plain text with extra steps (its
 *    key is a constant compiled into Chromium).
 */

export const NO_KEYCHAIN = "secrets.no_keychain";

export interface SecretStoreRefusal {
  ok: false;
  code: typeof NO_KEYCHAIN;
  /** One sentence for the window: what is missing and what to install. */
  message: string;
  /** Why each option failed, for the log (never contains a secret). */
  reason: string;
}

export type SecretStoreChoice =
  | {
      ok: true;
      kind: "keychain";
      store: SecretStore;
      /** secrets moved in from the file */ moved: number;
    }
  | {
      ok: true;
      kind: "encrypted-file";
      store: SecretStore;
      file: string;
      reason: string;
      /** Why no keychain: its library does not load on this computer, or it did not answer. */
      cause: KeychainCause;
    }
  | SecretStoreRefusal;

export type KeychainCause = "library" | "keychain";

export interface ChooseSecretStoreOptions {
  /**
   * The keychain store (`createKeychain()`), probed before it is trusted; or the outcome of
   * loading its library (`loadKeyring()`), which makes one when the library loaded.
   */
  keyring: SecretStore | LoadedKeyring;
  /** The keychain's service name when `keyring` is a load outcome (default `Gatehouse`). */
  service?: string;
  /** Electron's safeStorage (after the app is ready), or null where there is none. */
  safeStorage: SafeStorageLike | null;
  /** Where the encrypted fallback lives (in the app's user-data directory). */
  fallbackFile: string;
  platform?: NodeJS.Platform;
}

const PROBE_PREFIX = "probe:";

/** The sentence the window shows when secrets cannot be kept safely. */
export function noKeychainMessage(
  platform: NodeJS.Platform = process.platform,
  cause: KeychainCause = "keychain",
): string {
  if (cause === "library")
    return "No keychain is available: this installer's keychain library does not work on this computer (it was built for another processor). Install the Gatehouse build made for this computer.";
  if (platform === "darwin")
    return "No keychain is available: unlock your login keychain in Keychain Access and restart Gatehouse.";
  if (platform === "win32")
    return "No keychain is available: Windows Credential Manager did not answer; sign in to Windows with your own account and restart Gatehouse.";
  return "No keychain is available: install and unlock gnome-keyring (or KWallet) and restart Gatehouse.";
}

/**
 * Writes, reads back and deletes a random probe secret. Returns null when the keychain works,
 * else what went wrong. A locked or missing Secret Service fails here, at start, instead of
 * on the first token the operator wants to keep.
 */
export function probeKeyring(keyring: SecretStore): string | null {
  const account = `${PROBE_PREFIX}${randomBytes(6).toString("hex")}`;
  const value = randomBytes(16).toString("base64url");
  try {
    keyring.set(account, value);
    const read = keyring.get(account);
    const deleted = keyring.delete(account);
    if (read !== value) return "the keychain did not give back what was stored";
    if (!deleted || keyring.get(account) !== null) return "the keychain did not delete a secret";
    return null;
  } catch (err) {
    try {
      keyring.delete(account);
    } catch {
      // Nothing was stored, or the keychain is gone: either way nothing to clean up.
    }
    return (err as Error).message.split("\n")[0];
  }
}

/** Why safeStorage cannot protect secrets here, or null when it can. */
export function safeStorageProblem(safeStorage: SafeStorageLike | null): string | null {
  if (!safeStorage) return "safeStorage is not available";
  if (!safeStorage.isEncryptionAvailable()) return "safeStorage cannot encrypt";
  const backend = safeStorage.getSelectedStorageBackend?.();
  // `unknown` is what Electron answers before the app is ready: nothing is known to hold the key.
  if (backend === "basic_text" || backend === "unknown")
    return `safeStorage's backend is ${backend} (no OS store holds its key)`;
  return null;
}

function isLoadOutcome(keyring: SecretStore | LoadedKeyring): keyring is LoadedKeyring {
  return typeof (keyring as Partial<LoadedKeyring>).ok === "boolean";
}

export function chooseSecretStore(options: ChooseSecretStoreOptions): SecretStoreChoice {
  const given = options.keyring;
  // A library that did not load is not probed: its reason is the answer, and a clear one.
  const cause: KeychainCause = isLoadOutcome(given) && !given.ok ? "library" : "keychain";
  const keyring = isLoadOutcome(given) ? createKeychain(options.service, given) : given;
  const keychainProblem = isLoadOutcome(given) && !given.ok ? given.reason : probeKeyring(keyring);
  if (keychainProblem === null) {
    let moved = 0;
    try {
      moved = moveFileSecretsToKeychain(options.fallbackFile, options.safeStorage, keyring);
    } catch {
      // The file stays for a later start; the keychain itself works.
    }
    return { ok: true, kind: "keychain", store: keyring, moved };
  }
  const storageProblem = safeStorageProblem(options.safeStorage);
  if (storageProblem === null && options.safeStorage) {
    return {
      ok: true,
      kind: "encrypted-file",
      store: createEncryptedFileStore(options.fallbackFile, options.safeStorage),
      file: options.fallbackFile,
      reason: keychainProblem,
      cause,
    };
  }
  return {
    ok: false,
    code: NO_KEYCHAIN,
    message: noKeychainMessage(options.platform, cause),
    reason: `${keychainProblem}; ${storageProblem}`,
  };
}

/** Thrown by the store that stands in when secrets cannot be kept (see `unavailableStore`). */
export class SecretStoreUnavailable extends Error {
  readonly code = NO_KEYCHAIN;
  constructor(message: string) {
    super(message);
    this.name = "SecretStoreUnavailable";
  }
}

/**
 * The store to use after a refusal: every call throws `SecretStoreUnavailable` with the
 * refusal's sentence, so each place that wanted a secret says the same thing.
 */
export function unavailableStore(refusal: SecretStoreRefusal): SecretStore {
  const refuse = (): never => {
    throw new SecretStoreUnavailable(refusal.message);
  };
  return { get: refuse, set: refuse, delete: refuse, list: refuse };
}
