import { createHmac, timingSafeEqual } from "node:crypto";
import { randomId } from "./secrets.js";

/**
 * A `manage_token`: 128 random bits and an HMAC binding them to the parcel id, keyed with a
 * key kept in the database. The parcel row stores only a hash of the token, which is how a
 * token is normally checked. The binding answers the one question the row cannot: after
 * cleanup removed a parcel's record, its owner's token still proves it was issued for that
 * id, so the owner hears that the parcel is gone (404) while a token issued for nothing is
 * refused as an invalid credential (401). Format: the nonce (22 characters) followed by the
 * MAC (43), both base64url, so the token is one plain URL-safe word like any other.
 */
export function issueManageToken(key: Buffer, parcelId: string): string {
  const nonce = randomId(16);
  return `${nonce}${mac(key, parcelId, nonce).toString("base64url")}`;
}

const SHAPE = /^([A-Za-z0-9_-]{22})([A-Za-z0-9_-]{43})$/;

/** Whether `token` was issued by this service for `parcelId` (whether or not it still exists). */
export function issuedFor(key: Buffer, token: string, parcelId: string): boolean {
  const m = SHAPE.exec(token);
  if (!m) return false;
  const given = Buffer.from(m[2], "base64url");
  const expected = mac(key, parcelId, m[1]);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function mac(key: Buffer, parcelId: string, nonce: string): Buffer {
  // The prefix keeps these MACs apart from the pickup cookies signed with the same key.
  return createHmac("sha256", key).update(`manage\n${parcelId}\n${nonce}`).digest();
}
