import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { SafeStorageLike } from "../../main/secrets/encrypted-file.js";

/**
 * A stand-in for Electron's safeStorage that really encrypts (AES-256-GCM with the given key),
 * so a test can tell ciphertext from plain text and a wrong key from the right one.
 * `backend` null behaves like macOS and Windows, which have no backend to report.
 */
export function fakeSafeStorage(
  backend: string | null,
  key: Buffer = randomBytes(32),
  available = true,
): SafeStorageLike {
  const storage: SafeStorageLike = {
    isEncryptionAvailable: () => available,
    encryptString(plainText) {
      if (!available) throw new Error("Encryption is not available.");
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plainText, "utf8"), cipher.final()]);
      return Buffer.concat([Buffer.from("v11"), iv, cipher.getAuthTag(), body]);
    },
    decryptString(encrypted) {
      if (encrypted.subarray(0, 3).toString() !== "v11") throw new Error("not encrypted here");
      const decipher = createDecipheriv("aes-256-gcm", key, encrypted.subarray(3, 15));
      decipher.setAuthTag(encrypted.subarray(15, 31));
      return Buffer.concat([decipher.update(encrypted.subarray(31)), decipher.final()]).toString(
        "utf8",
      );
    },
  };
  if (backend !== null) storage.getSelectedStorageBackend = () => backend;
  return storage;
}
