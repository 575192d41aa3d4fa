import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSubscription } from "../../server/proxy/subscriptions/parse.js";
import type { MihomoProxy } from "../../server/proxy/types.js";
import {
  base64Feed,
  clashYaml,
  clashYamlWithAnchors,
  feedNodes,
  invalidLink,
  SCHEMES,
  type GeneratedNode,
} from "../helpers/feed-arbitraries.js";

/** Bounded runs: the whole file takes a few seconds. */
const RUNS = { numRuns: Number(process.env.FEED_PROPERTY_RUNS ?? 60) };

const nodesOf = (feed: GeneratedNode[]): MihomoProxy[] => feed.map((g) => g.node);
const links = (feed: GeneratedNode[], eol: string): string =>
  feed.map((g) => g.link).join(eol) + eol;

describe("round trip: generated nodes, serialised, parse back to the same nodes", () => {
  it.each(Object.entries(SCHEMES))("%s links, one per line", (_scheme, arbitrary) => {
    fc.assert(
      fc.property(
        fc.uniqueArray(arbitrary, { minLength: 1, maxLength: 6, selector: (g) => g.node.name }),
        (feed) => {
          const out = parseSubscription(links(feed, "\n"));
          expect(out).toEqual({ nodes: nodesOf(feed), skipped: 0, format: "uri-list" });
        },
      ),
      RUNS,
    );
  });

  it("plain URI lists of every scheme mixed, with LF or CRLF line ends and comments", () => {
    fc.assert(
      fc.property(feedNodes, fc.constantFrom("\n", "\r\n"), (feed, eol) => {
        const text = `# provider comment${eol}${links(feed, eol)}// trailing note${eol}`;
        expect(parseSubscription(text)).toEqual({
          nodes: nodesOf(feed),
          skipped: 0,
          format: "uri-list",
        });
      }),
      RUNS,
    );
  });

  it("base64 lists: standard with padding, URL-safe without, wrapped at 76 columns", () => {
    fc.assert(
      fc.property(feedNodes, fc.nat(2), (feed, style) => {
        const out = parseSubscription(Buffer.from(base64Feed(links(feed, "\n"), style)));
        expect(out).toEqual({ nodes: nodesOf(feed), skipped: 0, format: "base64" });
      }),
      RUNS,
    );
  });

  it("Clash YAML written out in block style", () => {
    fc.assert(
      fc.property(feedNodes, (feed) => {
        const out = parseSubscription(clashYaml(nodesOf(feed)));
        expect(out).toEqual({ nodes: nodesOf(feed), skipped: 0, format: "clash" });
      }),
      RUNS,
    );
  });

  it("Clash YAML with anchors, aliases and merge keys reads as if written out", () => {
    fc.assert(
      fc.property(feedNodes, fc.array(fc.nat(3), { minLength: 1 }), (feed, layout) => {
        const doc = clashYamlWithAnchors(nodesOf(feed), layout);
        const out = parseSubscription(doc);
        expect(out, doc).toEqual({ nodes: nodesOf(feed), skipped: 0, format: "clash" });
      }),
      RUNS,
    );
  });

  it("SIP008 JSON of shadowsocks servers", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(SCHEMES.ss, { minLength: 1, maxLength: 8, selector: (g) => g.node.name }),
        (feed) => {
          const servers = feed.map(({ node }) => ({
            id: node.name,
            remarks: node.name,
            server: node.server,
            server_port: node.port,
            password: node.password,
            method: node.cipher,
          }));
          const out = parseSubscription(JSON.stringify({ version: 1, servers }));
          expect(out).toEqual({ nodes: nodesOf(feed), skipped: 0, format: "sip008" });
        },
      ),
      RUNS,
    );
  });
});

