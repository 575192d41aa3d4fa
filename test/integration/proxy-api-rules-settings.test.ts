import type { NetworkInterfaceInfo } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../server/proxy/types.js";
import { freePort } from "../helpers/free-ports.js";
import { FakeCore, startProxy, type ProxyHarness } from "./proxy-api-harness.js";

let h: ProxyHarness;
let core: FakeCore;
afterEach(async () => h?.close());

const iface = (address: string): NetworkInterfaceInfo => ({
  address,
  netmask: "255.255.255.0",
  family: "IPv4",
  mac: "00:11:22:33:44:55",
  internal: false,
  cidr: `${address}/24`,
});
const interfaces = () => ({
  eth0: [iface("192.168.1.2")],
  lo: [{ ...iface("127.0.0.1"), internal: true }],
});

async function start(): Promise<void> {
  core = new FakeCore();
  h = await startProxy({ core, networkInterfaces: interfaces });
  await h.setup();
}

const rule = (patch: Record<string, unknown> = {}) => ({
  type: "DOMAIN-SUFFIX",
  value: "example.com",
  action: "DIRECT",
  enabled: true,
  ...patch,
});

describe("GET /rules", () => {
  it("answers the four defaults and no custom rules", async () => {
    await start();
    const r = await h.request("GET", "/rules");
    expect(r.status).toBe(200);
    expect(r.json.custom).toEqual([]);
    expect(r.json.defaults.map((d: { action: string }) => d.action)).toEqual([
      "DIRECT",
      "CUSTOM",
      "DIRECT",
      "PROXY",
    ]);
    for (const d of r.json.defaults) expect(d.match).toEqual(expect.any(String));
  });
});

describe("POST /rules", () => {
  it.each([
    ["DOMAIN", "  WWW.Example.COM ", "www.example.com"],
    ["DOMAIN-SUFFIX", "CN", "cn"],
    ["DOMAIN-SUFFIX", "bücher.example", "xn--bcher-kva.example"],
    ["IP-CIDR", "10.1.2.3/8", "10.0.0.0/8"],
    ["IP-CIDR", "192.168.1.7", "192.168.1.7/32"],
    ["IP-CIDR", "2001:DB8:0:0:1::1/64", "2001:db8::/64"],
    ["IP-CIDR", "fe80::1/128", "fe80::1/128"],
  ])("saves %s %j as %j and applies it", async (type, value, saved) => {
    await start();
    const r = await h.request("POST", "/rules", { body: rule({ type, value }) });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ id: expect.stringMatching(/^[0-9a-f]{24}$/) });
    const expected = { id: r.json.id, type, value: saved, action: "DIRECT", enabled: true };
    expect((await h.request("GET", "/rules")).json.custom).toEqual([expected]);
    expect(core.lastApplied?.rules).toEqual([expected]);
  });

  it.each([
    [{ type: "GEOIP" }],
    [{ action: "REJECT" }],
    [{ enabled: "yes" }],
    [{ value: "" }],
    [{ value: "exa mple.com" }],
    [{ value: "-bad-.com" }],
    [{ value: "a..b" }],
    [{ value: `${"a".repeat(64)}.com` }],
    [{ type: "IP-CIDR", value: "10.0.0.0/33" }],
    [{ type: "IP-CIDR", value: "300.1.1.1/8" }],
    [{ type: "IP-CIDR", value: "example.com" }],
    [{ type: "IP-CIDR", value: "2001:db8::/129" }],
    [{ value: 5 }],
  ])("answers 400 for %j", async (patch) => {
    await start();
    const r = await h.request("POST", "/rules", { body: rule(patch) });
    expect(r.status).toBe(400);
    expect(r.json.error).toEqual(expect.any(String));
    expect((await h.request("GET", "/rules")).json.custom).toEqual([]);
  });
});

describe("PUT, DELETE and order of /rules", () => {
  it("edits, reorders and deletes, re-applying each time", async () => {
    await start();
    const ids: string[] = [];
    for (const v of ["a.example", "b.example", "c.example"]) {
      ids.push((await h.request("POST", "/rules", { body: rule({ value: v }) })).json.id);
    }
    const edit = await h.request("PUT", `/rules/${ids[1]}`, {
      body: rule({ type: "DOMAIN", value: "B.example", action: "PROXY", enabled: false }),
    });
    expect(edit.status).toBe(200);
    expect(edit.json).toEqual({ id: ids[1] });
    const order = await h.request("PUT", "/rules/order", {
      body: { ids: [ids[2], ids[0], ids[1]] },
    });
    expect(order.status).toBe(200);
    expect(order.json).toEqual({ ok: true });
    const custom = (await h.request("GET", "/rules")).json.custom;
    expect(custom.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[0], ids[1]]);
    expect(custom[2]).toEqual({
      id: ids[1],
      type: "DOMAIN",
      value: "b.example",
      action: "PROXY",
      enabled: false,
    });
    expect(core.lastApplied?.rules.map((r) => r.id)).toEqual([ids[2], ids[0], ids[1]]);
    const del = await h.request("DELETE", `/rules/${ids[0]}`);
    expect(del.json).toEqual({ ok: true });
    expect(core.lastApplied?.rules.map((r) => r.id)).toEqual([ids[2], ids[1]]);
  });

  it("answers 400 for unknown ids and for an order that is not a permutation", async () => {
    await start();
    const id = (await h.request("POST", "/rules", { body: rule() })).json.id;
    const id2 = (await h.request("POST", "/rules", { body: rule({ value: "x.example" }) })).json.id;
    expect((await h.request("PUT", `/rules/${"f".repeat(24)}`, { body: rule() })).status).toBe(400);
    expect((await h.request("DELETE", `/rules/${"f".repeat(24)}`)).status).toBe(400);
    expect((await h.request("PUT", "/rules/order", { body: { ids: [id] } })).status).toBe(400);
    expect((await h.request("PUT", "/rules/order", { body: { ids: [id, id] } })).status).toBe(400);
    expect(
      (await h.request("PUT", "/rules/order", { body: { ids: [id, id2, "f".repeat(24)] } })).status,
    ).toBe(400);
    expect((await h.request("GET", "/rules")).json.custom.map((r: { id: string }) => r.id)).toEqual(
      [id, id2],
    );
  });

  it("keeps the previous rules when the core refuses the configuration", async () => {
    await start();
    core.failApply = "configuration test failed";
    const r = await h.request("POST", "/rules", { body: rule() });
    expect(r.status).toBe(400);
    expect((await h.request("GET", "/rules")).json.custom).toEqual([]);
  });
});

