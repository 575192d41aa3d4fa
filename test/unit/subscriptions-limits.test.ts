import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { readWithLibrary } from "../../server/proxy/subscriptions/clash.js";
import { SubscriptionError } from "../../server/proxy/subscriptions/errors.js";
import { parseSubscription } from "../../server/proxy/subscriptions/parse.js";
import { PARSE_BUDGET_MS } from "../../server/proxy/subscriptions/parse-pool.js";
import {
  MAX_YAML_ALIASES,
  MAX_YAML_EXPANSION,
} from "../../server/proxy/subscriptions/yaml-aliases.js";

const NODE = "{name: n, type: ss, server: h.example, port: 1, cipher: aes-128-gcm, password: p}";

/**
 * This process's CPU time so far (user and system), in ms. The bounds below are on CPU, not
 * the wall clock: a parse that runs away burns CPU whatever else the machine does, while on a
 * busy machine the wall clock runs on without this process getting the CPU.
 */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Runs `fn` and returns what it threw and how much CPU it took. */
function timed(fn: () => unknown): { error: unknown; ms: number } {
  const t0 = cpuMs();
  try {
    fn();
    return { error: null, ms: cpuMs() - t0 };
  } catch (error) {
    return { error, ms: cpuMs() - t0 };
  }
}

/**
 * The bound every parse must stay inside: the worker's budget. Before these fixes the same
 * inputs took from 20 s to hours; how fast they are now is measured by `npm run bench:proxy`
 * (hostile feeds table), not asserted here, where a loaded machine would make it flaky.
 */
const BOUND_MS = PARSE_BUDGET_MS;

function expectRefused(doc: string, message: string | RegExp): void {
  const { error, ms } = timed(() => parseSubscription(doc));
  expect(error).toBeInstanceOf(SubscriptionError);
  if (typeof message === "string") expect((error as Error).message).toBe(message);
  else expect((error as Error).message).toMatch(message);
  expect(ms).toBeLessThan(BOUND_MS);
}

