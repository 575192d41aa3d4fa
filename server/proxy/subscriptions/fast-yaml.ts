/**
 * A fast reader for the `proxies:` list of a Clash/mihomo YAML document, for the plain subset
 * providers emit: block mappings and sequences, one-line flow collections, plain and quoted
 * scalars, comments. The general YAML library reads ~2 MB/s, too slow for feeds of 10,000
 * nodes; anything outside the subset (anchors, aliases, tags, block or multi-line scalars,
 * merge keys, tabs) makes this reader give up, and the caller falls back to the library.
 * Scalars resolve exactly as the library's YAML 1.2 core schema does.
 */

import { give, GiveUp, plainValue, quoted, resolvePlain } from "./yaml-scalars.js";

export { resolvePlain };

interface Line {
  indent: number;
  text: string;
}

/** Whether a plain scalar may start at s[i] (YAML's rules for indicator characters). */
function plainStart(s: string, i: number): boolean {
  const c = s[i];
  if (c === undefined || /[[\]{},#&*!|>'"%@`]/.test(c)) return false;
  if (c === "?" || c === ":" || c === "-") return !/^$|[ ,[\]{}]/.test(s[i + 1] ?? "");
  return true;
}

const skip = (s: string, i: number): number => {
  while (s[i] === " ") i++;
  return i;
};

/** Deeper flow nesting is left to the library (which reports what it cannot read). */
const MAX_FLOW_DEPTH = 32;

/** One-line flow collection or scalar inside one, starting at s[i]. */
function flow(
  s: string,
  i: number,
  key: string | null,
  keys: Set<string>,
  depth = 0,
): [unknown, number] {
  const c = s[i];
  if ((c === "{" || c === "[") && depth >= MAX_FLOW_DEPTH) give();
  if (c === "{") {
    const out: Record<string, unknown> = {};
    i = skip(s, i + 1);
    while (s[i] !== "}") {
      let k: string;
      if (s[i] === '"' || s[i] === "'") [k, i] = quoted(s, i);
      else {
        const start = i;
        while (i < s.length && !isFlowIndicator(s.charCodeAt(i)) && !isKeyColon(s, i)) i++;
        k = s.slice(start, i).trimEnd();
        checkPlainKey(k);
      }
      i = skip(s, i);
      let v: unknown = null;
      if (s[i] === ":") {
        i = skip(s, i + 1);
        if (s[i] !== "," && s[i] !== "}") [v, i] = flow(s, i, k, keys, depth + 1);
      }
      setKey(out, k, v);
      i = skip(s, i);
      if (s[i] === ",") i = skip(s, i + 1);
      else if (s[i] !== "}") give();
    }
    return [out, i + 1];
  }
  if (c === "[") {
    const out: unknown[] = [];
    i = skip(s, i + 1);
    while (s[i] !== "]") {
      let v: unknown;
      [v, i] = flow(s, i, null, keys, depth + 1);
      out.push(v);
      i = skip(s, i);
      if (s[i] === ",") i = skip(s, i + 1);
      else if (s[i] !== "]") give();
    }
    return [out, i + 1];
  }
  if (c === '"' || c === "'") return quoted(s, i);
  if (!plainStart(s, i)) give();
  const start = i;
  for (let c = s.charCodeAt(i); i < s.length && !isFlowIndicator(c); c = s.charCodeAt(++i)) {
    // `: ` (or a final `:`) would make a key, ` #` a comment: both beyond this reader.
    if (c === 58 && (i + 1 === s.length || s.charCodeAt(i + 1) === 32)) give();
    if (c === 32 && s.charCodeAt(i + 1) === 35) give();
  }
  return [plainValue(s.slice(start, i).trimEnd(), key, keys), i];
}

/** `,` `{` `}` `[` `]`: the characters that end a plain scalar inside a flow collection. */
function isFlowIndicator(c: number): boolean {
  return c === 44 || c === 123 || c === 125 || c === 91 || c === 93;
}

function isKeyColon(s: string, i: number): boolean {
  if (s.charCodeAt(i) !== 58) return false;
  if (i + 1 >= s.length) return true;
  const next = s.charCodeAt(i + 1);
  return next === 32 || isFlowIndicator(next);
}

function checkPlainKey(k: string): void {
  if (!k || /^[-?:&*!|>'"%@`#<]/.test(k) || typeof resolvePlain(k) !== "string") give();
}

function setKey(out: Record<string, unknown>, k: string, v: unknown): void {
  if (k === "__proto__") give();
  out[k] = v;
}

/** After a complete value only a comment may follow. */
function rest(s: string, i: number): void {
  const j = skip(s, i);
  if (j < s.length && s[j] !== "#") give();
  if (j < s.length && j === i) give(); // `#` needs a space before it
}

/** An inline value on a block line (after `key: ` or `- `). */
function inlineValue(s: string, key: string | null, keys: Set<string>): unknown {
  const c = s[0];
  if (c === "{" || c === "[" || c === '"' || c === "'") {
    const [v, i] = flow(s, 0, key, keys);
    rest(s, i);
    return v;
  }
  if (!plainStart(s, 0)) give();
  const hash = s.indexOf(" #");
  const text = (hash >= 0 ? s.slice(0, hash) : s).trimEnd();
  if (text.includes(": ") || text.endsWith(":")) give();
  return plainValue(text, key, keys);
}

/** Splits `key: rest` on a block line; null when the line is not a mapping entry. */
function splitKey(s: string): [string, string] | null {
  if (s[0] === '"' || s[0] === "'") {
    let k: string;
    let i: number;
    try {
      [k, i] = quoted(s, 0);
    } catch {
      return null;
    }
    const j = skip(s, i);
    if (s[j] !== ":") return null;
    return [k, s.slice(j + 1).trim()];
  }
  const colon = keyColon(s);
  if (colon < 0) return null;
  const k = s.slice(0, colon).trimEnd();
  if (k.includes(": ")) return null;
  checkPlainKey(k);
  return [k, s.slice(colon + 1).trim()];
}

/**
 * The colon that ends a plain key: the first one before any `#` that ends the line or is
 * followed by a space and a rest without line breaks. A scan, not a lazy regular expression:
 * that one backtracked over long runs of blanks in quadratic time.
 */
function keyColon(s: string): number {
  const hash = s.indexOf("#");
  const limit = hash < 0 ? s.length : hash;
  const lastBreak = Math.max(
    s.lastIndexOf("\n"),
    s.lastIndexOf("\r"),
    s.lastIndexOf("\u2028"),
    s.lastIndexOf("\u2029"),
  );
  for (let c = s.indexOf(":"); c >= 0 && c < limit; c = s.indexOf(":", c + 1)) {
    if (c === s.length - 1 || (s[c + 1] === " " && c > lastBreak)) return c;
  }
  return -1;
}

const MAX_BLOCK_DEPTH = 32;

class Reader {
  pos = 0;
  private depth = 0;
  constructor(
    private readonly lines: Line[],
    private readonly keys: Set<string>,
  ) {}

  private peek(): Line | undefined {
    return this.lines[this.pos];
  }

  /** The block node whose lines start at the current line (indent > parent). */
  node(parentIndent: number, key: string | null): unknown {
    const line = this.peek();
    if (!line || line.indent <= parentIndent) {
      // `key:` followed by a sequence at the key's own indent is allowed.
      if (line && line.indent === parentIndent && isItem(line.text) && key !== null) {
        return this.seq(line.indent);
      }
      return null;
    }
    if (isItem(line.text)) return this.seq(line.indent);
    if (splitKey(line.text)) return this.map(line.indent);
    return give(); // multi-line scalars are the library's job
  }

  seq(indent: number): unknown[] {
    this.enter();
    const out: unknown[] = [];
    for (
      let line = this.peek();
      line && line.indent === indent && isItem(line.text);
      line = this.peek()
    ) {
      const content = line.text.slice(1).trimStart();
      if (!content || content.startsWith("#")) {
        this.pos++;
        out.push(this.node(indent, null));
        continue;
      }
      const offset = line.text.length - content.length;
      const entry = splitKey(content);
      if (entry && content[0] !== "{" && content[0] !== "[") {
        // `- key: value` opens a mapping whose column is that of `key`.
        this.lines[this.pos] = { indent: indent + offset, text: content };
        out.push(this.map(indent + offset));
      } else {
        if (isItem(content)) give();
        this.pos++;
        out.push(inlineValue(content, null, this.keys));
      }
    }
    this.depth--;
    return out;
  }

  map(indent: number): Record<string, unknown> {
    this.enter();
    const out: Record<string, unknown> = {};
    for (let line = this.peek(); line && line.indent === indent; line = this.peek()) {
      if (isItem(line.text)) break;
      const entry = splitKey(line.text);
      if (!entry) give();
      const [k, value] = entry as [string, string];
      if (k === "<<") give();
      this.pos++;
      setKey(
        out,
        k,
        value && !value.startsWith("#") ? inlineValue(value, k, this.keys) : this.node(indent, k),
      );
    }
    const next = this.peek();
    if (next && next.indent > indent) give(); // stray deeper line
    this.depth--;
    return out;
  }

  /** Deep nesting is left to the library, which refuses it with a clear reason. */
  private enter(): void {
    if (++this.depth > MAX_BLOCK_DEPTH) give();
  }
}

function isItem(text: string): boolean {
  return text === "-" || text.startsWith("- ");
}

/**
 * The `proxies` list of a document, or null when this reader cannot be sure (the caller then
 * uses the full YAML library). `stringKeys` keep their source text when written plain.
 */
export function fastProxies(text: string, stringKeys: Set<string>): unknown[] | null {
  const all = text.split(/\r?\n/);
  let start = -1; // the last one wins, as in the library with duplicate keys allowed
  all.forEach((l, n) => {
    if (/^proxies:\s*(?:#.*)?$/.test(l)) start = n;
  });
  if (start < 0) return null;
  const lines: Line[] = [];
  for (let n = start + 1; n < all.length; n++) {
    const raw = all[n] ?? "";
    const text = raw.trimStart();
    if (!text || text.startsWith("#")) continue;
    const indent = raw.length - text.length;
    if (indent === 0 && !isItem(text)) break; // the next top-level key
    if (/^\s*\t/.test(raw) || text.includes("\t")) return null;
    if (raw.startsWith("---") || raw.startsWith("...")) return null;
    lines.push({ indent, text: text.trimEnd() });
  }
  if (lines.length === 0) return [];
  const first = lines[0];
  if (!first || !isItem(first.text)) return null;
  try {
    const reader = new Reader(lines, stringKeys);
    const out = reader.seq(first.indent);
    return reader.pos === lines.length ? out : null;
  } catch (err) {
    if (err instanceof GiveUp) return null;
    throw err;
  }
}
