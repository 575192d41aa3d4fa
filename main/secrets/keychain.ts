import { Entry, findCredentials } from "@napi-rs/keyring";

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

export function createKeychain(service: string = KEYCHAIN_SERVICE): SecretStore {
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
