import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SubscriptionError } from "../../server/proxy/subscriptions/errors.js";
import { parseSubscription } from "../../server/proxy/subscriptions/parse.js";
import { FEEDS_DIR } from "../fixtures/feed-server.js";

const feed = (name: string): Buffer => readFileSync(join(FEEDS_DIR, name));
const names = (r: { nodes: Array<{ name: string }> }): string[] => r.nodes.map((n) => n.name);

describe("parseSubscription: Clash/mihomo YAML", () => {
  const out = parseSubscription(feed("clash.yml"));

  it("keeps every valid node, skips the malformed one and counts it", () => {
    expect(out.format).toBe("clash");
    expect(out.skipped).toBe(1);
    expect(names(out)).toEqual([
      "剩余流量：102.4 GB",
      "套餐到期：2027-01-31",
      "🇭🇰 Hong Kong 01",
      "🇯🇵 Tokyo 02 | vmess",
      "🇺🇸 Los Angeles 03 | reality",
      "🇸🇬 Singapore 04 | trojan",
      "🇹🇼 Taipei 05 | hy2",
      "🇰🇷 Seoul 06 | tuic",
      "🇩🇪 Frankfurt 07 | wg",
      "🇬🇧 London 08 | ssr",
      "🇭🇰 Hong Kong 01 (2)",
    ]);
  });

  it("keeps each proxy object as written, with digits-only secrets as their text", () => {
    expect(out.nodes[2]).toEqual({
      name: "🇭🇰 Hong Kong 01",
      type: "ss",
      server: "hk01.example.net",
      port: 20001,
      cipher: "chacha20-ietf-poly1305",
      password: "0123",
      udp: true,
      plugin: "obfs",
      "plugin-opts": { mode: "http", host: "download.windowsupdate.com" },
    });
    expect(out.nodes[4]).toMatchObject({
      type: "vless",
      "reality-opts": {
        "public-key": "5b0v4XDlC4uNjSeBo-MAg2JxqGZfXxj3bpUX8H7YlVo",
        "short-id": "01234567",
      },
    });
    expect(out.nodes[3]).toMatchObject({
      "ws-opts": { path: "/v2ray", headers: { Host: "jp02.example.net" } },
      tls: true,
      alterId: 0,
    });
  });

  it("reads the same document through the YAML library when it uses anchors and merge keys", () => {
    const yaml = [
      "base: &base {type: ss, cipher: aes-128-gcm, password: 0042, udp: true}",
      "proxies:",
      "  - {<<: *base, name: a, server: 198.51.100.1, port: 1}",
      "  - <<: *base",
      "    name: b",
      "    server: 198.51.100.2",
      "    port: '2'",
    ].join("\n");
    const r = parseSubscription(yaml);
    expect(r.nodes).toEqual([
      {
        type: "ss",
        cipher: "aes-128-gcm",
        password: "0042",
        udp: true,
        name: "a",
        server: "198.51.100.1",
        port: 1,
      },
      {
        type: "ss",
        cipher: "aes-128-gcm",
        password: "0042",
        udp: true,
        name: "b",
        server: "198.51.100.2",
        port: 2,
      },
    ]);
  });

  it("fills the vmess fields mihomo requires and normalises port and name", () => {
    const r = parseSubscription(
      'proxies:\n  - {name: "  spaced  ", type: vmess, server: v.example, port: "443", uuid: u}\n',
    );
    expect(r.nodes).toEqual([
      {
        name: "spaced",
        type: "vmess",
        server: "v.example",
        port: 443,
        uuid: "u",
        alterId: 0,
        cipher: "auto",
      },
    ]);
  });

  it("skips nodes of unknown types, without a name, server or credentials, or with a bad port", () => {
    const yaml = `proxies:
  - {name: ok, type: trojan, server: t.example, port: 443, password: p}
  - {name: unknown, type: quantum, server: q.example, port: 1}
  - {name: "", type: trojan, server: t.example, port: 443, password: p}
  - {name: noserver, type: trojan, port: 443, password: p}
  - {name: nopass, type: trojan, server: t.example, port: 443}
  - {name: port0, type: trojan, server: t.example, port: 0, password: p}
  - {name: portfloat, type: trojan, server: t.example, port: 44.5, password: p}
  - just a string
  - {name: badcipher, type: ss, server: s.example, port: 1, cipher: rot13, password: p}
`;
    const r = parseSubscription(yaml);
    expect(names(r)).toEqual(["ok"]);
    expect(r.skipped).toBe(8);
  });
});

