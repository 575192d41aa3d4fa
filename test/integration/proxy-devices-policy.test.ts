import { afterEach, describe, expect, it } from "vitest";
import type { Device } from "../../server/contract/proxy-devices.js";
import { LAPTOP, TABLET, rulesOf, startLan, type LanHarness } from "./proxy-devices-support.js";

let lan: LanHarness | null = null;
afterEach(async () => {
  await lan?.stop();
  lan = null;
});

/** The rules between the internal ones and the custom ones. */
function deviceRules(l: LanHarness): string[] {
  const rules = rulesOf(l.config());
  const afterInternal = rules.indexOf("DOMAIN-SUFFIX,lan,DIRECT") + 1;
  const custom = rules.indexOf("DOMAIN-SUFFIX,work.example,PROXY");
  expect(afterInternal).toBeGreaterThan(0);
  expect(custom).toBeGreaterThanOrEqual(afterInternal);
  return rules.slice(afterInternal, custom);
}

/** The service with a custom rule and two devices, each with one connection open. */
async function withTwoDevices(): Promise<LanHarness & { tabletConn: string }> {
  const l = await startLan();
  const rule = { type: "DOMAIN-SUFFIX", value: "work.example", action: "PROXY", enabled: true };
  expect((await l.h.request("POST", "/rules", { body: rule })).status).toBe(200);
  l.setArp([TABLET]);
  const tabletConn = await l.connect(TABLET.ip);
  await l.connect(LAPTOP.ip);
  await l.poll();
  return Object.assign(l, { tabletConn });
}

const put = (l: LanHarness, id: string, body: unknown) =>
  l.h.request("PUT", `/devices/${id}`, { body });

