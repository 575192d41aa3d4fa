import { createRequire } from "node:module";

/**
 * Secrets kept in the OS keychain (Secret Service on Linux, Keychain on macOS, Credential
 * Manager on Windows). The desktop app keeps the `manage_token` of every parcel its operator
 * uploads here, one credential per parcel id, so tokens never sit in plain files.
 * This module does not import `electron`: tests load it in Node under D-Bus.
 */
export interface SecretStore {
  get(account: string): string | null;
  set(account: string, secret: string): void;
  delete(account: string): boolean;
  list(): Array<{ account: string; secret: string }>;
}

export const KEYCHAIN_SERVICE = "Gatehouse";

const ACCOUNT = /^[\w.:@/-]{1,200}$/;

export function checkAccount(account: string): void {
  if (!ACCOUNT.test(account))
    throw new Error(`invalid keychain account name: ${JSON.stringify(account)}`);
}

/**
 * The native module's messages carry a Rust backtrace after the first line; only that line
 * says what went wrong ("Couldn't access platform storage: ...").
 */
function keychainCall<T>(call: () => T): T {
  try {
    return call();
  } catch (err) {
    const first = String((err as Error)?.message ?? err).split("\n")[0];
    throw new Error(`keychain: ${first}`, { cause: err });
  }
}

/** The part of `@napi-rs/keyring` used here. */
export interface KeyringBinding {
  Entry: new (
    service: string,
    account: string,
  ) => {
    getPassword(): string | null | undefined;
    setPassword(password: string): void;
    deleteCredential(): boolean;
  };
  findCredentials(service: string): Array<{ account: string; password: string }>;
}

export type LoadedKeyring = { ok: true; binding: KeyringBinding } | { ok: false; reason: string };

const requireHere = createRequire(import.meta.url);

/**
 * Loads `@napi-rs/keyring` when asked, not at start-up: its native part comes in a package per
 * platform (`@napi-rs/keyring-darwin-x64` ...), and an installer built without the right one
 * (an Intel dmg made on an Apple Silicon runner) would otherwise stop the app before any
 * window. A failure is an answer: the keychain then refuses every call with the reason, and
 * the app keeps secrets with safeStorage or says what is missing (see choose.ts).
 */
export function loadKeyring(
  load: () => unknown = () => requireHere("@napi-rs/keyring"),
): LoadedKeyring {
  try {
    const binding = load() as Partial<KeyringBinding> | null;
    if (typeof binding?.Entry !== "function" || typeof binding.findCredentials !== "function")
      return { ok: false, reason: "the keychain library has no Entry or findCredentials" };
    return { ok: true, binding: binding as KeyringBinding };
  } catch (err) {
    const first = String((err as Error)?.message ?? err).split("\n")[0];
    return { ok: false, reason: `the keychain library could not be loaded: ${first}` };
  }
}

/**
 * The OS keychain under `service`. Without a loadable binding every call throws the reason,
 * so probing it fails like a keychain that does not answer.
 */
export function createKeychain(
  service: string = KEYCHAIN_SERVICE,
  loaded: LoadedKeyring = loadKeyring(),
): SecretStore {
  if (!loaded.ok) {
    const refuse = (): never => {
      throw new Error(`keychain: ${loaded.reason}`);
    };
    return { get: refuse, set: refuse, delete: refuse, list: refuse };
  }
  const { Entry, findCredentials } = loaded.binding;
  return {
    get(account) {
      checkAccount(account);
      return keychainCall(() => new Entry(service, account).getPassword() ?? null);
    },
    set(account, secret) {
      checkAccount(account);
      if (!secret) throw new Error("refusing to store an empty secret");
      keychainCall(() => new Entry(service, account).setPassword(secret));
    },
    delete(account) {
      checkAccount(account);
      return keychainCall(() => new Entry(service, account).deleteCredential());
    },
    list() {
      return keychainCall(() =>
        findCredentials(service).map((c) => ({ account: c.account, secret: c.password })),
      );
    },
  };
}

/** Manage tokens are stored under `parcel:<id>`. */
export function tokenAccount(parcelId: string): string {
  return `parcel:${parcelId}`;
}

/** Parcel ids whose manage tokens the store keeps (the operator's own parcels); none on error. */
export function keptParcelIds(store: Pick<SecretStore, "list">): Set<string> {
  const prefix = tokenAccount("");
  try {
    return new Set(
      store
        .list()
        .map((c) => c.account)
        .filter((a) => a.startsWith(prefix))
        .map((a) => a.slice(prefix.length)),
    );
  } catch {
    return new Set();
  }
}
