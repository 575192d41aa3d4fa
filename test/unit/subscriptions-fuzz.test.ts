import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SubscriptionError } from "../../server/proxy/subscriptions/errors.js";
import { parseSubscription } from "../../server/proxy/subscriptions/parse.js";
import {
  base64Feed,
  clashYaml,
  clashYamlWithAnchors,
  feedNodes,
} from "../helpers/feed-arbitraries.js";

const RUNS = { numRuns: Number(process.env.FEED_PROPERTY_RUNS ?? 300) };
/**
 * Linear time, generously: 1 s plus 10 µs per character (the general YAML library reads
 * hostile text at about 500 kB/s). A quadratic corner on 100 kB takes minutes, not this.
 */
const boundMs = (input: string | Buffer): number => 1_000 + input.length / 100;

/** This process's CPU time so far (user and system), in ms. */
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * What must hold for any input: parsing ends within the bound, and either yields at least one
 * validated node that can be stored as JSON, or throws a SubscriptionError (nothing else).
 */
function checkAnyInput(input: string | Buffer): void {
  // CPU time, not the wall clock: a parse that backtracks without end burns CPU whatever the
  // machine does, while on a machine busy with other work the wall clock runs on without it
  // (a unit run beside two full runs once saw a parse of 5 ms take seconds).
  const t0 = cpuMs();
  let error: unknown = null;
  try {
    const out = parseSubscription(input);
    expect(out.nodes.length).toBeGreaterThan(0);
    expect(out.skipped).toBeGreaterThanOrEqual(0);
    for (const node of out.nodes) {
      expect(typeof node.name === "string" && node.name.length > 0).toBe(true);
      expect(typeof node.server === "string" && node.server.length > 0).toBe(true);
      expect(Number.isInteger(node.port)).toBe(true);
    }
    expect(() => JSON.stringify(out.nodes)).not.toThrow(); // the snapshot is stored as JSON
  } catch (err) {
    error = err;
  }
  const ms = cpuMs() - t0;
  if (error !== null && !(error instanceof SubscriptionError)) throw error;
  expect(ms).toBeLessThan(boundMs(input));
}

/** Fragments of every format's syntax, so random sequences reach deep into each reader. */
const TOKENS = [
  "proxies:", "proxies: ", "\n", "\r\n", "  ", "- ", "-", ": ", ":", "{", "}", "[", "]", ",",
  "&a ", "*a", "&b ", "*b", "<<: ", "<<: *a", "!!str ", "!!binary ", "|", ">", "'", '"', "#",
  "%YAML 1.1\n", "---\n", "...\n", "\t", "name: ", "type: ss", "type: vmess", "server: h",
  "port: 443", "port: 0x1bb", "cipher: aes-128-gcm", "password: 0123", "udp: true", "~",
  "ss://", "ssr://", "vmess://", "vless://", "trojan://", "hy2://", "tuic://", "wg://",
  "@", "?", "&", "=", "%", "%zz", "%E4%BA", "/", "+", "==", "YWVz", "LTEy", "OC1n",
  '{"version": 1, "servers": [', '{"server": "h", "server_port": 1}', "]}", '"proxies": [',
  "\u0000", "\uFEFF", "\u2028", "é", "香港", "🇭🇰", "\uFFFD",
]; // prettier-ignore
const tokenSoup = fc
  .array(fc.constantFrom(...TOKENS), { maxLength: 300 })
  .map((parts) => parts.join(""));

/** A valid feed in any format, then up to 8 random edits: inserts, deletions, repeats. */
const validText = fc.oneof(
  feedNodes.map((f) => f.map((g) => g.link).join("\n")),
  fc.tuple(feedNodes, fc.nat(2)).map(([f, s]) => base64Feed(f.map((g) => g.link).join("\n"), s)),
  feedNodes.map((f) => clashYaml(f.map((g) => g.node))),
  feedNodes.map((f) =>
    clashYamlWithAnchors(
      f.map((g) => g.node),
      [0, 1, 2, 3],
    ),
  ),
);
const edit = fc.record({
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  len: fc.nat(40),
  kind: fc.constantFrom("insert", "delete", "repeat"),
  token: fc.constantFrom(...TOKENS),
});
const mutated = fc
  .tuple(validText, fc.array(edit, { minLength: 1, maxLength: 8 }))
  .map(([text, edits]) =>
    edits.reduce((s, e) => {
      const i = Math.floor(e.at * s.length);
      if (e.kind === "insert") return s.slice(0, i) + e.token + s.slice(i);
      if (e.kind === "delete") return s.slice(0, i) + s.slice(i + e.len);
      return s.slice(0, i) + s.slice(i, i + e.len).repeat(4) + s.slice(i);
    }, text),
  );

describe("any input: only SubscriptionError, always within the time bound", () => {
  it("arbitrary strings of any code points", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 3_000 }), checkAnyInput), RUNS);
  });

  it("arbitrary bytes, as a Buffer and as their base64", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3_000 }), (bytes) => {
        checkAnyInput(Buffer.from(bytes));
        checkAnyInput(Buffer.from(bytes).toString("base64"));
      }),
      RUNS,
    );
  });

  it("random sequences of YAML, link, base64 and JSON syntax, plain and base64", () => {
    fc.assert(
      fc.property(tokenSoup, (text) => {
        checkAnyInput(text);
        checkAnyInput(base64Feed(text, 1));
      }),
      RUNS,
    );
  });

  it("valid feeds of every format with random edits", () => {
    fc.assert(fc.property(mutated, checkAnyInput), RUNS);
  });

  it("valid feeds with long runs of one token in the middle", () => {
    const run = fc.record({
      token: fc.constantFrom(...TOKENS),
      times: fc.integer({ min: 1_000, max: 10_000 }),
      at: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(validText, run, (text, r) => {
        const i = Math.floor(r.at * text.length);
        checkAnyInput(text.slice(0, i) + r.token.repeat(r.times) + text.slice(i));
      }),
      { numRuns: Math.max(20, Math.floor(RUNS.numRuns / 5)) },
    );
  });
});