describe("PUT /devices/:id policy", () => {
  it("compiles each policy for the device's address after the internal rules and before the custom ones", async () => {
    lan = await withTwoDevices();
    expect(deviceRules(lan)).toEqual([]);
    for (const [policy, target] of [
      ["block", "REJECT"],
      ["direct", "DIRECT"],
      ["proxy", "PROXY"],
    ] as const) {
      const r = await put(lan, TABLET.mac, { policy });
      expect(r.status, r.text).toBe(200);
      expect(r.json).toEqual({ ok: true });
      expect(deviceRules(lan)).toEqual([`SRC-IP-CIDR,${TABLET.ip}/32,${target}`]);
    }
    expect((await put(lan, LAPTOP.ip, { policy: "block" })).status).toBe(200);
    expect(deviceRules(lan)).toEqual([
      `SRC-IP-CIDR,${TABLET.ip}/32,PROXY`,
      `SRC-IP-CIDR,${LAPTOP.ip}/32,REJECT`,
    ]);
    expect((await put(lan, TABLET.mac, { policy: "default" })).status).toBe(200);
    expect(deviceRules(lan)).toEqual([`SRC-IP-CIDR,${LAPTOP.ip}/32,REJECT`]);
    const list = (await lan.h.request("GET", "/devices")).json as Device[];
    expect(list.find((d) => d.id === LAPTOP.ip)?.policy).toBe("block");
  });

  it("follows the device to its new address and applies the configuration again", async () => {
    const l = await withTwoDevices();
    lan = l;
    expect((await put(lan, TABLET.mac, { policy: "block" })).status).toBe(200);
    // The old address stays the device's while a connection from it is open.
    await lan.close(l.tabletConn);
    const loadsBefore = ((await lan.core("GET", "/__sim/state")).json as { loads: number }).loads;
    lan.setArp([{ ip: "192.168.1.21", mac: TABLET.mac }]);
    await lan.connect("192.168.1.21");
    await lan.poll();
    await lan.settled();
    expect(deviceRules(lan)).toEqual(["SRC-IP-CIDR,192.168.1.21/32,REJECT"]);
    const loads = ((await lan.core("GET", "/__sim/state")).json as { loads: number }).loads;
    expect(loads).toBeGreaterThan(loadsBefore);
  });

  it("blocks a device's traffic in the running core, but not its way to the gateway itself", async () => {
    lan = await withTwoDevices();
    expect((await put(lan, TABLET.mac, { policy: "block" })).status).toBe(200);
    const state = async () =>
      ((await lan!.core("GET", "/__sim/state")).json as { connections: number }).connections;
    const before = await state();
    // The LAN simulation routes each device's connections through the core's rules.
    await lan.core("PUT", "/__sim/lan", {
      devices: [
        // A mainland site goes direct by the rule sets, unless the device is blocked.
        { ip: TABLET.ip, connections: 2, down: 1000, host: "www.baidu.com" },
        { ip: TABLET.ip, connections: 1, down: 10, host: "router.lan" },
        { ip: LAPTOP.ip, connections: 2, down: 1000, host: "www.baidu.com" },
      ],
    });
    await waitFor(async () => (await state()) >= before + 3);
    const conns = (
      (await lan.core("GET", "/connections")).json as {
        connections: Array<{ metadata: { sourceIP: string; host: string }; chains: string[] }>;
      }
    ).connections;
    const fromTablet = conns.filter(
      (c) => c.metadata.sourceIP === TABLET.ip && c.metadata.host !== "www.example.com",
    );
    expect(fromTablet.map((c) => c.metadata.host)).toEqual(["router.lan"]);
    expect(fromTablet[0].chains).toEqual(["DIRECT"]);
    const fromLaptop = conns.filter((c) => c.metadata.host === "www.baidu.com");
    expect(fromLaptop.map((c) => c.metadata.sourceIP)).toEqual([LAPTOP.ip, LAPTOP.ip]);
  });

  it("renames in place, clears a name with an empty one, and refuses bad input with 400", async () => {
    lan = await withTwoDevices();
    expect((await put(lan, TABLET.mac, { name: "  Kids' tablet  " })).status).toBe(200);
    let list = (await lan.h.request("GET", "/devices")).json as Device[];
    expect(list.find((d) => d.id === TABLET.mac)?.name).toBe("Kids' tablet");
    expect((await put(lan, TABLET.mac, { name: "" })).status).toBe(200);
    list = (await lan.h.request("GET", "/devices")).json as Device[];
    expect(list.find((d) => d.id === TABLET.mac)?.name).toBe(TABLET.ip);

    const bad = [
      [TABLET.mac, { policy: "allow" }],
      [TABLET.mac, { name: "x".repeat(65) }],
      [TABLET.mac, { name: 42 }],
      [TABLET.mac, { name: "bell\u0007" }],
      [TABLET.mac, { colour: "red" }],
      [TABLET.mac, "[]"],
      ["aa:bb:cc:dd:ee:ff", { name: "nobody" }],
      ["192.168.1.250", { policy: "block" }],
    ] as const;
    for (const [id, body] of bad) {
      const r = await put(lan, id, body);
      expect(r.status, `${id} ${JSON.stringify(body)}`).toBe(400);
      expect(r.json.error).toEqual(expect.any(String));
    }
    expect((await put(lan, "aa:bb:cc:dd:ee:ff", {})).json.code).toBe("device.unknown");
    expect((await lan.h.request("DELETE", "/devices/nobody")).status).toBe(400);
    // Paths differing in case or a trailing slash match nothing.
    expect((await lan.h.request("GET", "/Devices")).status).toBe(404);
    expect((await lan.h.request("GET", "/devices/")).status).toBe(404);
    expect((await lan.h.request("GET", "/devices", { noCookie: true })).status).toBe(401);
    expect((await lan.h.request("GET", "/traffic", { noCookie: true })).status).toBe(401);
    const noCsrf = await lan.h.request("PUT", `/devices/${TABLET.mac}`, {
      body: { name: "x" },
      noCsrf: true,
    });
    expect(noCsrf.status).toBe(403);
  });
});

describe("DELETE /devices/:id", () => {
  it("forgets the device, its history and its rule; a device still in use comes back as new", async () => {
    lan = await withTwoDevices();
    expect((await put(lan, TABLET.mac, { name: "Tablet", policy: "block" })).status).toBe(200);
    lan.h.service.accounting.flush();
    const r = await lan.h.request("DELETE", `/devices/${TABLET.mac}`);
    expect(r.status, r.text).toBe(200);
    expect(deviceRules(lan)).toEqual([]);
    let list = (await lan.h.request("GET", "/devices")).json as Device[];
    expect(list.map((d) => d.id)).toEqual([LAPTOP.ip]);
    const traffic = await lan.h.request("GET", `/traffic?device=${TABLET.mac}`);
    expect(traffic.status).toBe(400);
    lan.h.clock.advance(1000);
    await lan.poll();
    list = (await lan.h.request("GET", "/devices")).json as Device[];
    expect(list.find((d) => d.id === TABLET.mac)).toMatchObject({
      name: TABLET.ip,
      policy: "default",
      firstSeen: "2026-01-01T12:00:01.000Z",
    });
  });
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("never happened");
}
