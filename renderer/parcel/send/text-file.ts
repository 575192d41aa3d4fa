/**
 * Text sent from the "Text" tab travels as a UTF-8 `.txt` file of the parcel, named after its
 * first words so the recipient's download says what it is.
 */

/** Longest name part taken from the text, in characters (before `.txt`). */
const NAME_CHARS = 40;

// Controls, invisible format and direction characters (the service refuses them in names),
// path separators and the characters Windows refuses in file names.
const REFUSED =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff/\\<>:"|?*]/g;

/** `Meeting notes for Friday.txt` from the first words; `text.txt` when there are none. */
export function textFileName(text: string, fallback = "text.txt"): string {
  const firstLine =
    text
      .split(/\r?\n/)
      .map((line) => line.replace(REFUSED, " ").replace(/\s+/g, " ").trim())
      .find((line) => line !== "") ?? "";
  const chars = Array.from(firstLine);
  let stem = chars.slice(0, NAME_CHARS).join("");
  if (chars.length > NAME_CHARS) {
    // Cut at the last space when it leaves enough words; Chinese text has none and is cut as is.
    const space = stem.lastIndexOf(" ");
    if (space >= NAME_CHARS / 2) stem = stem.slice(0, space);
  }
  // Trailing dots and spaces make names some file systems refuse; `.` and `..` are not names.
  stem = stem.replace(/[. ]+$/, "").replace(/^\.+/, "");
  return stem === "" ? fallback : `${stem}.txt`;
}

/** The text as the file that is uploaded: UTF-8, exactly the characters typed. */
export function textFile(text: string, fallbackName?: string): File {
  return new File([text], textFileName(text, fallbackName), { type: "text/plain;charset=utf-8" });
}
