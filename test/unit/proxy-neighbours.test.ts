import { describe, expect, it } from "vitest";
import {
  parseArpListing,
  parseIpNeigh,
  parseNeighbours,
} from "../../server/proxy/system/neighbours.js";

/** The neighbour tables the devices' MAC addresses come from, as each system writes them. */
describe("neighbour tables", () => {
  it("reads Linux's /proc/net/arp, leaving out incomplete entries", () => {
    const text =
      "IP address       HW type     Flags       HW address            Mask     Device\n" +
      "192.168.1.20     0x1         0x2         A4:83:E7:11:22:33     *        br-lan\n" +
      "192.168.1.21     0x1         0x0         00:00:00:00:00:00     *        br-lan\n" +
      "192.168.1.22     0x1         0x6         00:1a:11:0a:0b:0c     *        br-lan\n";
    expect([...parseNeighbours(text)]).toEqual([
      ["192.168.1.20", "a4:83:e7:11:22:33"],
      ["192.168.1.22", "00:1a:11:0a:0b:0c"],
    ]);
  });

  it("reads macOS and BSD `arp -an`, bytes without their leading zero", () => {
    const text = [
      "? (192.168.1.1) at 0:11:22:3:4:5 on en0 ifscope [ethernet]",
      "? (192.168.1.20) at a4:83:e7:11:22:33 on en0 ifscope [ethernet]",
      "? (192.168.1.30) at (incomplete) on en0 ifscope [ethernet]",
      "? (192.168.1.255) at ff:ff:ff:ff:ff:ff on en0 ifscope [ethernet]",
      "? (224.0.0.251) at 1:0:5e:0:0:fb on en0 ifscope permanent [ethernet]",
    ].join("\n");
    expect([...parseArpListing(text)]).toEqual([
      ["192.168.1.1", "00:11:22:03:04:05"],
      ["192.168.1.20", "a4:83:e7:11:22:33"],
      ["224.0.0.251", "01:00:5e:00:00:fb"],
    ]);
  });

  it("reads Windows `arp -a`", () => {
    const text = [
      "",
      "Interface: 192.168.1.5 --- 0x7",
      "  Internet Address      Physical Address      Type",
      "  192.168.1.1           00-11-22-33-44-55     dynamic",
      "  192.168.1.20          a4-83-e7-11-22-33     dynamic",
      "  192.168.1.255         ff-ff-ff-ff-ff-ff     static",
    ].join("\r\n");
    expect([...parseArpListing(text)]).toEqual([
      ["192.168.1.1", "00:11:22:33:44:55"],
      ["192.168.1.20", "a4:83:e7:11:22:33"],
    ]);
  });

  it("ignores what is not a listing", () => {
    expect(parseArpListing("arp: command not found\n").size).toBe(0);
    expect(parseArpListing("x".repeat(10_000)).size).toBe(0);
  });

  it("reads Linux's IPv6 neighbours from `ip -6 neigh`, leaving out those without a MAC", () => {
    const text = [
      "2001:DB8::5 dev br-lan lladdr a4:83:e7:11:22:33 REACHABLE",
      "fe80::1 dev br-lan lladdr 00:11:22:33:44:55 router STALE",
      "2001:db8::6 dev br-lan FAILED",
      "2001:db8::7 dev br-lan lladdr 00:00:00:00:00:00 NOARP",
      "garbage",
    ].join("\n");
    expect([...parseIpNeigh(text)]).toEqual([
      ["2001:db8::5", "a4:83:e7:11:22:33"],
      ["fe80::1", "00:11:22:33:44:55"],
    ]);
  });
});
