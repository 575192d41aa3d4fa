import { Ajv } from "ajv";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { compileConfig, INTERNAL_CIDRS } from "../../server/proxy/core/compile.js";
import {
  DEFAULT_SETTINGS,
  type CoreInput,
  type DeviceRule,
  type Settings,
} from "../../server/proxy/types.js";
import { createMihomoSim, type MihomoSim } from "../fixtures/mihomo-sim/index.mjs";

/**
 * Every kind of configuration the compiler writes is valid to the community's JSON Schema of
 * mihomo's configuration (test/fixtures/meta-json-schema), and the devices' policies are
 * compiled where they hold: after the internal addresses, before the custom rules, matched on
 * the device's own address whatever DNS mode the configuration uses.
 */

const SCHEMA = JSON.parse(
  readFileSync("test/fixtures/meta-json-schema/meta-json-schema.json", "utf8"),
) as object;
const ajv = new Ajv({ strict: false, allErrors: true });
const validate = ajv.compile(SCHEMA);

const SUB = "a".repeat(24);
const LAN = {
  lanIP: "192.168.1.2",
  lanCIDR: "192.168.1.0/24",
  gateway: "192.168.1.1",
  interface: "eth0",
};
const DEVICES: DeviceRule[] = [
  { ip: "192.168.1.20", policy: "block" },
  { ip: "192.168.1.30", policy: "direct" },
  { ip: "192.168.1.40", policy: "proxy" },
  { ip: "fd00::40", policy: "proxy" },
];

function input(settings: Partial<Settings>, devices: DeviceRule[] = DEVICES): CoreInput {
  return {
    settings: { ...DEFAULT_SETTINGS, ...settings },
    subscriptions: [
      {
        id: SUB,
        name: "feed",
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
    ],
    rules: [
      { id: "r1", type: "DOMAIN-SUFFIX", value: "work.example", action: "PROXY", enabled: true },
      { id: "r2", type: "IP-CIDR", value: "203.0.113.0/24", action: "DIRECT", enabled: true },
    ],
    devices,
  };
}

/** The kinds of configuration: plain, LAN listener, direct mode, TUN (fake-ip), manual, none. */
const KINDS: Record<string, CoreInput> = {
  plain: input({}),
  lan: input(LAN),
  direct: input({ ...LAN, proxyEnabled: false }),
  tun: input({ ...LAN, tunEnabled: true, dnsPort: 53 }),
  manual: input({ selectionMode: "manual", selectedNode: `${SUB}/sub-${SUB}/HK 1` }),
  "no devices": input({}, []),
};

const compiled = (inp: CoreInput) =>
  compileConfig(inp, { controllerPort: 19090, secret: "s3cret" }).yaml;

describe("compiled configurations against meta-json-schema", () => {
  for (const [kind, inp] of Object.entries(KINDS)) {
    it(`accepts the ${kind} configuration`, () => {
      const doc = parse(compiled(inp)) as unknown;
      const ok = validate(doc);
      expect(validate.errors ?? [], kind).toEqual([]);
      expect(ok).toBe(true);
    });
  }

  it("refuses a configuration with a malformed rule (the schema can fail)", () => {
    const doc = parse(compiled(KINDS.plain)) as { rules: string[] };
    doc.rules.splice(3, 0, "SRC-IP-CIDR");
    expect(validate(doc)).toBe(false);
  });
});

describe("device policies in the compiled rules", () => {
  it("come after the internal addresses and before the custom rules, one per address", () => {
    const rules = (parse(compiled(KINDS.lan)) as { rules: string[] }).rules;
    const internal = INTERNAL_CIDRS.length + 2; // the CIDRs and the .local/.lan suffixes
    expect(
      rules.slice(0, internal).every((r) => r.endsWith("DIRECT") || r.endsWith("no-resolve")),
    ).toBe(true);
    expect(rules.slice(internal, internal + 4)).toEqual([
      "SRC-IP-CIDR,192.168.1.20/32,REJECT",
      "SRC-IP-CIDR,192.168.1.30/32,DIRECT",
      "SRC-IP-CIDR,192.168.1.40/32,PROXY",
      "SRC-IP-CIDR,fd00::40/128,PROXY",
    ]);
    expect(rules[internal + 4]).toBe("DOMAIN-SUFFIX,work.example,PROXY");
  });

  const sims: MihomoSim[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const s of sims) await s.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** Where the core sends a connection under this configuration (the simulator's matcher). */
  function router(kind: "lan" | "tun") {
    const dir = mkdtempSync(join(tmpdir(), "gatehouse-rules-"));
    dirs.push(dir);
    for (const file of ["geosite.dat", "geoip.metadb"]) {
      copyFileSync(join("test/fixtures", file), join(dir, file));
    }
    const sim = createMihomoSim({ configText: compiled(KINDS[kind]), homeDir: dir });
    sims.push(sim);
    expect(sim.state.general.dns.enhancedMode).toBe(kind === "tun" ? "fake-ip" : "redir-host");
    // With fake-ip the core knows a destination by the name the device asked for: its IP is a
    // made-up one the rules never see. With redir-host it has the real address too.
    return (src: string, host: string, ip = "") => {
      const r = sim.route({ host, ip: kind === "tun" ? (host ? "" : ip) : ip, port: 443, src });
      return r.chains[r.chains.length - 1];
    };
  }

  for (const kind of ["lan", "tun"] as const) {
    it(`hold in the ${kind === "tun" ? "fake-ip (TUN)" : "redir-host"} DNS mode`, () => {
      const route = router(kind);
      // A device with no policy of its own: the custom rules, the mainland sets, the proxy.
      expect(route("192.168.1.99", "www.example.com", "93.184.216.34")).toBe("PROXY");
      expect(route("192.168.1.99", "www.baidu.com")).toBe("DIRECT");
      // Blocked: nothing but the gateway's own pages (internal addresses come first).
      expect(route("192.168.1.20", "www.example.com", "93.184.216.34")).toBe("REJECT");
      expect(route("192.168.1.20", "work.example")).toBe("REJECT");
      expect(route("192.168.1.20", "", "192.168.1.2")).toBe("DIRECT");
      expect(route("192.168.1.20", "router.lan")).toBe("DIRECT");
      // Direct: even what a custom rule or the default would proxy.
      expect(route("192.168.1.30", "work.example")).toBe("DIRECT");
      expect(route("192.168.1.30", "www.example.com")).toBe("DIRECT");
      // Through the proxy: even mainland sites.
      expect(route("192.168.1.40", "www.baidu.com")).toBe("PROXY");
      expect(route("fd00::40", "www.baidu.com")).toBe("PROXY");
      // An address written as IPv4-in-IPv6 (a dual-stack listener) is the same device.
      expect(route("::ffff:192.168.1.20", "www.example.com")).toBe("REJECT");
    });
  }
});