describe("GET/PUT /settings", () => {
  it("answers the defaults, then replaces all and applies", async () => {
    await start();
    const r = await h.request("GET", "/settings");
    expect(r.json).toEqual(DEFAULT_SETTINGS);
    // Another port than the default, free on this machine (a taken one is refused with 409).
    const next = {
      ...DEFAULT_SETTINGS,
      proxyEnabled: false,
      mixedPort: await freePort(),
      testTimeoutMS: 100,
      lanCIDR: "192.168.1.9/24",
    };
    const put = await h.request("PUT", "/settings", { body: next });
    expect(put.status).toBe(200);
    expect(put.json).toEqual({ ...next, lanCIDR: "192.168.1.0/24" });
    expect((await h.request("GET", "/settings")).json).toEqual(put.json);
    expect(core.lastApplied?.settings).toEqual(put.json);
  });

  it("accepts TUN when the interface and lanIP belong to this machine", async () => {
    await start();
    const tun = {
      ...DEFAULT_SETTINGS,
      tunEnabled: true,
      dnsPort: 53,
      lanIP: "192.168.1.2",
      lanCIDR: "192.168.1.0/24",
      gateway: "192.168.1.1",
      interface: "eth0",
    };
    expect((await h.request("PUT", "/settings", { body: tun })).status).toBe(200);
  });

  const tunBase = {
    ...DEFAULT_SETTINGS,
    tunEnabled: true,
    dnsPort: 53,
    lanIP: "192.168.1.2",
    lanCIDR: "192.168.1.0/24",
    gateway: "192.168.1.1",
    interface: "eth0",
  };
  it.each([
    ["mixedPort below 1024", { mixedPort: 1023 }],
    ["mixedPort above 65535", { mixedPort: 65536 }],
    ["mixedPort equal to dnsPort", { mixedPort: 1053 }],
    ["dnsPort 0", { dnsPort: 0 }],
    ["testTimeoutMS 99", { testTimeoutMS: 99 }],
    ["testTimeoutMS 30001", { testTimeoutMS: 30001 }],
    ["a non-http testURL", { testURL: "ftp://x.example/" }],
    ["a bad selectionMode", { selectionMode: "fastest" }],
    ["a string port", { mixedPort: "7890" }],
    ["TUN without dnsPort 53", { ...tunBase, dnsPort: 1053 }],
    ["TUN without LAN fields", { ...tunBase, gateway: "" }],
    ["TUN with an unknown interface", { ...tunBase, interface: "wlan9" }],
    [
      "TUN with a lanIP of another interface",
      { ...tunBase, lanIP: "127.0.0.1", interface: "eth0" },
    ],
    ["TUN with a lanIP not on this machine", { ...tunBase, lanIP: "192.168.1.3" }],
  ])("answers 400 for %s", async (_label, patch) => {
    await start();
    const r = await h.request("PUT", "/settings", { body: { ...DEFAULT_SETTINGS, ...patch } });
    expect(r.status).toBe(400);
    expect(r.json.error).toEqual(expect.any(String));
    expect((await h.request("GET", "/settings")).json).toEqual(DEFAULT_SETTINGS);
  });

  it("answers 400 for a missing field, the service's own port and the controller's", async () => {
    await start();
    const { testURL: _omit, ...missing } = DEFAULT_SETTINGS;
    expect((await h.request("PUT", "/settings", { body: missing })).status).toBe(400);
    const own = await h.request("PUT", "/settings", {
      body: { ...DEFAULT_SETTINGS, mixedPort: h.port },
    });
    expect(own.status).toBe(400);
    expect(own.json.error).toMatch(/port of this service/);
    // The core's controller port, whatever it is here (the ports in use, not fixed numbers).
    const controller = h.service.ctx.options.controllerPort;
    const taken = await h.request("PUT", "/settings", {
      body: { ...DEFAULT_SETTINGS, mixedPort: controller },
    });
    expect(taken.status).toBe(400);
    expect(taken.json).toMatchObject({
      code: "settings.mixed_port_controller",
      params: { port: controller },
    });
  });
});
