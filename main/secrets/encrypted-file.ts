import { existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { ensurePrivateDir, writePrivateFile } from "../../server/private-files.js";
import { checkAccount, type SecretStore } from "./keychain.js";

/**
 * The shape of Electron's `safeStorage` this module needs. Passed in, so Node tests can give
 * a stand-in that really encrypts; the desktop passes Electron's own object.
 */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  /** Linux only: which OS facility protects the key (`basic_text` means none does). */
  getSelectedStorageBackend?(): string;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

interface FileContent {
  version: 1;
  /** Account → base64 of the safeStorage ciphertext. */
  secrets: Record<string, string>;
}

function emptyContent(): FileContent {
  return { version: 1, secrets: {} };
}

function readContent(file: string): FileContent {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return emptyContent();
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<FileContent>;
  if (parsed.version !== 1 || typeof parsed.secrets !== "object" || parsed.secrets === null) {
    throw new Error(`${file} is not a Gatehouse secrets file`);
  }
  return { version: 1, secrets: { ...parsed.secrets } };
}

/** Replaces the file in one step, so a crash mid-write never leaves half a file behind. */
function writeContent(file: string, content: FileContent): void {
  ensurePrivateDir(dirname(file));
  const temp = `${file}.${process.pid}.tmp`;
  writePrivateFile(temp, `${JSON.stringify(content, null, 1)}\n`);
  renameSync(temp, file);
}

/**
 * Secrets encrypted with Electron's safeStorage and kept in one private file (0600 in a 0700
 * directory). Used only where no Secret Service answers and safeStorage's key itself is held
 * by an OS facility (KWallet, libsecret, Keychain, DPAPI): the ciphertext alone is worthless
 * to anyone who copies the file. Callers decide that (see `chooseSecretStore`).
 */
export function createEncryptedFileStore(file: string, safeStorage: SafeStorageLike): SecretStore {
  const decrypt = (value: string): string =>
    safeStorage.decryptString(Buffer.from(value, "base64"));
  return {
    get(account) {
      checkAccount(account);
      const value = readContent(file).secrets[account];
      return value === undefined ? null : decrypt(value);
    },
    set(account, secret) {
      checkAccount(account);
      if (!secret) throw new Error("refusing to store an empty secret");
      const content = readContent(file);
      content.secrets[account] = safeStorage.encryptString(secret).toString("base64");
      writeContent(file, content);
    },
    delete(account) {
      checkAccount(account);
      const content = readContent(file);
      if (!(account in content.secrets)) return false;
      delete content.secrets[account];
      writeContent(file, content);
      return true;
    },
    list() {
      return Object.entries(readContent(file).secrets).map(([account, value]) => ({
        account,
        secret: decrypt(value),
      }));
    },
  };
}

/**
 * Moves what an earlier run kept in the encrypted file into the keychain (a keyring installed
 * since), then removes the file. Accounts the keychain already holds keep the keychain's
 * value. Returns how many secrets moved; a file that cannot be decrypted is left alone.
 */
export function moveFileSecretsToKeychain(
  file: string,
  safeStorage: SafeStorageLike | null,
  keychain: SecretStore,
): number {
  if (!existsSync(file) || !safeStorage?.isEncryptionAvailable()) return 0;
  let entries: Array<{ account: string; secret: string }>;
  try {
    entries = createEncryptedFileStore(file, safeStorage).list();
  } catch {
    return 0;
  }
  let moved = 0;
  for (const { account, secret } of entries) {
    if (keychain.get(account) !== null) continue;
    keychain.set(account, secret);
    moved++;
  }
  rmSync(file, { force: true });
  return moved;
}