describe("parseSubscription: URI lists", () => {
  it("reads a base64 list with every scheme and counts the malformed lines", () => {
    const r = parseSubscription(feed("base64-all.txt"));
    expect(r.format).toBe("base64");
    expect(r.skipped).toBe(4);
    expect(r.nodes.map((n) => n.type)).toEqual([
      "ss", "ss", "ss", "ssr", "vmess", "vmess", "vmess", "vless", "vless", "trojan",
      "hysteria2", "hysteria2", "tuic", "wireguard",
    ]); // prettier-ignore
  });

  it("reads a plain list", () => {
    const r = parseSubscription(feed("uri-list.txt"));
    expect(r.format).toBe("uri-list");
    expect(r.skipped).toBe(0);
    expect(names(r)).toEqual([
      "香港 SS 01", "Legacy SS", "SS 2022", "日本 SSR", "美国 VMess WS", "VMess gRPC", "VMess h2",
      "新加坡 Reality",
    ]); // prettier-ignore
  });

  it("reads URL-safe base64 without padding, wrapped over several lines", () => {
    const raw = feed("urlsafe-nopad.txt").toString();
    expect(raw).toMatch(/[-_]/);
    expect(raw.trim().split("\n").length).toBeGreaterThan(3);
    const r = parseSubscription(raw);
    expect(r.format).toBe("base64");
    expect(names(r)).toEqual(["香港 SS 01", "Legacy SS", "SS 2022", "日本 SSR", "新加坡 Reality"]);
  });

  it("ignores blank and comment lines, trims names, and tolerates CRLF", () => {
    const r = parseSubscription(
      "# provider header\r\n\r\ntrojan://p@t.example:443#%20%20padded%20\r\n// note\r\n",
    );
    expect(names(r)).toEqual(["padded"]);
    expect(r.skipped).toBe(0);
  });
});

describe("parseSubscription: SIP008", () => {
  it("maps servers to ss nodes with plugins and skips the bad cipher", () => {
    const r = parseSubscription(feed("sip008.json"));
    expect(r.format).toBe("sip008");
    expect(r.skipped).toBe(1);
    expect(r.nodes).toEqual([
      {
        name: "SIP008 one",
        type: "ss",
        server: "198.51.100.30",
        port: 8388,
        cipher: "aes-256-gcm",
        password: "sip-pass",
        udp: true,
      },
      {
        name: "SIP008 obfs",
        type: "ss",
        server: "198.51.100.31",
        port: 8389,
        cipher: "chacha20-ietf-poly1305",
        password: "sip-pass-2",
        udp: true,
        plugin: "obfs",
        "plugin-opts": { mode: "http", host: "www.example.com" },
      },
    ]);
  });
});

describe("parseSubscription: names", () => {
  it("gives later duplicates (2), (3) suffixes without colliding with existing names", () => {
    const link = (n: string): string => `trojan://p@t.example:443#${encodeURIComponent(n)}`;
    const r = parseSubscription(["A", "A", "A (2)", "A", " B", "B "].map(link).join("\n"));
    expect(names(r)).toEqual(["A", "A (2)", "A (2) (2)", "A (3)", "B", "B (2)"]);
  });

  it("replaces control characters in names", () => {
    const r = parseSubscription("trojan://p@t.example:443#a%0Ab%09c");
    expect(names(r)).toEqual(["a b c"]);
  });
});

describe("parseSubscription: unusable documents", () => {
  it("fails when no node is valid, saying how many were skipped", () => {
    expect(() => parseSubscription(feed("all-invalid.txt"))).toThrow(
      new SubscriptionError(
        "subscription.no_nodes",
        "The subscription contains no usable nodes (4 skipped)",
        { params: { skipped: 4 } },
      ),
    );
    const err = (() => {
      try {
        parseSubscription(feed("all-invalid.txt"));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toMatchObject({ code: "subscription.no_nodes", params: { skipped: 4 } });
    expect(() => parseSubscription("proxies: []\n")).toThrow(
      "The subscription contains no usable nodes (0 skipped)",
    );
  });

  it.each([
    ["an HTML page", feed("garbage.html")],
    ["an empty body", ""],
    ["random bytes", Buffer.from([0xff, 0xfe, 0x00, 0x81, 0x9c, 0x10])],
    ["JSON that is neither Clash nor SIP008", '{"hello": "world"}'],
    ["broken YAML", "proxies:\n  - {name: a, type: ss\n  - ]["],
    ["base64 of prose", Buffer.from("hello there, nothing to see").toString("base64")],
  ])("rejects %s as not a recognised format", (_label, body) => {
    expect(() => parseSubscription(body)).toThrow("The subscription is not in a recognised format");
  });
});
