import type { Request } from "express";
import { HttpError } from "../../http/errors.js";
import type { ParcelContext } from "../context.js";
import type { ParcelRow } from "../repos/parcels.js";
import { formatCode, generateCode, normalizeCode } from "./codes.js";
import { hmacHex } from "./secrets.js";

/** One share address; a page names it in its reader's language from the URL's host. */
export interface ShareUrl {
  label: string;
  url: string;
}

export interface ShareFields {
  /** Display form (`ABC-123`); present only when a new code was just issued. */
  code?: string;
  url: string;
  urls: ShareUrl[];
  expires_at: number;
  downloads_left: number;
}

/**
 * Keyed hash stored in `parcels.code_hash`. Input is normalised first (case, `-`, spaces,
 * I/L/O); input that cannot be a code is hashed as given, which matches nothing.
 */
export function codeHash(ctx: ParcelContext, code: string): string {
  return hmacHex(ctx.keys.code, normalizeCode(code) ?? code);
}

const CODE_TRIES = 50;

/**
 * Issues a fresh pickup code for a parcel: stores only its keyed hash and bumps `code_gen`, so
 * the previous code and every pickup cookie bound to it stop working at once. The code is
 * unique among parcels that can still be picked up (published or review), and never the
 * parcel's own current code. Returns the plain code without separators; it is never readable
 * again. Runs in its own (nestable) transaction.
 */
export function issueCode(ctx: ParcelContext, parcelId: string): string {
  const length = ctx.policy().code_length;
  const taken = ctx.db.prepare(
    "SELECT 1 FROM parcels WHERE code_hash = ? AND state IN ('published','review')",
  );
  const store = ctx.db.prepare(
    "UPDATE parcels SET code_hash = ?, code_gen = code_gen + 1 WHERE id = ?",
  );
  return ctx.db.transaction(() => {
    for (let i = 0; i < CODE_TRIES; i++) {
      const code = generateCode(length);
      const hash = codeHash(ctx, code);
      if (taken.get(hash)) continue;
      if (store.run(hash, parcelId).changes !== 1)
        throw new HttpError(404, "parcel.not_found", "No such parcel");
      return code;
    }
    // 32^6 codes: only reachable when the code space is practically full.
    throw new HttpError(
      507,
      "storage.no_code",
      "No free pickup code is available; try again later",
    );
  })();
}

/**
 * Share fields: `url` on the entry the request came through, `urls` one per
 * entry. With a code they point at `#/pickup/<code>`, without one at the pickup page.
 */
export function shareFields(
  ctx: ParcelContext,
  req: Request,
  code: string | null,
  parcel: Pick<ParcelRow, "expires_at" | "downloads_left">,
): ShareFields {
  const plain = code === null ? null : (normalizeCode(code) ?? code);
  const suffix = plain === null ? "/#/pickup" : `/#/pickup/${plain}`;
  const out: ShareFields = {
    url: `${ctx.entryFor(req).origin}${suffix}`,
    urls: ctx.entries.list.map((e) => ({
      label: e.label,
      url: `${e.origin}${suffix}`,
    })),
    expires_at: parcel.expires_at,
    downloads_left: parcel.downloads_left,
  };
  return plain === null ? out : { code: formatCode(plain), ...out };
}
