import { describe, expect, it } from "vitest";
import type { NetworkInterfaceInfo } from "node:os";
import { detectInterfaces, type InterfaceTable } from "../../main/entries/detect.js";
import {
  chooseInterfaces,
  entriesFor,
  entryState,
  MAX_ENTRY_URLS,
} from "../../main/entries/entries.js";

function v4(address: string, internal = false): NetworkInterfaceInfo {
  return {
    address,
    netmask: "255.255.255.0",
    family: "IPv4",
    mac: "00:11:22:33:44:55",
    internal,
    cidr: `${address}/24`,
  };
}

function v6(address: string): NetworkInterfaceInfo {
  return {
    address,
    netmask: "ffff:ffff:ffff:ffff::",
    family: "IPv6",
    mac: "00:11:22:33:44:55",
    internal: false,
    cidr: `${address}/64`,
    scopeid: 0,
  };
}

const table: InterfaceTable = {
  lo: [v4("127.0.0.1", true), { ...v6("::1"), internal: true }],
  wlan0: [v4("192.168.1.10"), v6("fe80::1")],
  eth0: [v4("192.168.1.9"), v4("10.0.0.7"), v4("169.254.3.4")],
  docker0: [v4("172.17.0.1")],
  "vEthernet (WSL)": [v4("172.30.0.1")],
  wlp2s0: [v4("192.168.1.10")],
};

describe("detectInterfaces", () => {
  it("keeps IPv4, non-internal, non-link-local addresses with their interface names", () => {
    expect(detectInterfaces(() => table)).toEqual([
      { name: "docker0", address: "172.17.0.1", virtual: true },
      { name: "eth0", address: "10.0.0.7", virtual: false },
      { name: "eth0", address: "192.168.1.9", virtual: false },
      { name: "vEthernet (WSL)", address: "172.30.0.1", virtual: true },
      { name: "wlan0", address: "192.168.1.10", virtual: false },
    ]);
  });

  it("reads the numeric family older Node versions reported", () => {
    const old = { eth0: [{ ...v4("192.168.5.5"), family: 4 as unknown as "IPv4" }] };
    expect(detectInterfaces(() => old)).toEqual([
      { name: "eth0", address: "192.168.5.5", virtual: false },
    ]);
  });

  it("finds nothing on a machine with only loopback", () => {
    expect(detectInterfaces(() => ({ lo: [v4("127.0.0.1", true)] }))).toEqual([]);
  });
});

describe("entries", () => {
  const detected = detectInterfaces(() => table);
  const ports = { parcel: 8000, https: 8443 };

  it("puts loopback first, then every detected LAN address except virtual bridges", () => {
    expect(entriesFor("all", detected, ports, false)).toEqual([
      "http://127.0.0.1:8000",
      "http://localhost:8000",
      "http://10.0.0.7:8000",
      "http://192.168.1.9:8000",
      "http://192.168.1.10:8000",
    ]);
  });

  it("adds the HTTPS entries after the HTTP ones when HTTPS is on", () => {
    expect(entriesFor(["192.168.1.9"], detected, ports, true)).toEqual([
      "http://127.0.0.1:8000",
      "http://localhost:8000",
      "http://192.168.1.9:8000",
      "https://127.0.0.1:8443",
      "https://localhost:8443",
      "https://192.168.1.9:8443",
    ]);
  });

  it("lets the operator choose a virtual interface explicitly", () => {
    expect(entriesFor(["172.17.0.1"], detected, ports, false)).toContain("http://172.17.0.1:8000");
  });

  it("reports a chosen address that is not on this computer instead of dropping it", () => {
    expect(chooseInterfaces(["192.168.1.9", "192.168.50.2"], detected)).toEqual({
      active: [{ name: "eth0", address: "192.168.1.9", virtual: false }],
      missing: ["192.168.50.2"],
    });
    const state = entryState(
      { chosen: ["192.168.50.2"], ports, https: true, host: "0.0.0.0" },
      detected,
    );
    expect(state.missing).toEqual(["192.168.50.2"]);
    expect(state.lan).toEqual([]);
    expect(state.urls).toEqual([
      "http://127.0.0.1:8000",
      "http://localhost:8000",
      "https://127.0.0.1:8443",
      "https://localhost:8443",
    ]);
  });

  it("takes every address of a chosen interface name, and reports a name that is not there", () => {
    expect(chooseInterfaces(["eth0", "wlan1"], detected)).toEqual({
      active: [
        { name: "eth0", address: "10.0.0.7", virtual: false },
        { name: "eth0", address: "192.168.1.9", virtual: false },
      ],
      missing: ["wlan1"],
    });
    // A name and one of its addresses both chosen: the address appears once.
    expect(chooseInterfaces(["192.168.1.9", "eth0"], detected).active).toHaveLength(2);
  });

  it("gives each LAN entry its interface name and URLs for the QR codes", () => {
    const state = entryState({ chosen: "all", ports, https: true, host: "0.0.0.0" }, detected);
    expect(state.lan[0]).toEqual({
      address: "10.0.0.7",
      name: "eth0",
      http: "http://10.0.0.7:8000",
      https: "https://10.0.0.7:8443",
    });
  });

  it("has no LAN entries when the services listen on loopback only", () => {
    expect(entriesFor("all", detected, ports, false, "127.0.0.1")).toEqual([
      "http://127.0.0.1:8000",
      "http://localhost:8000",
    ]);
    expect(entriesFor("all", detected, ports, false, "::1")).toEqual(["http://[::1]:8000"]);
  });

  it("uses the one address the services are bound to, for the window too", () => {
    expect(entriesFor(["10.0.0.7"], detected, ports, false, "192.168.1.9")).toEqual([
      "http://192.168.1.9:8000",
    ]);
    expect(entriesFor("all", detected, ports, false, "fd00::5")).toEqual(["http://[fd00::5]:8000"]);
  });

  it("stays within the protocol's limit of entries however many interfaces there are", () => {
    const many: InterfaceTable = Object.fromEntries(
      Array.from({ length: 80 }, (_, i) => [`eth${i}`, [v4(`10.1.${i}.1`)]]),
    );
    const urls = entriesFor(
      "all",
      detectInterfaces(() => many),
      ports,
      true,
    );
    expect(urls.length).toBeLessThanOrEqual(MAX_ENTRY_URLS);
    expect(urls[0]).toBe("http://127.0.0.1:8000");
    expect(urls.filter((u) => u.startsWith("https:"))).toHaveLength(urls.length / 2);
  });
});
