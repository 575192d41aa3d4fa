import { randomInt } from "node:crypto";

/** Crockford base32: 0-9 A-Z without I L O U. */
export const CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

export function generateCode(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return out;
}

/**
 * Normalises user input: case-insensitive, spaces and `-` ignored, I/L -> 1, O -> 0.
 * Returns null when anything outside the alphabet remains (such a code cannot exist).
 */
export function normalizeCode(input: string): string | null {
  const s = input
    .toUpperCase()
    .replace(/[\s-]+/g, "")
    .replace(/[IL]/g, "1")
    .replace(/O/g, "0");
  if (s.length === 0 || s.length > 64) return null;
  for (const ch of s) if (!CODE_ALPHABET.includes(ch)) return null;
  return s;
}

/** Display form: `ABC-123` for 6 characters, groups of 4 otherwise. */
export function formatCode(code: string): string {
  const size = code.length === 6 ? 3 : 4;
  const groups: string[] = [];
  for (let i = 0; i < code.length; i += size) groups.push(code.slice(i, i + size));
  return groups.join("-");
}
