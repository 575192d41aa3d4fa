import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { AddressInfo } from "node:net";
import selfsigned from "selfsigned";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { freePort, startLive, type LiveHarness } from "./proxy-core-harness.js";

let h: LiveHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** A local HTTPS site whose certificate names the fixed sites' hosts. */
let site: https.Server;
let sitePort = 0;
let siteCA = "";
/** A CONNECT proxy standing in for the core's mixed port; every tunnel goes to `site`. */
let proxy: net.Server;
let proxyPort = 0;
const tunnels: string[] = [];
/** When set, the proxy accepts but never answers (tests that hang). */
let stall = false;
const stalled: net.Socket[] = [];

beforeAll(async () => {
  const pems = await selfsigned.generate([{ name: "commonName", value: "test sites" }], {
    keyType: "ec",
    algorithm: "sha256",
    extensions: [
      { name: "basicConstraints", cA: true },
      {
        name: "subjectAltName",
        altNames: ["www.google.com", "www.baidu.com"].map((value) => ({ type: 2 as const, value })),
      },
    ],
  });
  siteCA = pems.cert;
  site = https.createServer({ cert: pems.cert, key: pems.private }, (req, res) => {
    res.writeHead(req.headers.host === "www.baidu.com" ? 503 : 204).end();
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  sitePort = (site.address() as AddressInfo).port;
  proxy = net.createServer((sock) => {
    if (stall) {
      stalled.push(sock);
      return;
    }
    let head = "";
    const onData = (chunk: Buffer) => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      sock.off("data", onData);
      tunnels.push(head.split(" ")[1]);
      const up = net.connect(sitePort, "127.0.0.1", () => {
        sock.write("HTTP/1.1 200 Connection established\r\n\r\n");
        sock.pipe(up).pipe(sock);
      });
      up.on("error", () => sock.destroy());
      sock.on("error", () => up.destroy());
    };
    sock.on("data", onData);
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  proxyPort = (proxy.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const s of stalled) s.destroy();
  await new Promise((r) => proxy.close(r));
  site.closeAllConnections();
  await new Promise((r) => site.close(r));
});

describe("GET /system/connectivity", () => {
  it("lists the nine fixed HTTPS sites", async () => {
    h = await startLive();
    const r = await h.request("GET", "/system/connectivity");
    expect(r.status).toBe(200);
    expect(r.json.map((s: { id: string }) => s.id)).toEqual([
      "google",
      "youtube",
      "github",
      "cloudflare",
      "openai",
      "wikipedia",
      "telegram",
      "baidu",
      "bilibili",
    ]);
    for (const s of r.json) {
      expect(s.url).toMatch(/^https:\/\//);
      expect(s.category).toBe(["baidu", "bilibili"].includes(s.id) ? "domestic" : "global");
      expect(typeof s.name).toBe("string");
    }
  });
});

describe("POST /system/connectivity/test", () => {
  it("tunnels through the mixed port and verifies TLS with the extra CA", async () => {
    h = await startLive({ options: { connectivityCA: siteCA } });
    h.store.settings.mixedPort = proxyPort;
    tunnels.length = 0;
    const r = await h.request("POST", "/system/connectivity/test", { siteId: "google" });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      status: "ok",
      httpStatus: 204,
      tlsVerified: true,
      checkedAt: "2026-01-01T00:00:00.000Z",
    });
    expect(r.json.durationMS).toBeGreaterThanOrEqual(0);
    expect(tunnels).toEqual(["www.google.com:443"]);
  });

  it("fails on a certificate it cannot verify", async () => {
    h = await startLive();
    h.store.settings.mixedPort = proxyPort;
    const r = await h.request("POST", "/system/connectivity/test", { siteId: "google" });
    expect(r.json).toMatchObject({ status: "failed", tlsVerified: false, httpStatus: 0 });
    expect(r.json.detail).not.toBe("");
  });

  it("reports a 5xx answer as failed with its status", async () => {
    h = await startLive({ options: { connectivityCA: siteCA } });
    h.store.settings.mixedPort = proxyPort;
    const r = await h.request("POST", "/system/connectivity/test", { siteId: "baidu" });
    expect(r.json).toMatchObject({ status: "failed", httpStatus: 503, tlsVerified: true });
  });

  it("fails when no core listens on the mixed port", async () => {
    h = await startLive();
    h.store.settings.mixedPort = await freePort();
    const r = await h.request("POST", "/system/connectivity/test", { siteId: "github" });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: "failed", httpStatus: 0 });
    expect(r.json).toMatchObject({
      detail: expect.stringMatching(/^The proxy core does not accept connections on port \d+/),
      code: "connectivity.proxy_down",
    });
  });

  it("answers 400 for an unknown site", async () => {
    h = await startLive();
    const r = await h.request("POST", "/system/connectivity/test", { siteId: "example" });
    expect(r.status).toBe(400);
    expect(typeof r.json.error).toBe("string");
  });

  it("answers 429 for a fourth concurrent test, and timeout for the stalled ones", async () => {
    h = await startLive({ connectivityTimeoutMs: 800 });
    h.store.settings.mixedPort = proxyPort;
    stall = true;
    try {
      const three = ["google", "youtube", "github"].map((siteId) =>
        h!.request("POST", "/system/connectivity/test", { siteId }),
      );
      await new Promise<void>((resolve) => {
        const t = setInterval(() => {
          if (stalled.length >= 3) {
            clearInterval(t);
            resolve();
          }
        }, 5);
      });
      const fourth = await h.request("POST", "/system/connectivity/test", { siteId: "telegram" });
      expect(fourth.status).toBe(429);
      const done = await Promise.all(three);
      for (const r of done) expect(r.json).toMatchObject({ status: "timeout", httpStatus: 0 });
      // Slots are free again afterwards.
      stall = false;
      h.store.settings.mixedPort = await freePort();
      const again = await h.request("POST", "/system/connectivity/test", { siteId: "telegram" });
      expect(again.status).toBe(200);
    } finally {
      stall = false;
    }
  });
});

