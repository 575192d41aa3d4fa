import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { compileConfig, compileRules, selectionTarget } from "../../server/proxy/core/compile.js";
import {
  DEFAULT_SETTINGS,
  nodeId,
  type CoreInput,
  type RuleRecord,
  type Settings,
} from "../../server/proxy/types.js";

const A = "a".repeat(24);
const B = "b".repeat(24);

function input(settings: Partial<Settings> = {}, rules: RuleRecord[] = []): CoreInput {
  return {
    settings: { ...DEFAULT_SETTINGS, ...settings },
    subscriptions: [
      {
        id: A,
        name: "first",
        nodes: [
          {
            name: "HK 1",
            type: "ss",
            server: "1.2.3.4",
            port: 443,
            cipher: "aes-128-gcm",
            password: "x",
          },
        ],
      },
      {
        id: B,
        name: "second",
        nodes: [{ name: "HK 1", type: "trojan", server: "5.6.7.8", port: 443, password: "y" }],
      },
      { id: "c".repeat(24), name: "empty", nodes: [] },
    ],
    rules,
  };
}

interface Group {
  name: string;
  type: string;
  proxies?: string[];
  use?: string[];
  url?: string;
  interval?: number;
  tolerance?: number;
}

function compiled(inp: CoreInput) {
  const out = compileConfig(inp, { controllerPort: 19090, secret: "s3cret" });
  return { ...out, doc: parse(out.yaml) as Record<string, unknown> };
}

const LAN = { lanIP: "192.168.1.2", lanCIDR: "192.168.1.0/24" };

interface Listener {
  name: string;
  type: string;
  listen?: string;
  port: number;
  udp?: boolean;
}

/**
 * Every address the compiled configuration makes mihomo listen on, as mihomo derives it:
 * the mixed-port listener (127.0.0.1 unless `allow-lan`, then `bind-address`, "*" = all),
 * each `listeners:` entry (no `listen` = 0.0.0.0), DNS and the controller.
 */
function listenAddresses(doc: Record<string, unknown>): string[] {
  const bind = String(doc["bind-address"] ?? "*");
  const mixedHost = doc["allow-lan"] === true ? bind : "127.0.0.1";
  const out = [`${mixedHost}:${String(doc["mixed-port"])}`];
  for (const l of (doc.listeners ?? []) as Listener[])
    out.push(`${l.listen ?? "0.0.0.0"}:${l.port}`);
  out.push(String((doc.dns as { listen?: string }).listen ?? ""));
  out.push(String(doc["external-controller"]));
  return out;
}

const rule = (over: Partial<RuleRecord>): RuleRecord => ({
  id: "r".repeat(24),
  type: "DOMAIN",
  value: "example.com",
  action: "PROXY",
  enabled: true,
  ...over,
});

