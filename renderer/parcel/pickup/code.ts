/**
 * Pickup code input rules: Crockford base32, case-insensitive, spaces and
 * dashes ignored, I/L read as 1 and O as 0.
 */
export function normalizeInput(text: string): string {
  return text
    .toUpperCase()
    .replace(/[IL]/g, "1")
    .replace(/O/g, "0")
    .replace(/[^0-9A-Z]/g, "");
}

/**
 * Groups as the service shows codes: `ABC-123` for 6 characters, groups of 4 for longer ones.
 * Decided by what was typed, not the current policy: codes issued before an administrator
 * changed `code_length` keep their length.
 */
export function groupCode(plain: string): string {
  const size = plain.length <= 6 ? 3 : 4;
  const parts: string[] = [];
  for (let i = 0; i < plain.length; i += size) parts.push(plain.slice(i, i + size));
  return parts.join("-");
}

export const MIN_CODE = 6;
export const MAX_CODE = 16;

/** How a pickup code is typed: grouped as it is shown, the code alphabet only. */
export const PICKUP_CODE = {
  group: groupCode,
  normalize: normalizeInput,
  min: MIN_CODE,
  max: MAX_CODE,
};
