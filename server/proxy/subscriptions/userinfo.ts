import type { SubscriptionUsage } from "../types.js";

type HeaderValue = string | string[] | undefined | null;

function single(value: HeaderValue): string | null {
  if (value === undefined || value === null) return null;
  return Array.isArray(value) ? value.join(";") : value;
}

/** A byte count: floats and exponents happen in the wild; negative or junk is not a number. */
function amount(raw: string): number | null {
  const text = raw.trim().replace(/^"(.*)"$/, "$1");
  if (!text) return null;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0) return null;
  return Math.round(n);
}

/**
 * `subscription-userinfo: upload=1; download=2; total=3; expire=1700000000`, in every shape
 * providers send: any key case, spaces, `;` or `,` separators, empty or float fields.
 * Missing byte fields are 0, a missing or zero expiry is null (providers write 0 for
 * "never"); null overall only when no field parses.
 */
export function parseUserinfo(value: HeaderValue): SubscriptionUsage | null {
  const text = single(value);
  if (!text) return null;
  const usage: SubscriptionUsage = { upload: 0, download: 0, total: 0, expire: null };
  let found = false;
  for (const part of text.split(/[;,]/)) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim().toLowerCase();
    if (key !== "upload" && key !== "download" && key !== "total" && key !== "expire") continue;
    const raw = part.slice(eq + 1);
    if (!raw.trim()) {
      found = true; // an empty field is still a field of a real header
      continue;
    }
    const n = amount(raw);
    if (n === null) continue;
    found = true;
    if (key === "expire") usage.expire = n > 0 ? n : null;
    else usage[key] = n;
  }
  return found ? usage : null;
}

/** `profile-update-interval: 24` (hours); null when absent, junk or not positive. */
export function parseUpdateInterval(value: HeaderValue): number | null {
  const text = single(value)?.trim();
  if (!text) return null;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) return null;
  return Math.max(1, Math.round(n));
}

function decodeExtValue(raw: string): string | null {
  // RFC 5987: charset'language'percent-encoded
  const m = /^([^']*)'[^']*'(.*)$/.exec(raw);
  if (!m) return null;
  const charset = (m[1] ?? "").toLowerCase();
  const encoded = m[2] ?? "";
  try {
    if (charset === "utf-8" || charset === "utf8" || charset === "") {
      return decodeURIComponent(encoded);
    }
    if (charset === "iso-8859-1" || charset === "latin1") {
      return encoded.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) =>
        String.fromCharCode(parseInt(h, 16)),
      );
    }
  } catch {
    return null;
  }
  return null;
}

/** Splits header parameters, honouring quoted strings (which may hold `;`). */
function params(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /;\s*([^=;\s]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g;
  for (const m of text.matchAll(re)) {
    const key = (m[1] ?? "").toLowerCase();
    let val = (m[2] ?? "").trim();
    if (val.startsWith('"')) val = val.slice(1, -1).replace(/\\(.)/g, "$1");
    if (!out.has(key)) out.set(key, val);
  }
  return out;
}

/** The file name a `content-disposition` header suggests; `filename*` wins over `filename`. */
export function parseContentDisposition(value: HeaderValue): string | null {
  const text = single(value);
  if (!text) return null;
  const p = params(";" + text.replace(/^[^;=]*(;|$)/, ""));
  const ext = p.get("filename*");
  if (ext) {
    const decoded = decodeExtValue(ext);
    if (decoded && decoded.trim()) return decoded.trim();
  }
  const plain = p.get("filename");
  if (plain && plain.trim()) {
    let name = plain.trim();
    try {
      // Many providers percent-encode the plain parameter too.
      if (/%[0-9a-fA-F]{2}/.test(name)) name = decodeURIComponent(name);
    } catch {
      // keep it as sent
    }
    return name;
  }
  return null;
}
