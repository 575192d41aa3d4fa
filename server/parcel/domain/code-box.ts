import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * A parcel's pickup code sealed for its owner: AES-256-GCM under a key derived (HKDF-SHA256)
 * from the parcel's manage token. The service stores only a hash of the token, so the box it
 * keeps opens only when the owner presents the token again: the code is never stored in a
 * form the service (or anyone reading its database) can read. Bound to the parcel id, so a
 * box copied to another parcel does not open.
 */

const VERSION = "v1";

function keyOf(token: string, parcelId: string): Buffer {
  return Buffer.from(hkdfSync("sha256", token, parcelId, "gatehouse pickup code box", 32));
}

/** Seals `code` with a key only `token` gives. */
export function sealCode(token: string, parcelId: string, code: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyOf(token, parcelId), iv);
  cipher.setAAD(Buffer.from(parcelId, "utf8"));
  const sealed = Buffer.concat([cipher.update(code, "utf8"), cipher.final()]);
  return [VERSION, iv, sealed, cipher.getAuthTag()]
    .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
    .join(".");
}

/** The code in `box`, or null when it does not open with `token` (or is not a box). */
export function openCode(box: string, token: string, parcelId: string): string | null {
  const parts = box.split(".");
  if (parts.length !== 4 || parts[0] !== VERSION) return null;
  try {
    const [iv, sealed, tag] = parts.slice(1).map((p) => Buffer.from(p, "base64url"));
    const decipher = createDecipheriv("aes-256-gcm", keyOf(token, parcelId), iv);
    decipher.setAAD(Buffer.from(parcelId, "utf8"));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
