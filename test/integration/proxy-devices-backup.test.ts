import { afterEach, describe, expect, it } from "vitest";
import type { Device } from "../../server/contract/proxy-devices.js";
import { FakeCore, startProxy, type ProxyHarness } from "./proxy-api-harness.js";
import { LAPTOP, TABLET, startLan, type LanHarness } from "./proxy-devices-support.js";

const open: Array<ProxyHarness | LanHarness> = [];
afterEach(async () => {
  for (const x of open.splice(0)) await ("stop" in x ? x.stop() : x.close());
});

const list = async (h: ProxyHarness) => (await h.request("GET", "/devices")).json as Device[];
const choices = (devices: Device[]) =>
  Object.fromEntries(devices.map((d) => [d.id, [d.name, d.policy]]));

describe("backup and restore of the devices", () => {
  it("carries each device's name and policy, and a restore puts them back", async () => {
    const lan = await startLan();
    open.push(lan);
    const { h } = lan;
    lan.setArp([TABLET]);
    await lan.connect(TABLET.ip);
    await lan.connect(LAPTOP.ip);
    await lan.poll();
    await h.request("PUT", `/devices/${TABLET.mac}`, { body: { name: "Tablet", policy: "block" } });
    const backup = (await h.request("GET", "/system/backup")).json;
    expect(backup.state.devices).toEqual([
      { id: LAPTOP.ip, name: "", policy: "default" },
      { id: TABLET.mac, name: "Tablet", policy: "block" },
    ]);

    await h.request("PUT", `/devices/${TABLET.mac}`, { body: { name: "Other", policy: "direct" } });
    await h.request("PUT", `/devices/${LAPTOP.ip}`, { body: { name: "Laptop", policy: "proxy" } });
    const r = await h.request("POST", "/system/restore", { body: backup });
    expect(r.status, r.text).toBe(200);
    expect(choices(await list(h))).toEqual({
      [TABLET.mac]: ["Tablet", "block"],
      [LAPTOP.ip]: [LAPTOP.ip, "default"],
    });
    // The restored policy reached the core's rules.
    expect(lan.config()).toContain(`SRC-IP-CIDR,${TABLET.ip}/32,REJECT`);
    expect(lan.config()).not.toContain(`SRC-IP-CIDR,${LAPTOP.ip}/32`);
  });

  it("keeps a device of another gateway's backup, to be recognised by its MAC when it shows up", async () => {
    const lan = await startLan();
    open.push(lan);
    const { h } = lan;
    const backup = (await h.request("GET", "/system/backup")).json;
    backup.state.devices = [
      { id: TABLET.mac, name: "Tablet", policy: "block" },
      { id: "192.168.001.030", name: "bad", policy: "default" },
    ];
    // An address written another way than its canonical form is refused by the schema.
    expect((await h.request("POST", "/system/restore", { body: backup })).status).toBe(400);
    backup.state.devices[1] = { id: "fd00:0::7", name: "Printer", policy: "default" };
    const r = await h.request("POST", "/system/restore", { body: backup });
    expect(r.status, r.text).toBe(200);
    const before = await list(h);
    expect(before.find((d) => d.id === TABLET.mac)).toMatchObject({
      name: "Tablet",
      policy: "block",
      firstSeen: null,
      lastSeen: null,
      online: false,
      ip: null,
      addresses: [],
      mac: TABLET.mac,
    });
    expect(before.find((d) => d.id === "fd00::7")?.name).toBe("Printer");

    lan.setArp([TABLET]);
    await lan.connect(TABLET.ip);
    await lan.poll();
    await lan.settled();
    const after = (await list(h)).find((d) => d.id === TABLET.mac);
    expect(after).toMatchObject({ name: "Tablet", policy: "block", ip: TABLET.ip, online: true });
    expect(after?.firstSeen).toBe("2026-01-01T12:00:00.000Z");
    expect(lan.config()).toContain(`SRC-IP-CIDR,${TABLET.ip}/32,REJECT`);
  });

  it("leaves the devices alone when a backup from before devices has none, and refuses bad ones", async () => {
    const core = new FakeCore();
    const h = await startProxy({ core });
    open.push(h);
    await h.setup();
    const backup = (await h.request("GET", "/system/backup")).json;
    backup.state.devices = [{ id: TABLET.mac, name: "Tablet", policy: "proxy" }];
    expect((await h.request("POST", "/system/restore", { body: backup })).status).toBe(200);
    delete backup.state.devices;
    expect((await h.request("POST", "/system/restore", { body: backup })).status).toBe(200);
    expect(choices(await list(h))).toEqual({ [TABLET.mac]: ["Tablet", "proxy"] });
    expect(core.lastApplied?.devices).toEqual([]);

    for (const devices of [
      [{ id: "AA:BB:CC:DD:EE:FF", name: "", policy: "default" }],
      [{ id: TABLET.mac, name: "", policy: "allow" }],
      [{ id: TABLET.mac, name: "x".repeat(65), policy: "default" }],
      [{ id: TABLET.mac, name: "", policy: "default", extra: 1 }],
      [
        { id: TABLET.mac, name: "a", policy: "default" },
        { id: TABLET.mac, name: "b", policy: "default" },
      ],
      "nope",
    ]) {
      const r = await h.request("POST", "/system/restore", {
        body: { ...backup, state: { ...backup.state, devices } },
      });
      expect(r.status, JSON.stringify(devices)).toBe(400);
    }
    expect(choices(await list(h))).toEqual({ [TABLET.mac]: ["Tablet", "proxy"] });
  });

  it("undoes a restore's device choices with its settings when the change is not confirmed", async () => {
    const core = new FakeCore();
    core.isRunning = true;
    const h = await startProxy({ core, probationCheckMs: 0 });
    open.push(h);
    await h.setup();
    const backup = (await h.request("GET", "/system/backup")).json;
    backup.state.devices = [
      { id: TABLET.mac, name: "Tablet", policy: "block" },
      { id: LAPTOP.ip, name: "Laptop", policy: "direct" },
    ];
    expect((await h.request("POST", "/system/restore", { body: backup })).status).toBe(200);
    await h.request("POST", "/system/confirm");

    // A restore that turns the proxy off waits for confirmation; meanwhile the laptop is renamed.
    backup.state.settings = { ...backup.state.settings, proxyEnabled: false };
    backup.state.devices = [{ id: TABLET.mac, name: "Renamed", policy: "proxy" }];
    const r = await h.request("POST", "/system/restore", { body: backup });
    expect(r.status, r.text).toBe(200);
    expect(r.headers["x-gatehouse-probation"]).toBeDefined();
    expect(choices(await list(h))).toEqual({ [TABLET.mac]: ["Renamed", "proxy"] });
    await h.request("PUT", `/devices/${TABLET.mac}`, { body: { name: "Mine now" } });

    expect((await h.request("POST", "/system/probation/revert")).status).toBe(200);
    // The laptop the restore had dropped is back; the rename made since stays.
    expect(choices(await list(h))).toEqual({
      [TABLET.mac]: ["Mine now", "proxy"],
      [LAPTOP.ip]: ["Laptop", "direct"],
    });
    expect(core.lastApplied?.devices).toEqual([{ ip: LAPTOP.ip, policy: "direct" }]);
  });
});