describe("compileConfig", () => {
  it("writes listeners, controller, secret, profile and DNS, all on loopback by default", () => {
    const { doc } = compiled(input({ mixedPort: 7891, dnsPort: 1054 }));
    expect(doc["mixed-port"]).toBe(7891);
    expect(doc["allow-lan"]).toBe(false);
    expect(doc["bind-address"]).toBe("127.0.0.1");
    expect(doc["lan-allowed-ips"]).toEqual(["127.0.0.0/8", "::1/128"]);
    expect(doc.listeners).toBeUndefined();
    expect(doc["external-controller"]).toBe("127.0.0.1:19090");
    expect(doc.secret).toBe("s3cret");
    expect(doc.mode).toBe("rule");
    expect(doc["log-level"]).toBe("info");
    expect(doc.profile).toMatchObject({ "store-selected": false });
    expect(doc.dns).toMatchObject({ enable: true, listen: "127.0.0.1:1054" });
    expect((doc.dns as { nameserver: string[] }).nameserver.length).toBeGreaterThan(0);
    expect(doc.tun).toBeUndefined();
  });

  it("switches to direct mode when the proxy is off, keeping DNS and TUN", () => {
    const { doc } = compiled(input({ proxyEnabled: false, tunEnabled: true, dnsPort: 53, ...LAN }));
    expect(doc.mode).toBe("direct");
    expect(doc.dns).toMatchObject({ enable: true, listen: "192.168.1.2:53" });
    expect(doc.tun).toMatchObject({ enable: true });
  });

  it("adds the TUN block when TUN is on", () => {
    const { doc } = compiled(input({ tunEnabled: true, dnsPort: 53 }));
    expect(doc.tun).toMatchObject({
      enable: true,
      stack: "mixed",
      "auto-route": true,
      "auto-redirect": true,
      "auto-detect-interface": true,
    });
    expect((doc.tun as { "dns-hijack": string[] })["dns-hijack"]).toContain("any:53");
    expect((doc.dns as { "enhanced-mode": string })["enhanced-mode"]).toBe("fake-ip");
  });

  it("compiles one file provider per subscription with nodes, with its prefix", () => {
    const { doc, providers } = compiled(input());
    const pp = doc["proxy-providers"] as Record<string, Record<string, unknown>>;
    expect(Object.keys(pp)).toEqual([`sub-${A}`, `sub-${B}`]);
    expect(pp[`sub-${A}`]).toMatchObject({
      type: "file",
      path: `./providers/${A}.yaml`,
      override: { "additional-prefix": `[${A}] ` },
      "health-check": { enable: true, url: DEFAULT_SETTINGS.testURL },
    });
    expect([...providers.keys()]).toEqual([A, B]);
    const file = parse(providers.get(B) as string) as { proxies: Array<{ name: string }> };
    expect(file.proxies.map((p) => p.name)).toEqual(["HK 1"]);
  });

  it("builds AUTO over every provider and PROXY as AUTO, providers, REJECT", () => {
    const { doc } = compiled(input());
    const groups = doc["proxy-groups"] as Group[];
    const auto = groups.find((g) => g.name === "AUTO") as Group;
    expect(auto).toMatchObject({ type: "url-test", use: [`sub-${A}`, `sub-${B}`] });
    expect(auto.url).toBe(DEFAULT_SETTINGS.testURL);
    expect(auto.interval).toBeGreaterThan(0);
    expect(auto.tolerance).toBeGreaterThan(0);
    const proxy = groups.find((g) => g.name === "PROXY") as Group;
    expect(proxy).toMatchObject({ type: "select", use: [`sub-${A}`, `sub-${B}`] });
    expect(proxy.proxies).toEqual(["AUTO", "REJECT"]);
  });

  it("puts REJECT first in manual mode so the selector never starts on another node", () => {
    const none = compiled(input({ selectionMode: "manual", selectedNode: "" })).doc;
    const gone = compiled(
      input({ selectionMode: "manual", selectedNode: nodeId(A, "no such node") }),
    ).doc;
    for (const doc of [none, gone]) {
      const proxy = (doc["proxy-groups"] as Group[]).find((g) => g.name === "PROXY") as Group;
      expect(proxy.proxies?.[0]).toBe("REJECT");
    }
  });

  it("without any node, AUTO holds only REJECT (never mihomo's direct fallback)", () => {
    const empty: CoreInput = { ...input(), subscriptions: [{ id: A, name: "x", nodes: [] }] };
    const { doc, providers } = compiled(empty);
    expect(doc["proxy-providers"]).toBeUndefined();
    expect(providers.size).toBe(0);
    const auto = (doc["proxy-groups"] as Group[]).find((g) => g.name === "AUTO") as Group;
    expect(auto.proxies).toEqual(["REJECT"]);
    expect(auto.use).toBeUndefined();
  });
});

