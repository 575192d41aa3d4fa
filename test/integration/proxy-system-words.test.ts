import http from "node:http";
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import selfsigned from "selfsigned";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeCore, startProxy, type ProxyHarness } from "./proxy-api-harness.js";
import { freePort, refusedPort, startLive, type LiveHarness } from "./proxy-core-harness.js";

/** Node's own socket and fetch wording, which a person should never be shown. */
const RAW = /fetch failed|ECONN|ENOTFOUND|EAI_AGAIN|self[- ]signed|socket|getaddrinfo|connect /i;

let live: LiveHarness | null = null;
let api: ProxyHarness | null = null;
afterEach(async () => {
  await live?.close();
  live = null;
  await api?.close();
  api = null;
});

describe("GET /system/updates when the check fails", () => {
  let release: http.Server;
  let releaseURL = "";
  beforeAll(async () => {
    release = http.createServer((_req, res) => res.writeHead(503).end("down"));
    await new Promise<void>((r) => release.listen(0, "127.0.0.1", r));
    releaseURL = `http://127.0.0.1:${(release.address() as AddressInfo).port}/latest`;
  });
  afterAll(async () => {
    await new Promise((r) => release.close(r));
  });

  it("says once that the release server could not be reached, without the network library's text", async () => {
    live = await startLive({
      options: { coreReleaseURL: `http://127.0.0.1:${await refusedPort()}/x` },
    });
    const r = await live.request("GET", "/system/updates");
    expect(r.status).toBe(502);
    expect(r.json).toEqual({
      error: "The update check failed: the release server could not be reached",
      code: "updates.unreachable",
    });
  });

  it("names the release server's HTTP status with its own code", async () => {
    live = await startLive({ options: { coreReleaseURL: releaseURL } });
    const r = await live.request("GET", "/system/updates");
    expect(r.status).toBe(502);
    expect(r.json).toEqual({
      error: "The update check failed: the release server answered with HTTP status 503",
      code: "updates.http_status",
      params: { status: 503 },
    });
    expect(r.json.error.match(/update check failed/gi)).toHaveLength(1);
  });
});

describe("connectivity results", () => {
  let site: https.Server;
  let proxy: net.Server;
  let proxyPort = 0;
  beforeAll(async () => {
    const pems = await selfsigned.generate([{ name: "commonName", value: "www.github.com" }], {
      keyType: "ec",
      algorithm: "sha256",
      extensions: [
        { name: "subjectAltName", altNames: [{ type: 2 as const, value: "github.com" }] },
      ],
    });
    site = https.createServer({ cert: pems.cert, key: pems.private }, (_q, s) => s.end());
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
    const sitePort = (site.address() as AddressInfo).port;
    // Stands in for the core's mixed port: every tunnel leads to the self-signed site.
    proxy = net.createServer((sock) => {
      sock.on("error", () => undefined);
      sock.once("data", () => {
        const up = net.connect(sitePort, "127.0.0.1", () => {
          sock.write("HTTP/1.1 200 Connection established\r\n\r\n");
          sock.pipe(up).pipe(sock);
        });
        up.on("error", () => sock.destroy());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    proxyPort = (proxy.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => proxy.close(r));
    site.closeAllConnections();
    await new Promise((r) => site.close(r));
  });

  it("says a certificate it cannot verify is not trusted", async () => {
    live = await startLive();
    live.store.settings.mixedPort = proxyPort;
    const r = await live.request("POST", "/system/connectivity/test", { siteId: "github" });
    expect(r.json).toMatchObject({
      status: "failed",
      detail: "The certificate is not trusted",
      code: "connectivity.cert_untrusted",
    });
  });

  it("says the core does not take connections when nothing listens on the mixed port", async () => {
    live = await startLive();
    const port = await refusedPort();
    live.store.settings.mixedPort = port;
    const r = await live.request("POST", "/system/connectivity/test", { siteId: "github" });
    expect(r.json).toMatchObject({
      status: "failed",
      detail: `The proxy core does not accept connections on port ${port}; is it running?`,
      code: "connectivity.proxy_down",
    });
    expect(r.json.detail).not.toMatch(RAW);
  });

  it("gives the refusal of an unknown site a code", async () => {
    live = await startLive();
    const r = await live.request("POST", "/system/connectivity/test", { siteId: "nowhere" });
    expect(r.json).toMatchObject({ code: "connectivity.unknown_site" });
  });
});

describe("offline connections", () => {
  it("answer 503 with one sentence and a code, the socket's words kept out", async () => {
    live = await startLive({ controllerPort: await freePort() });
    const r = await live.request("GET", "/connections");
    expect(r.status).toBe(503);
    expect(r.json).toEqual({
      error: "The proxy core is not running or cannot be reached",
      code: "core.unreachable",
    });
  });
});

describe("POST /system/restore of a file that is no backup", () => {
  it.each([
    ["an object without version or state", { hello: 1 }],
    ["an array", [1, 2]],
  ])("says %s is not a Gatehouse backup", async (_what, body) => {
    api = await startProxy({ core: new FakeCore() });
    await api.setup();
    const r = await api.request("POST", "/system/restore", { body: JSON.stringify(body) });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      error: "This file is not a Gatehouse backup",
      code: "backup.not_backup",
    });
  });

  it("keeps the version sentence for a backup of another version", async () => {
    api = await startProxy({ core: new FakeCore() });
    await api.setup();
    const r = await api.request("POST", "/system/restore", {
      body: { version: 2, exportedAt: "2030-01-01T00:00:00.000Z", state: {} },
    });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      error: "Unsupported backup version (only 1 is accepted)",
      code: "backup.version",
    });
  });
});

describe("GET /system/network", () => {
  it("names each step still needed for a gateway by a code, DHCP last", async () => {
    live = await startLive({ options: { networkInterfaces: () => ({}) } });
    const r = await live.request("GET", "/system/network");
    expect(r.status).toBe(200);
    const codes = r.json.guidanceCodes as string[];
    expect(codes[codes.length - 1]).toBe("no_dhcp");
    // No core executable in this harness: the service cannot control one.
    expect(codes).toContain("core_missing");
    for (const c of codes) {
      expect(["ip_forward", "tun_device", "geodata", "core_missing", "no_dhcp"]).toContain(c);
    }
    expect(codes.includes("geodata")).toBe(!r.json.rulesInstalled);
  });
});
