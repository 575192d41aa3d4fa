import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The `pt_pickup` cookie value: stateless and HMAC-signed with a key kept in the database.
 * It binds the parcel id, the parcel's code generation (`code_gen`, bumped by every new code)
 * and the expiry, so a new code invalidates every cookie issued for the old one at once and
 * nothing has to be stored per recipient. Format: `<id>.<gen>.<exp>.<mac>` (base64url mac).
 */
export interface PickupGrant {
  parcelId: string;
  codeGen: number;
  /** Unix seconds. */
  expiresAt: number;
}

function mac(key: Buffer, g: PickupGrant): Buffer {
  return createHmac("sha256", key)
    .update(`pickup\n${g.parcelId}\n${g.codeGen}\n${g.expiresAt}`)
    .digest();
}

export function signPickup(key: Buffer, g: PickupGrant): string {
  return `${g.parcelId}.${g.codeGen}.${g.expiresAt}.${mac(key, g).toString("base64url")}`;
}

const SHAPE = /^([A-Za-z0-9_-]{1,64})\.(\d{1,12})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/** The grant behind a cookie value whose signature is valid and which has not expired; else null. */
export function verifyPickup(key: Buffer, value: string, now: number): PickupGrant | null {
  const m = SHAPE.exec(value);
  if (!m) return null;
  const grant: PickupGrant = { parcelId: m[1], codeGen: Number(m[2]), expiresAt: Number(m[3]) };
  const given = Buffer.from(m[4], "base64url");
  const expected = mac(key, grant);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  if (grant.expiresAt <= now) return null;
  return grant;
}