describe("YAML aliases: linear and capped", () => {
  it("refuses the 16,000-alias reproduction, saying why", () => {
    expectRefused(
      `proxies:\n  - &a ${NODE}\n` + "  - *a\n".repeat(16_000),
      "The subscription uses more than 10,000 YAML aliases (*name); a feed that large is refused so that it cannot stall the service",
    );
  });

  it("reads 10,000 aliases of a small value (the cap itself)", () => {
    const doc =
      "x: &x 0042\nproxies:\n" +
      Array.from(
        { length: MAX_YAML_ALIASES },
        (_, i) =>
          `  - {name: n${i}, type: ss, server: h.example, port: 1, cipher: aes-128-gcm, password: *x}`,
      ).join("\n");
    const { error, ms } = timed(() => {
      const out = parseSubscription(doc);
      expect(out.nodes).toHaveLength(MAX_YAML_ALIASES);
      // An aliased digits-only secret keeps its text under a key mihomo reads as a string.
      expect(out.nodes[9_999]).toMatchObject({ name: "n9999", password: "0042" });
    });
    expect(error).toBeNull();
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it("refuses one alias more than the cap", () => {
    const doc =
      "x: &x 1\nproxies:\n  - {name: n, type: ss, server: h, port: *x, cipher: aes-128-gcm, password: p}\n" +
      "other:\n" +
      "  - *x\n".repeat(MAX_YAML_ALIASES);
    expectRefused(doc, /more than 10,000 YAML aliases/);
  });

  it("refuses an exponential expansion (a billion values from 300 bytes)", () => {
    const lines = ["l0: &l0 [a, a, a, a, a, a, a, a, a, a]"];
    for (let i = 1; i <= 9; i++) {
      lines.push(`l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(", ")}]`);
    }
    lines.push(`proxies:\n  - {name: n, type: ss, server: h, port: 1, cipher: aes-128-gcm,`);
    lines.push(`     password: p, extra: *l9}`);
    expectRefused(
      lines.join("\n"),
      "The subscription's YAML aliases expand to more than 50,000 values; a feed that large is refused so that it cannot stall the service",
    );
  });

  it("counts what aliases add: just under the expansion cap is read, just over is refused", () => {
    // Each alias of a 9-value list adds 10 values (the list and its items).
    const list = "[a, b, c, d, e, f, g, h, i]";
    const under = MAX_YAML_EXPANSION / 10;
    const doc = (aliases: number): string =>
      `l: &l ${list}\nproxies:\n  - ${NODE}\n` + "  - *l\n".repeat(aliases);
    expect(parseSubscription(doc(under))).toMatchObject({ skipped: under });
    expectRefused(doc(under + 1), /expand to more than 50,000 values/);
  });

  it("refuses an alias without an anchor before it, and an anchor that contains itself", () => {
    expectRefused(
      `proxies:\n  - *later\n  - &later ${NODE}\n`,
      "The subscription's YAML uses the alias *later without an anchor &later before it",
    );
    expectRefused(
      "proxies: &loop\n  - *loop\n",
      "The subscription's YAML anchor &loop contains an alias to itself",
    );
  });

  it("refuses a merge of something that is not a mapping", () => {
    expectRefused(
      "s: &s text\nproxies:\n  - {<<: *s, name: n}\n",
      /^The subscription's YAML could not be read: /,
    );
  });

  it("reads provider anchors and merge keys exactly as the YAML library does", () => {
    const doc = `defaults: &defaults
  type: ss
  cipher: aes-128-gcm
  udp: true
  plugin-opts: &opts {mode: tls, host: cdn.example}
tls: &tls {tls: true, skip-cert-verify: false}
proxies:
  - <<: *defaults
    name: HK
    server: hk.example
    port: 443
    password: 0123
  - <<: [*defaults, *tls]
    name: JP
    server: jp.example
    port: 8443
    password: secret
    cipher: chacha20-ietf-poly1305
  - name: SG
    <<: *defaults
    type: trojan
    server: sg.example
    port: 443
    password: 77
    plugin-opts: *opts
proxy-groups:
  - {name: G, type: select, proxies: [HK, JP, SG]}
`;
    const read = readWithLibrary(doc);
    const library = parseDocument(doc, { merge: true }).toJS({ maxAliasCount: -1 }) as {
      proxies: Array<Record<string, unknown>>;
    };
    // The library reads digits-only secrets as numbers; mihomo (and this reader) keeps text.
    const expected = library.proxies.map((p) => ({ ...p, password: String(p.password) }));
    expected[0] = { ...expected[0], password: "0123" };
    expect(read).toEqual({ proxies: expected });
    expect(parseSubscription(doc).nodes.map((n) => [n.name, n.type, n.cipher, n.tls])).toEqual([
      ["HK", "ss", "aes-128-gcm", undefined],
      ["JP", "ss", "chacha20-ietf-poly1305", true],
      ["SG", "trojan", "aes-128-gcm", undefined],
    ]);
  });
});

describe("other formats: no quadratic corners, no untyped errors", () => {
  it("scans a document of 200,000 blank lines once", () => {
    expectRefused("a" + "\n".repeat(200_000) + "a", /not in a recognised format/);
    expectRefused("a" + "\n ".repeat(100_000) + "a", /not in a recognised format/);
  });

  it("reads a YAML line with 200,000 inner blanks in linear time", () => {
    expectRefused(
      "proxies:\n  - name: x\n    a" + " ".repeat(200_000) + "b\n",
      /not in a recognised format/,
    );
    expectRefused("proxies:\n  - a" + " ".repeat(200_000) + "b: c\n", /no usable nodes/);
  });

  it("renames 50,000 nodes of one name in linear time", () => {
    const link = "trojan://p@h.example:443#Same";
    const { error, ms } = timed(() => {
      const out = parseSubscription(Array.from({ length: 50_000 }, () => link).join("\n"));
      expect(out.nodes[49_999]?.name).toBe("Same (50000)");
      expect(new Set(out.nodes.map((n) => n.name)).size).toBe(50_000);
    });
    expect(error).toBeNull();
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it("turns nesting too deep for the stack into a SubscriptionError", () => {
    expectRefused("proxies:\n  - " + "[".repeat(100_000), /./);
    expectRefused("proxies:\n  - " + "{a: ".repeat(50_000), /./);
    expectRefused("[".repeat(1_000_000), /not in a recognised format/);
    expectRefused('{"a":'.repeat(1_000_000), /not in a recognised format/);
    const block = ["proxies:"];
    for (let i = 0; i < 400; i++) block.push(`${" ".repeat(2 * i + 2)}- k:`);
    expectRefused(block.join("\n"), "The subscription's YAML is nested more than 200 levels deep");
  });

  it("reads the largest feeds a download can hold (16 MiB) of each format within seconds", () => {
    const MiB = 1024 * 1024;
    const huge = Array.from(
      { length: 12 },
      (_, i) => `trojan://${"p".repeat(MiB - 64)}@h${i}.example:443#n${i}`,
    ).join("\n");
    const servers = Array.from({ length: 100_000 }, (_, i) => ({
      remarks: `n${i}`,
      server: `s${i}.example.net`,
      server_port: 8388,
      password: `password-${i}-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`,
      method: "aes-256-gcm",
    }));
    const cases: Array<[string, string, number]> = [
      ["base64 of 1 MB lines", Buffer.from(huge).toString("base64"), 12],
      ["SIP008", JSON.stringify({ version: 1, servers }), 100_000],
    ];
    for (const [label, body, count] of cases) {
      expect(body.length, label).toBeLessThanOrEqual(16 * MiB);
      const t0 = cpuMs();
      expect(parseSubscription(body).nodes, label).toHaveLength(count);
      expect(cpuMs() - t0, label).toBeLessThan(BOUND_MS);
    }
  });

  it("handles a 5 MB link and 16 MiB of random bytes within the time bound", () => {
    expect(
      parseSubscription("trojan://" + "a".repeat(5_000_000) + "@h.example:1#x").nodes,
    ).toHaveLength(1);
    let seed = 1;
    const bytes = Buffer.alloc(16 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      bytes[i] = seed >>> 23;
    }
    expectRefused(bytes.toString("latin1"), /not in a recognised format/);
    expectRefused(bytes.toString("base64"), /not in a recognised format/);
  });
});
