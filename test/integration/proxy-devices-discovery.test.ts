import { afterEach, describe, expect, it } from "vitest";
import type { Device } from "../../server/contract/proxy-devices.js";
import { LAPTOP, PHONE, TABLET, startLan, type LanHarness } from "./proxy-devices-support.js";

let lan: LanHarness | null = null;
afterEach(async () => {
  await lan?.stop();
  lan = null;
});

async function devices(l: LanHarness): Promise<Device[]> {
  const r = await l.h.request("GET", "/devices");
  expect(r.status, r.text).toBe(200);
  return r.json as Device[];
}

/** Waits (reading again) until `check` holds for the list; the makers are looked up aside. */
async function until(l: LanHarness, check: (list: Device[]) => boolean): Promise<Device[]> {
  for (let i = 0; i < 200; i++) {
    const list = await devices(l);
    if (check(list)) return list;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the devices never got there");
}

describe("GET /devices", () => {
  it("finds devices from the core's connections: MAC from the neighbour table, name from the leases, maker from the MAC", async () => {
    lan = await startLan();
    lan.setArp([TABLET, PHONE]);
    lan.setLeases(
      [
        `0 ${TABLET.mac} ${TABLET.ip} kids-tablet 01:${TABLET.mac}`,
        `0 ${PHONE.mac} ${PHONE.ip} * *`,
        // An expired lease names nobody.
        `1000 ${LAPTOP.mac} ${LAPTOP.ip} old-laptop *`,
      ].join("\n"),
    );
    expect(await devices(lan)).toEqual([]);
    await lan.connect(TABLET.ip, 100, 1000);
    await lan.connect(PHONE.ip);
    await lan.connect(LAPTOP.ip);
    // The gateway's own programs (loopback) and the core's TUN address are not devices.
    await lan.connect("127.0.0.1", 5, 5);
    await lan.connect("198.18.0.1", 5, 5);
    await lan.poll();

    const list = await until(lan, (l) => l.some((d) => d.vendor !== null));
    expect(list.map((d) => d.id).sort()).toEqual([LAPTOP.ip, PHONE.mac, TABLET.mac].sort());
    const tablet = list.find((d) => d.id === TABLET.mac)!;
    expect(tablet).toMatchObject({
      name: "kids-tablet",
      discoveredName: "kids-tablet",
      ip: TABLET.ip,
      addresses: [TABLET.ip],
      mac: TABLET.mac,
      vendor: "Apple, Inc.",
      firstSeen: "2026-01-01T12:00:00.000Z",
      lastSeen: "2026-01-01T12:00:00.000Z",
      online: true,
      policy: "default",
    });
    // A private MAC has no maker; a device without a lease is named by its address.
    const phone = list.find((d) => d.id === PHONE.mac)!;
    expect(phone).toMatchObject({ name: PHONE.ip, discoveredName: null, vendor: null });
    const laptop = list.find((d) => d.id === LAPTOP.ip)!;
    expect(laptop).toMatchObject({ name: LAPTOP.ip, mac: null, ip: LAPTOP.ip, vendor: null });
  });

  it("counts what each device moved today, and calls a device offline five minutes after it was seen", async () => {
    lan = await startLan();
    lan.setArp([TABLET]);
    const c = await lan.connect(TABLET.ip, 100, 1000);
    // The first reading only learns the connections: they may have been counted before.
    await lan.poll();
    await lan.move(c, 400, 9000);
    await lan.poll();
    let [tablet] = await devices(lan);
    expect(tablet.today).toEqual({ upload: 400, download: 9000 });
    await lan.close(c);
    lan.h.clock.advance(5 * 60_000);
    [tablet] = await devices(lan);
    expect(tablet.online).toBe(true);
    lan.h.clock.advance(1000);
    [tablet] = await devices(lan);
    expect(tablet.online).toBe(false);
    expect(tablet.lastSeen).toBe("2026-01-01T12:00:00.000Z");
  });

  it("keeps a device known by its MAC across an address change, with its name and history", async () => {
    lan = await startLan();
    lan.setArp([TABLET]);
    const first = await lan.connect(TABLET.ip);
    await lan.poll();
    await lan.move(first, 10, 100);
    await lan.poll();
    expect(
      (await lan.h.request("PUT", `/devices/${TABLET.mac}`, { body: { name: "Tablet" } })).status,
    ).toBe(200);
    await lan.close(first);

    // A new DHCP lease: the same MAC at another address.
    lan.setArp([{ ip: "192.168.1.77", mac: TABLET.mac }]);
    lan.h.clock.advance(60_000);
    const second = await lan.connect("192.168.1.77");
    await lan.poll();
    await lan.move(second, 20, 200);
    await lan.poll();
    const list = await devices(lan);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      id: TABLET.mac,
      name: "Tablet",
      ip: "192.168.1.77",
      addresses: ["192.168.1.77"],
      today: { upload: 30, download: 300 },
    });
  });

  it("makes one device of an address first seen without a MAC once its MAC is learnt", async () => {
    lan = await startLan();
    const c = await lan.connect(TABLET.ip);
    await lan.poll();
    await lan.move(c, 1, 2);
    await lan.poll();
    expect((await devices(lan)).map((d) => d.id)).toEqual([TABLET.ip]);
    await lan.h.request("PUT", `/devices/${TABLET.ip}`, {
      body: { name: "Mystery", policy: "proxy" },
    });
    lan.h.service.accounting.flush();

    // The neighbour table learns the MAC; the table is read again at the next new address.
    lan.setArp([TABLET, LAPTOP]);
    const d = await lan.connect(LAPTOP.ip);
    await lan.poll();
    await lan.move(c, 3, 4);
    await lan.move(d, 0, 0);
    await lan.poll();
    const list = await devices(lan);
    const tablet = list.find((x) => x.ip === TABLET.ip)!;
    expect(tablet).toMatchObject({
      id: TABLET.mac,
      name: "Mystery",
      policy: "proxy",
      today: { upload: 4, download: 6 },
    });
    expect(list.some((x) => x.id === TABLET.ip)).toBe(false);
  });

  it("reads names from an odhcpd state file (OpenWrt), its IPv4 and IPv6 leases", async () => {
    lan = await startLan();
    const until = Math.floor(lan.h.clock.now() / 1000) + 3600;
    lan.setLeases(
      [
        `# br-lan ${TABLET.mac.replace(/:/g, "")} ipv4 tv-room ${until} 14 32 ${TABLET.ip}/32`,
        `${TABLET.ip}\ttv-room.lan\ttv-room`,
        `# br-lan 000100012c3a ab12 my-pc ${until} 2a 128 fd00::2a/128`,
      ].join("\n"),
    );
    await lan.connect(TABLET.ip);
    await lan.connect("fd00::2a");
    await lan.poll();
    const list = await devices(lan);
    expect(list.find((d) => d.id === TABLET.mac)?.name).toBe("tv-room");
    expect(list.find((d) => d.id === "fd00::2a")?.name).toBe("my-pc");
  });
});
