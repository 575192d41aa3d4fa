/**
 * Pickup code input rules (CONTRACT 2.1): Crockford base32, case-insensitive, spaces and
 * dashes ignored, I/L read as 1 and O as 0.
 */
export function normalizeInput(text: string): string {
  return text
    .toUpperCase()
    .replace(/[IL]/g, "1")
    .replace(/O/g, "0")
    .replace(/[^0-9A-Z]/g, "");
}

/** Groups as the service shows codes: `ABC-123` for 6 characters, groups of 4 otherwise. */
export function groupCode(plain: string, length: number): string {
  const size = length === 6 && plain.length <= 6 ? 3 : 4;
  const parts: string[] = [];
  for (let i = 0; i < plain.length; i += size) parts.push(plain.slice(i, i + size));
  return parts.join("-");
}
