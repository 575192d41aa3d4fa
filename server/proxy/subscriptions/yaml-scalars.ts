/** Scalar rules of the fast proxies reader, matching the `yaml` library's YAML 1.2 core schema. */

/** Thrown when a document leaves the subset; the caller falls back to the library. */
export class GiveUp extends Error {}

export const give = (): never => {
  throw new GiveUp();
};

/** The words the core schema reads as null or booleans (besides the empty scalar). */
const WORDS = new Map<string, null | boolean>([
  ["~", null], ["null", null], ["Null", null], ["NULL", null],
  ["true", true], ["True", true], ["TRUE", true],
  ["false", false], ["False", false], ["FALSE", false],
]); // prettier-ignore
/** What a number (or an infinity, or not-a-number) can start with. */
const NUMBER_START = new Set("0123456789+-.");

/** Resolves a plain scalar like the `yaml` library's core schema. */
export function resolvePlain(s: string): unknown {
  // Most scalars are words (a cipher, a host name): checked by their first character and,
  // for the letters a null or a boolean starts with, by the few exact words.
  const first = s[0];
  if (first === undefined) return null;
  if (!NUMBER_START.has(first)) {
    const word = WORDS.get(s);
    return word === undefined ? s : word;
  }
  if (/^0o[0-7]+$/.test(s)) return parseInt(s.slice(2), 8);
  if (/^[-+]?[0-9]+$/.test(s)) return parseInt(s, 10);
  if (/^0x[0-9a-fA-F]+$/.test(s)) return parseInt(s.slice(2), 16);
  if (/^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(s)) {
    if (s.slice(-3).toLowerCase() === "nan") return NaN;
    return s[0] === "-" ? -Infinity : Infinity;
  }
  if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/.test(s)) return parseFloat(s);
  return s;
}

/** A plain scalar as a value: its source text under keys mihomo reads as strings. */
export function plainValue(s: string, key: string | null, stringKeys: Set<string>): unknown {
  const v = resolvePlain(s);
  if (key !== null && v !== null && typeof v !== "string" && stringKeys.has(key)) return s;
  return v;
}

const ESCAPES: Record<string, string> = {
  "0": "\0", a: "\x07", b: "\b", t: "\t", "\t": "\t", n: "\n", v: "\v", f: "\f", r: "\r",
  e: "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", N: "\u0085", _: "\u00a0",
  L: "\u2028", P: "\u2029",
}; // prettier-ignore

/** A quoted scalar starting at s[i]; returns the value and the index after the closing quote. */
export function quoted(s: string, i: number): [string, number] {
  const q = s[i];
  let out = "";
  let j = i + 1;
  if (q === "'") {
    for (;;) {
      const end = s.indexOf("'", j);
      if (end < 0) give();
      out += s.slice(j, end);
      if (s[end + 1] === "'") {
        out += "'";
        j = end + 2;
      } else return [out, end + 1];
    }
  }
  while (j < s.length) {
    // The run up to the next quote or backslash is copied at once.
    let k = j;
    while (k < s.length && s.charCodeAt(k) !== 34 && s.charCodeAt(k) !== 92) k++;
    out += s.slice(j, k);
    j = k;
    if (j >= s.length) break;
    if (s[j] === '"') return [out, j + 1];
    const e = s[j + 1] ?? "";
    const width = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
    if (width) {
      const hex = s.slice(j + 2, j + 2 + width);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== width) give();
      out += String.fromCodePoint(parseInt(hex, 16));
      j += 2 + width;
    } else {
      const r = ESCAPES[e];
      if (r === undefined) give();
      out += r;
      j += 2;
    }
  }
  return give(); // the string goes on past the line
}
