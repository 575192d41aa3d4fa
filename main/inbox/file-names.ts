/**
 * Names for received files on this computer's disk. A sender chose them, so they are made safe
 * for every file system the app runs on (Windows refuses more than Linux or macOS), and a name
 * already taken in the folder gets a number: `photo.jpg`, `photo (1).jpg`, `photo (2).jpg`.
 */

/** Characters Windows refuses in names (and `/`, which no system allows), and control ones. */
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[<>:"/\\|?*\u0000-\u001f\u007f]/g;
/** Invisible and direction-changing characters: they make a name show something else. */
const FORMAT = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
/** Device names Windows reserves, with any extension (`con.txt` is the console). */
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
/** Most file systems take 255 bytes of a name; room is kept for ` (123)` and the part suffix. */
const MAX_BYTES = 200;

function cutToBytes(text: string, max: number): string {
  let out = "";
  for (const ch of text) {
    if (Buffer.byteLength(out + ch, "utf8") > max) break;
    out += ch;
  }
  return out;
}

/** The stem and extension of a name (`archive.tar.gz` → `archive.tar`, `.gz`). */
export function splitName(name: string): { stem: string; ext: string } {
  const dot = name.lastIndexOf(".");
  if (dot <= 0 || name.length - dot > 16) return { stem: name, ext: "" };
  return { stem: name.slice(0, dot), ext: name.slice(dot) };
}

/**
 * A name any file system takes: forbidden and invisible characters become `_`, trailing dots
 * and spaces (Windows drops them) go, a leading dot is kept out (no hidden files appear), a
 * reserved device name gets `_` in front, and a long name keeps its extension.
 */
export function safeFileName(name: string): string {
  let clean = name.normalize("NFC").replace(FORBIDDEN, "_").replace(FORMAT, "_").trim();
  clean = clean.replace(/[. ]+$/, "").replace(/^\.+/, "");
  if (clean === "" || /^_+$/.test(clean)) clean = "file";
  if (RESERVED.test(clean)) clean = `_${clean}`;
  const { stem, ext } = splitName(clean);
  if (Buffer.byteLength(clean, "utf8") > MAX_BYTES)
    clean = cutToBytes(stem, MAX_BYTES - Buffer.byteLength(ext, "utf8")).trimEnd() + ext;
  return clean;
}

/** The `n`th name to try for `name`: itself, then `stem (1).ext`, `stem (2).ext`, … */
export function numberedName(name: string, n: number): string {
  if (n === 0) return name;
  const { stem, ext } = splitName(name);
  return `${stem} (${n})${ext}`;
}
