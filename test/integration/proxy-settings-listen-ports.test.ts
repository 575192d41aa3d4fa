import { createSocket, type Socket } from "node:dgram";
import net from "node:net";
import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listenTaken } from "../../server/proxy/core/listen-ports.js";
import { DEFAULT_SETTINGS, type Settings } from "../../server/proxy/types.js";
import { FakeCore, startProxy, type ProxyHarness } from "./proxy-api-harness.js";
import { freePort } from "./proxy-core-harness.js";

/** The shared fake mihomo executable (it really listens on the mixed port). */
const FAKE_CORE = resolve("test/fixtures/fake-core.mjs");

let h: ProxyHarness | null = null;
const holders: Array<net.Server | Socket> = [];

afterEach(async () => {
  await h?.request("POST", "/system/service", { body: { action: "stop" } }).catch(() => undefined);
  await h?.close();
  h = null;
  for (const s of holders.splice(0)) {
    await new Promise<void>((r) => (s instanceof net.Server ? s.close(() => r()) : s.close(r)));
  }
});

/** Another program listening on host:port (port 0: any free one); answers the port. */
async function holdTcp(host: string, port = 0): Promise<number> {
  const s = net.createServer((sock) => sock.destroy());
  await new Promise<void>((r) => s.listen(port, host, r));
  holders.push(s);
  return (s.address() as net.AddressInfo).port;
}

/** Another program's UDP socket (a DNS server, say) on host:port. */
async function holdUdp(host: string, port = 0): Promise<number> {
  const s = createSocket("udp4");
  await new Promise<void>((r) => s.bind(port, host, r));
  holders.push(s);
  return s.address().port;
}

async function withFakeCore(): Promise<FakeCore> {
  const core = new FakeCore();
  h = await startProxy({ core });
  await h.setup();
  return core;
}

function put(patch: Partial<Settings>) {
  return h!.request("PUT", "/settings", { body: { ...DEFAULT_SETTINGS, ...patch } });
}

describe("PUT /settings with a port another program holds", () => {
  it("refuses the HTTP/SOCKS port with 409, names the port, and keeps the settings", async () => {
    const core = await withFakeCore();
    const port = await holdTcp("127.0.0.1");
    const applied = core.applied.length;
    const r = await put({ mixedPort: port });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({
      error: `Port ${port} is used by another program; choose another port`,
      code: "settings.port_in_use",
      params: { port, field: "mixedPort", address: "127.0.0.1" },
    });
    expect((await h!.request("GET", "/settings")).json.mixedPort).toBe(DEFAULT_SETTINGS.mixedPort);
    expect(core.applied.length).toBe(applied);
  });

  it("saves the same port once the other program has let it go", async () => {
    await withFakeCore();
    const port = await holdTcp("127.0.0.1");
    expect((await put({ mixedPort: port })).status).toBe(409);
    const holder = holders.pop() as net.Server;
    await new Promise((r) => holder.close(r));
    const r = await put({ mixedPort: port });
    expect(r.status, r.text).toBe(200);
    expect(r.json.mixedPort).toBe(port);
  });

  it("checks the LAN address too when LAN access is on", async () => {
    await withFakeCore();
    // Held on the LAN address only: loopback alone is free. The port comes from freePort()
    // (free on every address, below the range the OS hands out): a port 0 picked on
    // 127.0.0.2 alone was once held on 127.0.0.1 by another process, and the check said so.
    const port = await holdTcp("127.0.0.2", await freePort());
    const lan = { mixedPort: port, lanIP: "127.0.0.2", lanCIDR: "127.0.0.0/8" };
    const r = await put(lan);
    expect(r.status).toBe(409);
    expect(r.json.params).toEqual({ port, field: "mixedPort", address: "127.0.0.2" });
    expect((await put({ mixedPort: port })).status).toBe(200);
    // Turning LAN access on later adds the LAN listener, so it is checked then.
    expect((await put(lan)).status).toBe(409);
  });

  it("refuses a DNS port whose UDP socket another program holds", async () => {
    await withFakeCore();
    const port = await holdUdp("127.0.0.1");
    const r = await put({ dnsPort: port });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({
      code: "settings.port_in_use",
      params: { port, field: "dnsPort", address: "127.0.0.1" },
    });
  });

  it("does not count the running core's own listener as another program", async () => {
    h = await startProxy({ coreBin: FAKE_CORE, controllerPort: await freePort() });
    await h.setup();
    const mixedPort = await freePort();
    expect((await put({ mixedPort })).status).toBe(200);
    const started = await h.request("POST", "/system/service", { body: { action: "start" } });
    expect(started.status, started.text).toBe(200);
    // The core really holds the port now.
    expect(await listenTaken({ host: "127.0.0.1", port: mixedPort, protocol: "tcp" })).toBe(true);
    const r = await put({ mixedPort, testTimeoutMS: 4000 });
    expect(r.status, r.text).toBe(200);
    expect(r.json.testTimeoutMS).toBe(4000);
    // Moving to a port someone else holds is still refused while the core runs.
    const other = await holdTcp("127.0.0.1");
    const moved = await put({ mixedPort: other });
    expect(moved.status).toBe(409);
    expect(moved.json.params).toMatchObject({ port: other });
    expect((await h.request("GET", "/settings")).json.mixedPort).toBe(mixedPort);
  });
});
