import type { Share } from "../../contract/parcel-views.js";
import { DomainError } from "../../domain-errors.js";
import type { ParcelDomain } from "./ports.js";
import type { ParcelRow } from "../repos/parcels.js";
import { formatCode, generateCode, normalizeCode } from "./codes.js";
import { sealCode } from "./code-box.js";
import { hmacHex } from "./secrets.js";

/** Where a parcel is picked up: the wire shape the contract names `Share`. */
export type ShareFields = Share;

/**
 * Keyed hash stored in `parcels.code_hash`. Input is normalised first (case, `-`, spaces,
 * I/L/O); input that cannot be a code is hashed as given, which matches nothing.
 */
export function codeHash(ctx: ParcelDomain, code: string): string {
  return hmacHex(ctx.keys.code, normalizeCode(code) ?? code);
}

/** The inbox key as the code box takes it (a secret string, never shown). */
export function inboxKey(ctx: ParcelDomain): string {
  return ctx.keys.inbox.toString("base64url");
}

const CODE_TRIES = 50;

/** How many of a code's last characters are kept readable, to tell parcels apart. */
export const CODE_TAIL = 2;

/**
 * Issues a fresh pickup code for a parcel: stores its keyed hash and bumps `code_gen`, so the
 * previous code and every pickup cookie bound to it stop working at once. The code is unique
 * among parcels that can still be picked up (published or review), and never the parcel's own
 * current code. Besides the hash, only its last characters are kept, and, when the request
 * carried the parcel's manage token (`ownerToken`, the code goes to its holder), the code
 * sealed with that token so the owner can see it again (code-box.ts); issued without the
 * token, the code cannot be shown again to anyone, except for a parcel sent to the inbox:
 * its code is sealed with the inbox key too, for the administrator (`GET /admin/inbox`). The
 * code is never the inbox's own. Returns the plain code without separators. Runs in its own
 * (nestable) transaction.
 */
export function issueCode(
  ctx: ParcelDomain,
  parcelId: string,
  ownerToken: string | null = null,
): string {
  const length = ctx.policy().code_length;
  const { sessions, inbox } = ctx.repos;
  return ctx.repos.transaction(() => {
    const inboxCode = inbox.get().code_hash;
    for (let i = 0; i < CODE_TRIES; i++) {
      const code = generateCode(length);
      const hash = codeHash(ctx, code);
      if (sessions.codeTaken(hash) || hash === inboxCode) continue;
      const box = ownerToken === null ? null : sealCode(ownerToken, parcelId, code);
      if (!sessions.storeCode(parcelId, { hash, tail: code.slice(-CODE_TAIL), box }))
        throw new DomainError("not_found", "parcel.not_found", "No such parcel");
      inbox.storeCodeBox(parcelId, sealCode(inboxKey(ctx), parcelId, code));
      return code;
    }
    // 32^6 codes: only reachable when the code space is practically full.
    throw new DomainError(
      "limit",
      "storage.no_code",
      "No free pickup code is available; try again later",
    );
  });
}

/**
 * Share fields: `url` on `origin` (the entry the request came through), `urls` one per
 * entry. With a code they point at `#/pickup/<code>`, without one at the pickup page.
 */
export function shareFields(
  ctx: ParcelDomain,
  origin: string,
  code: string | null,
  parcel: Pick<ParcelRow, "expires_at" | "downloads_left">,
): ShareFields {
  const plain = code === null ? null : (normalizeCode(code) ?? code);
  const suffix = plain === null ? "/#/pickup" : `/#/pickup/${plain}`;
  const out: ShareFields = {
    url: `${origin}${suffix}`,
    urls: ctx.entries.list.map((e) => ({
      label: e.label,
      url: `${e.origin}${suffix}`,
    })),
    expires_at: parcel.expires_at,
    downloads_left: parcel.downloads_left,
  };
  return plain === null ? out : { code: formatCode(plain), ...out };
}
