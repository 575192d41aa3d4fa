import { SubscriptionError } from "./errors.js";
import { MAX_YAML_DEPTH, TOO_DEEP } from "./yaml-aliases.js";

const [SPACE, TAB, LF, CR, HASH, DQUOTE, SQUOTE, COMMA, COLON, DASH, QUESTION] = [
  " ", "\t", "\n", "\r", "#", '"', "'", ",", ":", "-", "?",
].map((c) => c.charCodeAt(0)); // prettier-ignore
const [OPEN_SEQ, CLOSE_SEQ, OPEN_MAP, CLOSE_MAP, PIPE, GREATER, AMPERSAND, BANG] = [
  "[", "]", "{", "}", "|", ">", "&", "!",
].map((c) => c.charCodeAt(0)); // prettier-ignore

const isSpace = (c: string | undefined): boolean =>
  c === " " || c === "\t" || c === "\n" || c === "\r";

function lineEnd(s: string, i: number): number {
  const at = s.indexOf("\n", i);
  return at === -1 ? s.length : at;
}

/** Just past the quoted scalar that starts at s[i] (`"…"` with escapes, `'…'` with `''`). */
function pastQuoted(s: string, i: number): number {
  const quote = s[i];
  for (let at = i + 1; at < s.length; at++) {
    if (quote === '"' && s[at] === "\\") at++;
    else if (s[at] === quote) {
      if (quote === "'" && s[at + 1] === "'") at++;
      else return at + 1;
    }
  }
  return s.length;
}

/**
 * The newline that ends a block scalar's content (`|` or `>` at s[i]): the lines after it that
 * are blank or indented deeper than its key's line (`indent` spaces) belong to it.
 */
function blockScalarEnd(s: string, i: number, indent: number): number {
  let at = lineEnd(s, i);
  while (at < s.length) {
    let next = at + 1;
    while (s[next] === " ") next++;
    if (next < s.length && s[next] !== "\n" && s[next] !== "\r" && next - at - 1 <= indent) break;
    at = lineEnd(s, next);
  }
  return at;
}

/**
 * Refuses a document that nests flow collections (`[…]`, `{…}`) more than MAX_YAML_DEPTH deep,
 * with the error a deep block nesting gets, before the YAML library reads it: the library reads
 * flow collections by recursion, and 100,000 `[` exhaust the stack (in a test process that had
 * run many files first, V8 once aborted the process there instead of throwing). One pass over
 * the text. What does not open a collection does not count: brackets in quoted scalars, in
 * comments, in block scalars, and in plain scalars outside collections (`name: a[b`, where
 * only a bracket that starts a value opens one).
 */
export function refuseDeepFlow(s: string): void {
  let depth = 0;
  let start = true; // the next character may begin a value (in a collection: an entry)
  let indicator = false; // the last character was `:`, or `-`/`?`/an anchor/a tag at `start`
  let indent = 0; // the current line's indentation
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === SPACE || c === TAB || c === LF || c === CR) {
      if (c === LF) {
        indent = 0;
        while (s.charCodeAt(i + 1 + indent) === SPACE) indent++;
        if (depth === 0) start = true;
      }
      start ||= indicator;
      indicator = false;
    } else if (c === HASH && (start || i === 0 || isSpace(s[i - 1]))) {
      i = lineEnd(s, i) - 1;
    } else if ((c === DQUOTE || c === SQUOTE) && start) {
      i = pastQuoted(s, i) - 1;
      start = indicator = false;
    } else if ((c === OPEN_SEQ || c === OPEN_MAP) && (start || depth > 0)) {
      if (++depth > MAX_YAML_DEPTH)
        throw new SubscriptionError("subscription.yaml_depth", TOO_DEEP, {
          params: { limit: MAX_YAML_DEPTH },
        });
      start = true;
      indicator = false;
    } else if (depth > 0 && (c === CLOSE_SEQ || c === CLOSE_MAP || c === COMMA || c === COLON)) {
      if (c === CLOSE_SEQ || c === CLOSE_MAP) depth--;
      // After `,` an entry begins; after `:` a value may follow at once (`{"a":"b"}`).
      start = c === COMMA || c === COLON;
      indicator = false;
    } else if (depth === 0 && start && (c === PIPE || c === GREATER)) {
      i = blockScalarEnd(s, i, indent) - 1;
      start = indicator = false;
    } else if (start && (c === AMPERSAND || c === BANG)) {
      while (i + 1 < s.length && !isSpace(s[i + 1])) i++;
      start = false;
      indicator = true;
    } else {
      indicator = c === COLON || (start && (c === DASH || c === QUESTION));
      start = false;
    }
  }
}