describe("GET /system/updates", () => {
  let release: http.Server;
  let releaseURL = "";
  let hits = 0;
  let failing = false;
  beforeAll(async () => {
    release = http.createServer((_req, res) => {
      hits++;
      if (failing) return void res.writeHead(500).end("{}");
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ tag_name: "v1.19.9", html_url: "https://example.invalid/r" }));
    });
    await new Promise<void>((r) => release.listen(0, "127.0.0.1", r));
    releaseURL = `http://127.0.0.1:${(release.address() as AddressInfo).port}/latest`;
  });
  afterAll(async () => {
    await new Promise((r) => release.close(r));
  });

  it("reports the latest release, caches success for 10 minutes, then checks again", async () => {
    const clock = new ManualClock();
    h = await startLive({ clock, options: { coreReleaseURL: releaseURL } });
    hits = 0;
    failing = false;
    const r = await h.request("GET", "/system/updates");
    expect(r.status).toBe(200);
    // No core runs: the current version is unknown, so the status cannot be compared.
    expect(r.json).toEqual({
      current: "",
      latest: "v1.19.9",
      status: null,
      checkedAt: "2026-01-01T00:00:00.000Z",
      releaseURL: "https://example.invalid/r",
    });
    clock.advance(9 * 60 * 1000);
    failing = true; // a fetch now would fail: the cache must answer
    expect((await h.request("GET", "/system/updates")).status).toBe(200);
    expect(hits).toBe(1);
    clock.advance(61 * 1000);
    const expired = await h.request("GET", "/system/updates");
    expect(expired.status).toBe(502);
    expect(typeof expired.json.error).toBe("string");
    expect(hits).toBe(2);
    failing = false;
    const fresh = await h.request("GET", "/system/updates");
    expect(fresh.json.checkedAt).toBe("2026-01-01T00:10:01.000Z");
  });
});

describe("GET /system/network", () => {
  it("lists non-loopback interfaces sorted with IPv4 CIDRs and the checks", async () => {
    h = await startLive({
      options: {
        networkInterfaces: () => ({
          lo: [
            {
              address: "127.0.0.1",
              netmask: "255.0.0.0",
              family: "IPv4",
              mac: "00:00:00:00:00:00",
              internal: true,
              cidr: "127.0.0.1/8",
            },
          ],
          wlan0: [
            {
              address: "192.168.1.5",
              netmask: "255.255.255.0",
              family: "IPv4",
              mac: "aa:bb:cc:dd:ee:ff",
              internal: false,
              cidr: "192.168.1.5/24",
            },
            {
              address: "fe80::1",
              netmask: "ffff:ffff:ffff:ffff::",
              family: "IPv6",
              mac: "aa:bb:cc:dd:ee:ff",
              internal: false,
              cidr: "fe80::1/64",
              scopeid: 2,
            },
          ],
          eth0: [
            {
              address: "10.0.0.2",
              netmask: "255.255.255.0",
              family: "IPv4",
              mac: "aa:bb:cc:dd:ee:00",
              internal: false,
              cidr: "10.0.0.2/24",
            },
          ],
        }),
      },
    });
    const r = await h.request("GET", "/system/network");
    expect(r.status).toBe(200);
    expect(r.json.interfaces).toEqual([
      { name: "eth0", addresses: ["10.0.0.2/24"], up: true },
      { name: "wlan0", addresses: ["192.168.1.5/24"], up: true },
    ]);
    expect(r.json.dhcpManaged).toBe(false);
    expect(r.json.serviceControl).toBe(false);
    expect(r.json.rulesInstalled).toBe(false);
    for (const k of ["ipForward", "tunDevice"]) expect(typeof r.json[k]).toBe("boolean");
    expect(r.json.guidance).toMatch(/DHCP/);
  });
});

describe("POST /system/service", () => {
  it("answers 400 for start without an installed core and for a bad action", async () => {
    h = await startLive();
    const start = await h.request("POST", "/system/service", { action: "start" });
    expect(start.status).toBe(400);
    expect(start.json.error).toMatch(/not installed/);
    expect((await h.request("POST", "/system/service", { action: "reboot" })).status).toBe(400);
    expect(h.core.running()).toBe(false);
  });
});