describe("invalid single nodes are skipped and counted; the valid ones kept in order", () => {
  /** Valid and invalid entries shuffled together; the valid ones in their original order. */
  const mixed = <T>(valid: fc.Arbitrary<T[]>, invalid: fc.Arbitrary<unknown>) =>
    fc
      .tuple(valid, fc.array(invalid, { minLength: 1, maxLength: 6 }))
      .chain(([good, bad]) =>
        fc
          .shuffledSubarray(
            [...good.map((g) => ({ good: true, g })), ...bad.map((b) => ({ good: false, g: b }))],
            { minLength: good.length + bad.length },
          )
          .map((entries) => ({ good, bad, entries })),
      );

  it("in URI lists and their base64 form", () => {
    fc.assert(
      fc.property(mixed(feedNodes, invalidLink), fc.boolean(), ({ good, bad, entries }, b64) => {
        const order = entries.filter((e) => e.good).map((e) => e.g as GeneratedNode);
        const text = entries.map((e) => (e.good ? (e.g as GeneratedNode).link : e.g)).join("\n");
        const out = parseSubscription(b64 ? base64Feed(text, 1) : text);
        expect(out.nodes).toEqual(nodesOf(order));
        expect(out.skipped).toBe(bad.length);
        expect(good).toHaveLength(order.length);
      }),
      RUNS,
    );
  });

  it("in Clash YAML: bad ports, missing fields, unknown types, entries that are not maps", () => {
    const badEntry = fc.constantFrom<unknown>(
      { name: "p0", type: "ss", server: "h.example", port: 0, cipher: "aes-128-gcm", password: "x" },
      { name: "p1", type: "trojan", server: "h.example", port: 443 },
      { name: "p2", type: "teleport", server: "h.example", port: 443 },
      { name: "", type: "trojan", server: "h.example", port: 443, password: "x" },
      { name: "p4", type: "vmess", server: "h.example", port: 443, uuid: "u", alterId: -1 },
      "a scalar",
      ["a", "list"],
      null,
    ); // prettier-ignore
    fc.assert(
      fc.property(mixed(feedNodes, badEntry), ({ bad, entries }) => {
        const proxies = entries.map((e) => (e.good ? (e.g as GeneratedNode).node : e.g));
        const doc = `proxies:\n${proxies.map((p) => `  - ${JSON.stringify(p)}`).join("\n")}\n`;
        const out = parseSubscription(doc);
        const order = entries.filter((e) => e.good).map((e) => (e.g as GeneratedNode).node);
        expect(out).toEqual({ nodes: order, skipped: bad.length, format: "clash" });
      }),
      RUNS,
    );
  });

  it("in SIP008: servers that are not objects, bad ports, unknown ciphers and plugins", () => {
    const badServer = fc.constantFrom<unknown>(
      "text",
      null,
      { server: "h.example", server_port: 0, password: "x", method: "aes-128-gcm" },
      { server: "h.example", server_port: 8388, password: "x", method: "rot13" },
      { server: "h.example", server_port: 8388, password: "x", method: "aes-128-gcm", plugin: "unknown" },
      { server: "", server_port: 8388, password: "x", method: "aes-128-gcm" },
    ); // prettier-ignore
    const ssFeed = fc.uniqueArray(SCHEMES.ss, {
      minLength: 1,
      maxLength: 5,
      selector: (g) => g.node.name,
    });
    fc.assert(
      fc.property(mixed(ssFeed, badServer), ({ bad, entries }) => {
        const servers = entries.map((e) => {
          if (!e.good) return e.g;
          const n = (e.g as GeneratedNode).node;
          return { remarks: n.name, server: n.server, server_port: n.port, password: n.password, method: n.cipher };
        }); // prettier-ignore
        const out = parseSubscription(JSON.stringify({ version: 1, servers }));
        const order = entries.filter((e) => e.good).map((e) => (e.g as GeneratedNode).node);
        expect(out).toEqual({ nodes: order, skipped: bad.length, format: "sip008" });
      }),
      RUNS,
    );
  });
});
