import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { readWithLibrary, STRING_KEYS } from "../../server/proxy/subscriptions/clash.js";
import { fastProxies, resolvePlain } from "../../server/proxy/subscriptions/fast-yaml.js";
import { FEEDS_DIR } from "../fixtures/feed-server.js";

/** Both readers on one document: the fast one must agree with the library exactly. */
function agree(doc: string): unknown[] {
  const fast = fastProxies(doc, STRING_KEYS);
  expect(fast, "the fast reader gave up on a document of its subset").not.toBeNull();
  const slow = readWithLibrary(doc);
  expect(slow).toEqual({ proxies: fast });
  return fast ?? [];
}

describe("fast proxies reader", () => {
  it("agrees with the YAML library on the realistic provider document", () => {
    const doc = readFileSync(join(FEEDS_DIR, "clash.yml"), "utf8");
    expect(agree(doc)).toHaveLength(12);
  });

  it("agrees on scalar shapes: quotes, escapes, numbers, booleans, nulls, comments", () => {
    const out = agree(`proxies:
  - name: 'it''s "quoted"'   # trailing comment
    type: ss
    server: "h\\u00e9\\x41\\t"
    port: 0x1BB
    password: 1e3
    cipher: ~
    udp: True
    tfo: FALSE
    up: 100
    mtu: -12
    ratio: .5
    big: +7
    oct: 0o17
    inf: -.inf
    weird: 12abc
    url: http://example.com:80/a#frag
    colon: a:b
    empty:
    hash: a#b
  - {name: "x, y", type: "vmess", port: 443, 'server': v.example, short-id: 0123, alpn: [h2, "http/1.1"], ws-opts: {path: /p, headers: {Host: h.example}}, nested: [[1, 2], {a: b}], flag}
  - {}
  - []
  - plain scalar item
  - "quoted item"
  -
    name: late
    port: 1
`);
    expect(out[0]).toMatchObject({
      server: "héA\t",
      port: 443,
      password: "1e3",
      cipher: null,
      udp: true,
      tfo: false,
    });
    expect(out[1]).toMatchObject({ "short-id": "0123", alpn: ["h2", "http/1.1"], flag: null });
  });

  it("agrees on nesting: block maps, sequences at the key's indent, zero-indented lists", () => {
    agree(`mixed-port: 7890
proxies:
- name: a
  type: wireguard
  peers:
  - server: 198.51.100.1
    port: 51820
    public-key: 0123
    allowed-ips:
      - 0.0.0.0/0
      - ::/0
  reserved:
    - 1
    - 2
  ws-opts:
    headers:
      Host: x
      User-Agent: "y"

- name: b
  # a comment between entries
  type: ss
proxy-groups:
  - name: G
    type: select
`);
  });

  it("agrees with Windows line endings and a document without proxies", () => {
    agree("proxies:\r\n  - name: a\r\n    port: 1\r\n");
    expect(agree("proxies:\nrules: []\n")).toEqual([]);
  });

  it.each([
    ["anchors and merge keys", "d: &d {type: ss}\nproxies:\n  - <<: *d\n    name: a\n"],
    ["aliases", "proxies:\n  - &a {name: a}\n  - *a\n"],
    ["block scalars", "proxies:\n  - name: |\n      multi\n"],
    ["multi-line plain scalars", "proxies:\n  - name: a\n      continued\n"],
    ["multi-line flow collections", "proxies:\n  - {name: a,\n     type: ss}\n"],
    ["tags", "proxies:\n  - name: !!str 123\n"],
    ["tabs", "proxies:\n  - {name: a,\ttype: ss}\n"],
    ["a flow list as the proxies value", "proxies: [{name: a}]\n"],
  ])("gives up on %s, and the library reads them", (_label, doc) => {
    expect(fastProxies(doc, STRING_KEYS)).toBeNull();
    expect(readWithLibrary(doc)).toHaveProperty("proxies");
  });

  it("resolves plain scalars as YAML 1.2 core does", () => {
    expect(["~", "null", "", "true", "FALSE", "0o17", "-12", "0x1f", "-.inf", "1.5e+11", "123.0", "1_000", "0b1", "yes"].map(resolvePlain)).toEqual([
      null, null, null, true, false, 15, -12, 31, -Infinity, 1.5e11, 123, "1_000", "0b1", "yes",
    ]); // prettier-ignore
  });

  it("agrees with the library on 300 seeded random documents in block and flow styles", () => {
    let seed = 20261122;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const atoms = [
      "0123", "1e5", "true", "null", "a: b", "x #y", "#lead", "- dash", "[br]", "{b}", "quote'd",
      'dq"', "tab\there", "é漢字🇭🇰", "", " pad ", "a,b", "http://h:1/p?q=1#f", "2001:db8::1",
      "~", "0x1F", ".5", "-7", "@at", "*star", "&amp", "!bang", "%pct", "`tick", "yes", "1_0",
    ]; // prettier-ignore
    const value = (depth: number): unknown => {
      const k = rand(depth > 2 ? 6 : 9);
      if (k === 0) return rand(70000) - 100;
      if (k === 1) return rand(2) === 0;
      if (k === 2) return rand(1000) / 8;
      if (k === 3) return null;
      if (k < 6) return atoms[rand(atoms.length)];
      if (k === 6) return Array.from({ length: rand(4) }, () => value(depth + 1));
      const o: Record<string, unknown> = {};
      for (let i = rand(5); i > 0; i--)
        o[(atoms[rand(atoms.length)] ?? "k") + i] = value(depth + 1);
      return o;
    };
    let fastCount = 0;
    for (let d = 0; d < 300; d++) {
      const proxies = Array.from({ length: 1 + rand(4) }, () => {
        const p: Record<string, unknown> = { name: atoms[rand(atoms.length)], port: rand(70000) };
        for (const key of ["password", "short-id", "server", "ws-opts", "alpn", "x"]) {
          if (rand(2)) p[key] = value(1);
        }
        return p;
      });
      // Block style for the whole document, or one flow mapping per line as panels write.
      const doc =
        rand(2) === 0
          ? stringify({ "mixed-port": 7890, proxies }, { indentSeq: rand(2) === 0, lineWidth: 0 })
          : "proxies:\n" +
            proxies
              .map((p) => `  - ${stringify(p, { collectionStyle: "flow", lineWidth: 0 }).trim()}`)
              .join("\n") +
            "\nrules: []\n";
      const fast = fastProxies(doc, STRING_KEYS);
      if (fast === null) continue;
      fastCount++;
      expect(readWithLibrary(doc), doc).toEqual({ proxies: fast });
    }
    expect(fastCount).toBeGreaterThan(150); // the subset covers most of what a provider writes
  });

  it("agrees with the library on 3,000 seeded documents of hand-written tricky scalars", () => {
    const toks = [
      "a", "0123", "? x", "?x", ":x", ": x", "-x", "- x", "x:y", "x: y", "x #c", "x#c", "'q'",
      "'q' z", '"d"', '"d\\"e"', "[a, b]", "{a: b}", "[a,", "{a", "}", "]", "a,b", "a]b", "@x",
      "%x", "!x", "&x", "*x", "|", ">", "~", "", "true", "1e5", "0x1f", "#", "a b  c", "'it''s'",
      '"\\x41"', '"\\q"', "[]", "{}", "[[a]]", "{a: [b, {c: d}]}", "{a: b: c}", "[a: b]",
      "{? a}", "'", '"', "é", "a\\b",
    ]; // prettier-ignore
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const t = (): string => toks[rand(toks.length)] ?? "";
    let fastCount = 0;
    for (let d = 0; d < 3000; d++) {
      const lines = ["proxies:"];
      for (let i = 0; i < 1 + rand(3); i++) {
        const shape = rand(5);
        if (shape === 0) lines.push(`  - {name: ${t()}, password: ${t()}}`);
        else if (shape === 1) lines.push(`  - name: ${t()}`, `    password: ${t()}`);
        else if (shape === 2) lines.push(`  - ${t()}`);
        else if (shape === 3) {
          lines.push("-   name: " + t(), "    ws-opts:", `      path: ${t()}`, "", "    # c");
          lines.push("    alpn:", `    - ${t()}`, `    -  ${t()}`);
        } else lines.push(" - name: x", "   opts:", `     - a: ${t()}`, `       b: ${t()}`);
      }
      const doc = lines.join("\n") + "\n";
      const fast = fastProxies(doc, STRING_KEYS);
      if (fast === null) continue;
      fastCount++;
      expect(readWithLibrary(doc), doc).toEqual({ proxies: fast });
    }
    expect(fastCount).toBeGreaterThan(300);
  });
});