describe("compileConfig: where the core listens", () => {
  const combos = [false, true].flatMap((lan) => [false, true].map((tun) => ({ lan, tun })));

  it.each(combos)(
    "never listens on every interface (LAN address $lan, TUN $tun)",
    ({ lan, tun }) => {
      const settings: Partial<Settings> = {
        mixedPort: 7890,
        dnsPort: tun ? 53 : 1053,
        tunEnabled: tun,
        ...(lan ? { ...LAN, gateway: "192.168.1.1", interface: "eth0" } : {}),
      };
      const { doc } = compiled(input(settings));
      const addrs = listenAddresses(doc);
      for (const a of addrs) {
        expect(a).not.toMatch(/^(\*|0\.0\.0\.0|::|\[::\]|):/);
      }
      const dns = tun ? 53 : 1053;
      expect(addrs).toEqual(
        lan
          ? ["127.0.0.1:7890", "192.168.1.2:7890", `192.168.1.2:${dns}`, "127.0.0.1:19090"]
          : ["127.0.0.1:7890", `127.0.0.1:${dns}`, "127.0.0.1:19090"],
      );
      expect(doc["allow-lan"]).toBe(false);
      expect(doc["bind-address"]).toBe("127.0.0.1");
      expect(doc["lan-allowed-ips"]).toEqual(
        lan ? ["192.168.1.0/24", "127.0.0.0/8", "::1/128"] : ["127.0.0.0/8", "::1/128"],
      );
      expect(doc["lan-disallowed-ips"]).toBeUndefined();
      // Nothing anywhere in the file names "every address".
      const yaml = compileConfig(input(settings), { controllerPort: 19090, secret: "s" }).yaml;
      expect(yaml).not.toMatch(/(^|[^\d.])0\.0\.0\.0|['"]\*['"]|\[::\]|::\/0/);
    },
  );

  it("adds one mixed listener on the LAN address, with its address spelled out", () => {
    const { doc } = compiled(input({ ...LAN, mixedPort: 7999 }));
    expect(doc.listeners).toEqual([
      { name: "gatehouse-lan", type: "mixed", listen: "192.168.1.2", port: 7999, udp: true },
    ]);
  });

  it.each([
    ["unspecified", "0.0.0.0"],
    ["broadcast", "255.255.255.255"],
    ["multicast", "239.1.2.3"],
    ["the loopback address itself", "127.0.0.1"],
    ["not an address", "gateway.lan"],
  ])("keeps to loopback when the LAN address is %s (%s)", (_what, lanIP) => {
    const { doc } = compiled(input({ lanIP, lanCIDR: "192.168.1.0/24" }));
    expect(listenAddresses(doc)).toEqual(["127.0.0.1:7890", "127.0.0.1:1053", "127.0.0.1:19090"]);
    expect(doc["lan-allowed-ips"]).toEqual(["127.0.0.0/8", "::1/128"]);
  });

  it("admits loopback only when the LAN network is missing or admits every address", () => {
    for (const lanCIDR of ["", "0.0.0.0/0", "not a cidr"]) {
      const { doc } = compiled(input({ lanIP: "10.1.2.3", lanCIDR }));
      expect(doc["lan-allowed-ips"], lanCIDR).toEqual(["127.0.0.0/8", "::1/128"]);
      expect((doc.listeners as Listener[])[0].listen).toBe("10.1.2.3");
    }
  });

  it("writes the LAN network in canonical form", () => {
    const { doc } = compiled(input({ lanIP: "10.1.2.3", lanCIDR: "10.1.2.3/16" }));
    expect(doc["lan-allowed-ips"]).toEqual(["10.1.0.0/16", "127.0.0.0/8", "::1/128"]);
  });
});

describe("compileRules", () => {
  it("orders internal, custom (enabled, in list order), mainland, MATCH", () => {
    const rules = compileRules([
      rule({ type: "DOMAIN", value: "a.example", action: "DIRECT" }),
      rule({ type: "DOMAIN-SUFFIX", value: "off.example", enabled: false }),
      rule({ type: "IP-CIDR", value: "203.0.113.0/24", action: "PROXY" }),
      rule({ type: "DOMAIN-SUFFIX", value: "b.example", action: "PROXY" }),
    ]);
    const firstCustom = rules.indexOf("DOMAIN,a.example,DIRECT");
    expect(rules.slice(0, firstCustom)).toContain("IP-CIDR,192.168.0.0/16,DIRECT,no-resolve");
    expect(rules.slice(0, firstCustom)).toContain("IP-CIDR,10.0.0.0/8,DIRECT,no-resolve");
    expect(rules.slice(0, firstCustom)).toContain("IP-CIDR6,fe80::/10,DIRECT,no-resolve");
    expect(rules.slice(0, firstCustom)).toContain("DOMAIN-SUFFIX,local,DIRECT");
    expect(rules.slice(firstCustom, firstCustom + 3)).toEqual([
      "DOMAIN,a.example,DIRECT",
      "IP-CIDR,203.0.113.0/24,PROXY,no-resolve",
      "DOMAIN-SUFFIX,b.example,PROXY",
    ]);
    expect(rules.join("\n")).not.toContain("off.example");
    expect(rules.slice(-3)).toEqual([
      "GEOSITE,cn,DIRECT",
      "GEOIP,CN,DIRECT,no-resolve",
      "MATCH,PROXY",
    ]);
  });
});

describe("selectionTarget", () => {
  it("is AUTO in auto mode", () => {
    expect(selectionTarget(input({ selectionMode: "auto" }))).toBe("AUTO");
  });

  it("is the chosen node's prefixed core name in manual mode", () => {
    expect(
      selectionTarget(input({ selectionMode: "manual", selectedNode: nodeId(B, "HK 1") })),
    ).toBe(`[${B}] HK 1`);
  });

  it("is REJECT in manual mode with no choice, a removed node or a foreign provider", () => {
    expect(selectionTarget(input({ selectionMode: "manual", selectedNode: "" }))).toBe("REJECT");
    expect(
      selectionTarget(input({ selectionMode: "manual", selectedNode: nodeId(A, "gone") })),
    ).toBe("REJECT");
    expect(
      selectionTarget(input({ selectionMode: "manual", selectedNode: `${A}/other/HK 1` })),
    ).toBe("REJECT");
  });
});
