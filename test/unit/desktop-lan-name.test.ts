import { describe, expect, it } from "vitest";
import { inboxTray, lanNameEntry } from "../../main/app/desktop-inbox.js";
import type { HostInfo } from "../../main/host/host-status.js";
import { mdnsWanted } from "../../server/config.js";

/** The desktop's LAN name address (Desktop screen, tray QR codes) and the inbox's tray line. */

const info = (parcel: HostInfo["parcel"]): HostInfo => ({
  state: "ready",
  dataDir: "/data",
  parcel,
  proxy: null,
  core: null,
  error: null,
  errorCode: null,
});

describe("the LAN name on the desktop", () => {
  it("is an address on the parcel desk's own ports, HTTPS too when it runs", () => {
    const running = info({
      url: "http://127.0.0.1:8000",
      httpsUrl: "https://127.0.0.1:8443",
      entries: [],
      adminUser: "admin",
    });
    expect(lanNameEntry("study-pc.local", running)).toEqual({
      address: "study-pc.local",
      name: "study-pc.local",
      http: "http://study-pc.local:8000",
      https: "https://study-pc.local:8443",
    });
    const plain = info({ url: "http://0.0.0.0:8123", httpsUrl: null, entries: [], adminUser: "" });
    expect(lanNameEntry("study-pc.local", plain)?.https).toBeNull();
    expect(lanNameEntry("study-pc.local", plain)?.http).toBe("http://study-pc.local:8123");
  });

  it("is nothing without a name that resolves here, or while the services are down", () => {
    expect(
      lanNameEntry(
        null,
        info({ url: "http://127.0.0.1:1", httpsUrl: null, entries: [], adminUser: "" }),
      ),
    ).toBeNull();
    expect(lanNameEntry("vm.local", info(null))).toBeNull();
  });

  it("follows GATEHOUSE_MDNS", () => {
    expect(mdnsWanted({})).toBe(true);
    for (const off of ["0", "off", "FALSE", "no"])
      expect(mdnsWanted({ GATEHOUSE_MDNS: off })).toBe(false);
    expect(mdnsWanted({ GATEHOUSE_MDNS: "1" })).toBe(true);
  });
});

describe("the inbox in the tray", () => {
  it("says until when it is open, in the operator's language", () => {
    expect(inboxTray({ open: false }, "en")).toEqual({ open: false });
    const closesAt = Date.UTC(2026, 0, 1, 18, 30) / 1000;
    const open = inboxTray(
      {
        open: true,
        code: "ABC-DEF",
        url: "http://192.168.1.20:8000/#/inbox/ABCDEF",
        urls: [],
        closes_at: closesAt,
        has_password: false,
      },
      "en",
    );
    expect(open).toEqual({
      open: true,
      until: new Intl.DateTimeFormat("en", { timeStyle: "short" }).format(closesAt * 1000),
      url: "http://192.168.1.20:8000/#/inbox/ABCDEF",
    });
  });
});
