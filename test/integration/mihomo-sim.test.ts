import { execFile, spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parse, stringify } from "yaml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compileConfig } from "../../server/proxy/core/compile.js";
import { CoreApiError } from "../../server/proxy/core/errors.js";
import { MihomoClient } from "../../server/proxy/core/mihomo-client.js";
import { DEFAULT_SETTINGS, nodeId } from "../../server/proxy/types.js";
import {
  createMihomoSim,
  parseProviderYaml,
  simulatedDelay,
  startMixedListener,
  type MihomoSim,
  type MihomoSimOptions,
} from "../fixtures/mihomo-sim/index.mjs";
import { freePort, waitFor } from "./proxy-core-harness.js";
import { FIXTURE_GEODATA_DIR, geoSiteBytes } from "../fixtures/geodata-server.js";

const FAKE_CORE = resolve("test/fixtures/fake-core.mjs");
const SECRET = "s3cret";
const URL204 = "https://www.gstatic.com/generate_204";

let home = "";
let sim: MihomoSim | null = null;
const cleanups: Array<() => Promise<void> | void> = [];

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "gatehouse-sim-"));
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await sim?.close();
  sim = null;
  rmSync(home, { recursive: true, force: true });
});

const NODES_A = [
  {
    name: "HK 1",
    type: "ss",
    server: "hk1.example.net",
    port: 8388,
    cipher: "aes-128-gcm",
    password: "p",
  },
  {
    name: "JP 2",
    type: "vmess",
    server: "jp2.example.net",
    port: 443,
    uuid: "u",
    alterId: 0,
    cipher: "auto",
  },
  { name: "a/b 🇺🇸 US", type: "trojan", server: "us.example.net", port: 443, password: "p" },
  {
    name: "dead",
    type: "ss",
    server: "dead.invalid",
    port: 1,
    cipher: "aes-128-gcm",
    password: "p",
  },
  {
    name: "refused",
    type: "ss",
    server: "127.0.0.1",
    port: 1,
    cipher: "aes-128-gcm",
    password: "p",
  },
];
const NODES_B = [
  {
    name: "HK 1",
    type: "ss",
    server: "other-hk.example.net",
    port: 9000,
    cipher: "aes-128-gcm",
    password: "p",
  },
];

function writeProviders(): void {
  mkdirSync(join(home, "providers"), { recursive: true });
  writeFileSync(join(home, "providers", "a.yaml"), stringify({ proxies: NODES_A }));
  writeFileSync(join(home, "providers", "b.yaml"), stringify({ proxies: NODES_B }));
}

function baseConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "mixed-port": 0,
    "external-controller": "127.0.0.1:0",
    secret: SECRET,
    mode: "rule",
    profile: { "store-selected": false },
    proxies: [{ name: "inline", type: "http", server: "in.example.net", port: 3128 }],
    "proxy-providers": {
      "sub-a": {
        type: "file",
        path: "./providers/a.yaml",
        override: { "additional-prefix": "[a] " },
      },
      "sub-b": { type: "file", path: "./providers/b.yaml" },
    },
    "proxy-groups": [
      { name: "AUTO", type: "url-test", use: ["sub-a"], url: URL204, interval: 300, tolerance: 0 },
      { name: "PROXY", type: "select", proxies: ["REJECT", "AUTO"], use: ["sub-a", "sub-b"] },
    ],
    rules: ["DOMAIN-SUFFIX,lan,DIRECT", "IP-CIDR,10.0.0.0/8,DIRECT,no-resolve", "MATCH,PROXY"],
    ...extra,
  };
}

async function startSim(opts: Partial<MihomoSimOptions> = {}): Promise<MihomoSim> {
  writeProviders();
  sim = createMihomoSim({
    config: baseConfig(),
    homeDir: home,
    configPath: join(home, "config.yaml"),
    delayScale: 0.02,
    healthChecks: false,
    ...opts,
  });
  await sim.listen("127.0.0.1", 0);
  return sim;
}

interface Reply {
  status: number;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  type: string;
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { Authorization: `Bearer ${SECRET}` },
): Promise<Reply> {
  const res = await fetch(`http://127.0.0.1:${sim?.port}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, text, json, type: res.headers.get("content-type") ?? "" };
}

const enc = encodeURIComponent;

/** Reads newline-delimited JSON from a stream until `count` records arrived. */
async function readNdjson(path: string, count: number): Promise<unknown[]> {
  const ctl = new AbortController();
  const res = await fetch(`http://127.0.0.1:${sim?.port}${path}`, {
    headers: { Authorization: `Bearer ${SECRET}` },
    signal: ctl.signal,
  });
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const out: unknown[] = [];
  let buf = "";
  const dec = new TextDecoder();
  while (out.length < count) {
    const { done, value } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let nl = buf.indexOf("\n");
    while (nl >= 0) {
      out.push(JSON.parse(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
      nl = buf.indexOf("\n");
    }
  }
  ctl.abort();
  return out;
}

describe("mihomo simulator: auth and errors", () => {
  it("wants the Bearer secret and answers 401 {message} otherwise", async () => {
    await startSim();
    const none = await call("GET", "/version", undefined, {});
    expect(none.status).toBe(401);
    expect(none.json).toEqual({ message: "Unauthorized" });
    expect(
      (await call("GET", "/version", undefined, { Authorization: "Bearer nope" })).status,
    ).toBe(401);
    expect(
      (await call("GET", "/version", undefined, { Authorization: `bearer ${SECRET}` })).status,
    ).toBe(401);
    expect((await call("GET", `/version?token=${SECRET}`, undefined, {})).status).toBe(401);
    const ok = await call("GET", "/version");
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ meta: true, version: "v1.19.2" });
  });

  it("answers without a secret when none is set; unknown routes get chi's plain 404", async () => {
    writeProviders();
    sim = createMihomoSim({
      config: baseConfig({ secret: "" }),
      homeDir: home,
      healthChecks: false,
    });
    await sim.listen();
    expect((await call("GET", "/version", undefined, {})).status).toBe(200);
    const missing = await call("GET", "/nope", undefined, {});
    expect(missing.status).toBe(404);
    expect(missing.text).toBe("404 page not found\n");
    const proxy = await call("GET", "/proxies/nope", undefined, {});
    expect(proxy.status).toBe(404);
    expect(proxy.json).toEqual({ message: "Resource not found" });
  });
});

describe("mihomo simulator: proxies and selection", () => {
  it("lists built-ins, inline proxies, groups and prefixed provider nodes", async () => {
    await startSim();
    const { json } = await call("GET", "/proxies");
    const p = json.proxies;
    for (const name of ["DIRECT", "REJECT", "GLOBAL", "COMPATIBLE", "PASS", "REJECT-DROP"]) {
      expect(p[name]).toBeDefined();
    }
    expect(p.DIRECT.type).toBe("Direct");
    expect(p.REJECT.type).toBe("Reject");
    expect(p.inline.type).toBe("Http");
    expect(p["[a] HK 1"]).toMatchObject({ type: "Shadowsocks", alive: true, history: [] });
    expect(p["[a] JP 2"].type).toBe("Vmess");
    expect(p["HK 1"].type).toBe("Shadowsocks");
    expect(p.AUTO.type).toBe("URLTest");
    expect(p.AUTO.all).toEqual(NODES_A.map((n) => `[a] ${n.name}`));
    expect(p.PROXY).toMatchObject({ type: "Selector", now: "REJECT" });
    expect(p.PROXY.all).toEqual(["REJECT", "AUTO", ...NODES_A.map((n) => `[a] ${n.name}`), "HK 1"]);
    expect(p.GLOBAL.all).toEqual(["DIRECT", "REJECT", "inline", "AUTO", "PROXY"]);
    expect(p.GLOBAL.now).toBe("DIRECT");
  });

  it("selects by URL-encoded names with 204, and refuses like mihomo", async () => {
    await startSim();
    const odd = "[a] a/b 🇺🇸 US";
    expect((await call("GET", `/proxies/${enc(odd)}`)).json.name).toBe(odd);
    const put = await call("PUT", "/proxies/PROXY", { name: odd });
    expect(put.status).toBe(204);
    expect(put.text).toBe("");
    expect((await call("GET", "/proxies/PROXY")).json.now).toBe(odd);

    const missing = await call("PUT", "/proxies/PROXY", { name: "[b] nope" });
    expect(missing.status).toBe(400);
    expect(missing.json).toEqual({ message: "Selector update error: proxy not exist" });
    const notGroup = await call("PUT", `/proxies/${enc("[a] HK 1")}`, { name: "DIRECT" });
    expect(notGroup.json).toEqual({ message: "Must be a Selector" });
    expect(notGroup.status).toBe(400);
    const bad = await call("PUT", "/proxies/PROXY", "{nope");
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ message: "Body invalid" });
    expect((await call("PUT", "/proxies/NOPE", { name: "DIRECT" })).status).toBe(404);
    expect((await call("GET", "/proxies/PROXY")).json.now).toBe(odd);
  });

  it("works with the production client, including error mapping", async () => {
    await startSim();
    const client = new MihomoClient({ port: sim?.port ?? 0, secret: SECRET });
    expect(await client.version()).toBe("v1.19.2");
    await client.selectProxy("PROXY", "AUTO");
    expect((await client.proxies()).PROXY.now).toBe("AUTO");
    const err = await client.selectProxy("PROXY", "gone").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreApiError);
    expect((err as CoreApiError).status).toBe(400);
    const wrong = new MihomoClient({ port: sim?.port ?? 0, secret: "wrong" });
    await expect(wrong.version()).rejects.toMatchObject({ status: 401 });
  });
});

describe("mihomo simulator: delay tests", () => {
  it("answers deterministic delays from the node's address and records history", async () => {
    await startSim();
    const expected = simulatedDelay("hk1.example.net", 8388);
    expect(typeof expected).toBe("number");
    const path = `/proxies/${enc("[a] HK 1")}/delay?url=${enc(URL204)}&timeout=5000`;
    const r = await call("GET", path);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ delay: expected });
    const again = await call("GET", path);
    expect(again.json).toEqual({ delay: expected });
    const node = (await call("GET", `/proxies/${enc("[a] HK 1")}`)).json;
    expect(node.history).toHaveLength(2);
    expect(node.history[1].delay).toBe(expected);
    expect(node.alive).toBe(true);
    expect(node.extra[URL204].history).toHaveLength(2);
  });

  it("times out (504) for unreachable servers, fails (503) for refused ones, and keeps 10", async () => {
    await startSim();
    const dead = await call("GET", `/proxies/dead/delay?url=${enc(URL204)}&timeout=200`);
    expect(dead.status).toBe(404); // provider nodes carry their prefix
    const timeout = await call(
      "GET",
      `/proxies/${enc("[a] dead")}/delay?url=${enc(URL204)}&timeout=300`,
    );
    expect(timeout.status).toBe(504);
    expect(timeout.json).toEqual({ message: "Timeout" });
    const refused = await call(
      "GET",
      `/proxies/${enc("[a] refused")}/delay?url=${enc(URL204)}&timeout=3000`,
    );
    expect(refused.status).toBe(503);
    expect(refused.json).toEqual({ message: "An error occurred in the delay test" });
    for (let i = 0; i < 11; i++) {
      await call("GET", `/proxies/${enc("[a] refused")}/delay?url=${enc(URL204)}&timeout=3000`);
    }
    const node = (await call("GET", `/proxies/${enc("[a] refused")}`)).json;
    expect(node.alive).toBe(false);
    expect(node.history).toHaveLength(10);
    expect(node.history.every((h: { delay: number }) => h.delay === 0)).toBe(true);
  });

  it("respects the timeout, rejects bad parameters and tests REJECT as a failure", async () => {
    await startSim();
    sim?.setDelay("[a] JP 2", 900);
    const short = await call(
      "GET",
      `/proxies/${enc("[a] JP 2")}/delay?url=${enc(URL204)}&timeout=500`,
    );
    expect(short.status).toBe(504);
    const long = await call(
      "GET",
      `/proxies/${enc("[a] JP 2")}/delay?url=${enc(URL204)}&timeout=1000`,
    );
    expect(long.json).toEqual({ delay: 900 });
    for (const q of ["timeout=40000", "timeout=", "timeout=abc", "timeout=100&expected=2x0"]) {
      const r = await call("GET", `/proxies/${enc("[a] JP 2")}/delay?url=${enc(URL204)}&${q}`);
      expect(r.status, q).toBe(400);
      expect(r.json).toEqual({ message: "Body invalid" });
    }
    const wrongStatus = await call(
      "GET",
      `/proxies/${enc("[a] HK 1")}/delay?url=${enc(URL204)}&timeout=1000&expected=200`,
    );
    expect(wrongStatus.status).toBe(503);
    const reject = await call("GET", `/proxies/REJECT/delay?url=${enc(URL204)}&timeout=1000`);
    expect(reject.status).toBe(503);
    const group = await call("GET", `/proxies/PROXY/delay?url=${enc(URL204)}&timeout=1000`);
    expect(group.status).toBe(503); // PROXY is on REJECT
  });

  it("tests a group's members at once; the url-test group then uses the fastest", async () => {
    await startSim();
    const r = await call("GET", `/group/AUTO/delay?url=${enc(URL204)}&timeout=2000`);
    expect(r.status).toBe(200);
    const alive = NODES_A.filter((n) => typeof simulatedDelay(n.server, n.port) === "number");
    expect(Object.keys(r.json).sort()).toEqual(alive.map((n) => `[a] ${n.name}`).sort());
    const best = alive.reduce((a, b) =>
      (simulatedDelay(a.server, a.port) as number) <= (simulatedDelay(b.server, b.port) as number)
        ? a
        : b,
    );
    expect((await call("GET", "/proxies/AUTO")).json.now).toBe(`[a] ${best.name}`);
    // A slower result for the fastest node moves the group to the next one.
    sim?.setDelay(`[a] ${best.name}`, "timeout");
    await call("GET", `/group/AUTO/delay?url=${enc(URL204)}&timeout=1000`);
    expect((await call("GET", "/proxies/AUTO")).json.now).not.toBe(`[a] ${best.name}`);

    for (const n of NODES_A) sim?.setDelay(`[a] ${n.name}`, "fail");
    const none = await call("GET", `/group/AUTO/delay?url=${enc(URL204)}&timeout=500`);
    expect(none.status).toBe(504);
    expect(none.json).toEqual({ message: "get delay: all proxies timeout" });
    expect((await call("GET", "/group/inline")).status).toBe(404);
  });
});

describe("mihomo simulator: providers", () => {
  it("lists file providers with their nodes and the built-in default provider", async () => {
    await startSim();
    const { json } = await call("GET", "/providers/proxies");
    expect(Object.keys(json.providers).sort()).toEqual(["default", "sub-a", "sub-b"]);
    expect(json.providers["sub-a"]).toMatchObject({
      name: "sub-a",
      type: "Proxy",
      vehicleType: "File",
    });
    expect(typeof json.providers["sub-a"].updatedAt).toBe("string");
    expect(json.providers["sub-a"].proxies.map((p: { name: string }) => p.name)).toEqual(
      NODES_A.map((n) => `[a] ${n.name}`),
    );
    expect(json.providers.default.vehicleType).toBe("Compatible");
    expect((await call("GET", "/providers/proxies/nope")).status).toBe(404);
  });

  it("health-checks one node of one provider, telling same-named nodes apart", async () => {
    await startSim({
      config: baseConfig({
        "proxy-providers": {
          "sub-a": { type: "file", path: "./providers/a.yaml" },
          "sub-b": { type: "file", path: "./providers/b.yaml" },
        },
        "proxy-groups": [{ name: "PROXY", type: "select", use: ["sub-a", "sub-b"] }],
      }),
    });
    const q = `url=${enc(URL204)}&timeout=3000`;
    const a = await call("GET", `/providers/proxies/sub-a/${enc("HK 1")}/healthcheck?${q}`);
    const b = await call("GET", `/providers/proxies/sub-b/${enc("HK 1")}/healthcheck?${q}`);
    expect(a.json).toEqual({ delay: simulatedDelay("hk1.example.net", 8388) });
    expect(b.json).toEqual({ delay: simulatedDelay("other-hk.example.net", 9000) });
    const onlyA = (await call("GET", `/providers/proxies/sub-a/${enc("HK 1")}`)).json;
    expect(onlyA.history).toHaveLength(1);
    expect((await call("GET", `/providers/proxies/sub-a/nope/healthcheck?${q}`)).status).toBe(404);
    // The whole provider's check answers 204 once every node has a result.
    expect((await call("GET", "/providers/proxies/sub-a/healthcheck")).status).toBe(204);
  });

  it("keeps running with a broken provider file (empty provider, COMPATIBLE in its groups)", async () => {
    writeProviders();
    writeFileSync(join(home, "providers", "a.yaml"), "proxies:\n  - {name: x, type: nope}\n");
    const lines: string[] = [];
    sim = createMihomoSim({
      config: baseConfig(),
      homeDir: home,
      healthChecks: false,
      output: (l) => lines.push(l),
    });
    await sim.listen();
    expect(
      lines.some((l) =>
        l.includes("initial proxy provider sub-a error: proxy 0 error: unsupport proxy type: nope"),
      ),
    ).toBe(true);
    expect((await call("GET", "/proxies/AUTO")).json.all).toEqual(["COMPATIBLE"]);
    const upd = await call("PUT", "/providers/proxies/sub-a");
    expect(upd.status).toBe(503);
    writeProviders();
    expect((await call("PUT", "/providers/proxies/sub-a")).status).toBe(204);
    expect((await call("GET", "/proxies/AUTO")).json.all).toHaveLength(NODES_A.length);
  });

  it("runs the providers' health checks on load when an interval is set", async () => {
    writeProviders();
    sim = createMihomoSim({ config: baseConfig(), homeDir: home, delayScale: 0.02 });
    await sim.listen();
    const alive = NODES_A.filter((n) => typeof simulatedDelay(n.server, n.port) === "number");
    const best = alive.reduce((a, b) =>
      (simulatedDelay(a.server, a.port) as number) <= (simulatedDelay(b.server, b.port) as number)
        ? a
        : b,
    );
    await waitFor(
      () => sim?.snapshot().selections.AUTO === `[a] ${best.name}`,
      10_000,
      "the fastest node",
    );
  });
});

describe("mihomo simulator: connections and streams", () => {
  it("answers connections: null when empty; lists, closes one and all with 204", async () => {
    await startSim();
    const empty = await call("GET", "/connections");
    expect(empty.json).toMatchObject({ downloadTotal: 0, uploadTotal: 0, connections: null });
    expect(typeof empty.json.memory).toBe("number");
    let closed = 0;
    const c1 = sim?.addConnection(
      { metadata: { host: "example.com", destinationPort: "443" }, chains: ["[a] HK 1", "PROXY"] },
      () => closed++,
    );
    sim?.addConnection({ metadata: { host: "example.org" } });
    sim?.addTraffic(1000, 5000);
    const list = (await call("GET", "/connections")).json;
    expect(list.uploadTotal).toBe(1000);
    expect(list.downloadTotal).toBe(5000);
    expect(list.connections).toHaveLength(2);
    expect(list.connections[0]).toMatchObject({
      id: c1?.id,
      chains: ["[a] HK 1", "PROXY"],
      rule: "Match",
      metadata: { host: "example.com", network: "tcp", sourcePort: expect.any(String) },
    });
    expect((await call("DELETE", `/connections/${c1?.id}`)).status).toBe(204);
    expect(closed).toBe(1);
    expect((await call("DELETE", "/connections/unknown-id")).status).toBe(204);
    expect((await call("GET", "/connections")).json.connections).toHaveLength(1);
    expect((await call("DELETE", "/connections")).status).toBe(204);
    const after = (await call("GET", "/connections")).json;
    expect(after.connections).toBeNull();
    expect(after.uploadTotal).toBe(1000);
  });

  it("streams traffic per second, memory, and logs filtered by level", async () => {
    await startSim();
    const traffic = readNdjson("/traffic", 2);
    await waitFor(() => (sim?.snapshot().trafficStreams ?? 0) > 0, 5000, "the traffic stream");
    sim?.addTraffic(300, 700);
    const items = (await traffic) as Array<{ up: number; down: number }>;
    expect(items.every((i) => Object.keys(i).sort().join() === "down,up")).toBe(true);
    expect(items.some((i) => i.up === 300 && i.down === 700)).toBe(true);

    const mem = (await readNdjson("/memory", 1)) as Array<{ inuse: number; oslimit: number }>;
    expect(mem[0].inuse).toBeGreaterThan(0);

    expect((await call("GET", "/logs?level=loud")).status).toBe(400);
    const logs = readNdjson("/logs?level=warning", 2);
    await waitFor(() => (sim?.snapshot().logStreams ?? 0) > 0, 5000, "the log stream");
    sim?.log("info", "not for warning readers");
    sim?.log("warning", "first");
    sim?.log("error", "second");
    expect(await logs).toEqual([
      { type: "warning", payload: "first" },
      { type: "error", payload: "second" },
    ]);
  });

  it("test-only /__sim endpoints inject connections, traffic, logs and delays (with the secret)", async () => {
    await startSim();
    expect((await call("POST", "/__sim/traffic", { up: 5, down: 6 }, {})).status).toBe(401);
    const made = await call("POST", "/__sim/connections", {
      metadata: { host: "injected.example", destinationPort: "8443" },
      upload: 10,
    });
    expect(made.status).toBe(200);
    expect((await call("POST", "/__sim/traffic", { up: 5, down: 6 })).status).toBe(204);
    const conns = (await call("GET", "/connections")).json;
    expect(conns).toMatchObject({ uploadTotal: 5, downloadTotal: 6 });
    expect(conns.connections[0]).toMatchObject({
      id: made.json.id,
      upload: 10,
      metadata: { host: "injected.example", destinationPort: "8443", network: "tcp" },
    });
    const logs = readNdjson("/logs?level=debug", 1);
    await waitFor(() => (sim?.snapshot().logStreams ?? 0) > 0, 5000, "the log stream");
    expect((await call("POST", "/__sim/logs", { type: "debug", payload: "hi" })).status).toBe(204);
    expect(await logs).toEqual([{ type: "debug", payload: "hi" }]);
    expect((await call("PUT", "/__sim/delays", { "hk1.example.net": 77 })).status).toBe(204);
    const d = await call("GET", `/proxies/${enc("[a] HK 1")}/delay?url=${enc(URL204)}&timeout=500`);
    expect(d.json).toEqual({ delay: 77 });
    const state = (await call("GET", "/__sim/state")).json;
    expect(state).toMatchObject({ connections: 1, loads: 1, selections: { PROXY: "REJECT" } });
  });

  it("the production client reads streams and connections", async () => {
    await startSim();
    const client = new MihomoClient({ port: sim?.port ?? 0, secret: SECRET });
    expect((await client.connections()).connections).toEqual([]);
    const ctl = new AbortController();
    const got: Array<{ type: string; payload: string }> = [];
    const done = client.logs("info", (i) => got.push(i), { signal: ctl.signal });
    await waitFor(() => (sim?.snapshot().logStreams ?? 0) > 0, 5000, "the log stream");
    sim?.log("info", "hello");
    await waitFor(() => got.length > 0, 5000, "a log line");
    ctl.abort();
    await done;
    expect(got[0]).toEqual({ type: "info", payload: "hello" });
  });

  it("the mixed port tunnels CONNECT and lists the connection with its chain and rule", async () => {
    await startSim();
    await call("PUT", "/proxies/PROXY", { name: "AUTO" });
    const echo = net.createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
    cleanups.push(() => new Promise<void>((r) => echo.close(() => r())));
    const echoPort = (echo.address() as AddressInfo).port;
    const mixed = await startMixedListener(sim as MihomoSim, { host: "127.0.0.1", port: 0 });
    cleanups.push(() => mixed.close());

    const sock = net.connect(mixed.port, "127.0.0.1");
    cleanups.push(() => void sock.destroy());
    let received = "";
    sock.on("data", (c: Buffer) => (received += c.toString("latin1")));
    const closed = new Promise<void>((r) => sock.once("close", () => r()));
    sock.write(`CONNECT 127.0.0.1:${echoPort} HTTP/1.1\r\nHost: 127.0.0.1:${echoPort}\r\n\r\n`);
    await waitFor(() => received.includes("200 Connection established\r\n\r\n"), 5000, "200");
    sock.write("ping");
    await waitFor(() => received.endsWith("ping"), 5000, "the echo");
    const conns = (await call("GET", "/connections")).json.connections;
    expect(conns).toHaveLength(1);
    expect(conns[0]).toMatchObject({
      chains: [expect.stringMatching(/^\[a\] /), "AUTO", "PROXY"],
      rule: "Match",
      rulePayload: "",
      upload: 4,
      download: 4,
      metadata: { type: "HTTPS", destinationIP: "127.0.0.1", destinationPort: String(echoPort) },
    });
    expect((await call("DELETE", `/connections/${conns[0].id}`)).status).toBe(204);
    await closed;

    // An internal destination goes DIRECT by rule; REJECT closes the tunnel at once.
    expect(sim?.route({ host: "", ip: "10.1.2.3", port: 80 })).toMatchObject({
      chains: ["DIRECT"],
      rule: "IPCIDR",
      rulePayload: "10.0.0.0/8",
    });
    await call("PUT", "/proxies/PROXY", { name: "REJECT" });
    const rejected = net.connect(mixed.port, "127.0.0.1");
    rejected.resume();
    const gone = new Promise<void>((r) => rejected.once("close", () => r()));
    rejected.write(`CONNECT example.com:443 HTTP/1.1\r\n\r\n`);
    await gone;
    expect((await call("GET", "/connections")).json.connections).toBeNull();
  });
});

describe("mihomo simulator: configs", () => {
  it("reports and patches the general section; bad values are 400", async () => {
    const changes: number[] = [];
    await startSim({ onListeners: (g) => changes.push(g.mixedPort) });
    const c = (await call("GET", "/configs")).json;
    expect(c).toMatchObject({
      mode: "rule",
      "log-level": "info",
      "mixed-port": 0,
      "allow-lan": false,
    });
    expect((await call("PATCH", "/configs", { mode: "Global" })).status).toBe(204);
    expect((await call("GET", "/configs")).json.mode).toBe("global");
    expect(sim?.route({ host: "example.com", ip: "", port: 443 }).chains).toEqual([
      "DIRECT",
      "GLOBAL",
    ]);
    for (const bad of [{ mode: "fast" }, { "mixed-port": "1" }, { "log-level": "loud" }, "{x"]) {
      const r = await call("PATCH", "/configs", bad);
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ message: "Body invalid" });
    }
    expect(
      (await call("PATCH", "/configs", { "mixed-port": 17999, tun: { enable: true } })).status,
    ).toBe(204);
    expect(changes).toEqual([0, 17999]);
    expect((await call("GET", "/configs")).json.tun.enable).toBe(true);
  });

  it("PUT /configs reloads from a path: selection resets, listeners change only with force", async () => {
    await startSim();
    expect((await call("PUT", "/proxies/PROXY", { name: "AUTO" })).status).toBe(204);
    const file = join(home, "config.yaml");
    const next = baseConfig({ "mixed-port": 17001, mode: "direct" });
    (next["proxy-groups"] as Array<Record<string, unknown>>).push({
      name: "EXTRA",
      type: "select",
      proxies: ["DIRECT"],
    });
    writeFileSync(file, stringify(next));
    expect((await call("PUT", "/configs", { path: file })).status).toBe(204);
    let c = (await call("GET", "/configs")).json;
    expect(c.mode).toBe("direct");
    expect(c["mixed-port"]).toBe(0);
    const proxies = (await call("GET", "/proxies")).json.proxies;
    expect(proxies.EXTRA).toBeDefined();
    expect(proxies.PROXY.now).toBe("REJECT"); // back on its first member
    expect((await call("PUT", "/configs?force=true", { path: file })).status).toBe(204);
    c = (await call("GET", "/configs")).json;
    expect(c["mixed-port"]).toBe(17001);
  });

  it("PUT /configs refuses relative, outside and broken configurations with their reason", async () => {
    await startSim();
    const rel = await call("PUT", "/configs?force=true", { path: "config.yaml" });
    expect(rel).toMatchObject({ status: 400, json: { message: "path is not a absolute path" } });
    const outside = await call("PUT", "/configs?force=true", { path: "/etc/passwd" });
    expect(outside.status).toBe(400);
    expect(outside.json.message).toMatch(/^path is not subpath of home directory/);
    const yaml = await call("PUT", "/configs?force=true", { payload: "mode: rule\n  bad: [" });
    expect(yaml.status).toBe(400);
    expect(yaml.json.message).toMatch(/^yaml: line \d+: /);
    const rule = await call("PUT", "/configs?force=true", {
      payload: stringify(baseConfig({ rules: ["MATCH,NOWHERE"] })),
    });
    expect(rule.json.message).toBe("rules[0] [MATCH,NOWHERE] error: proxy [NOWHERE] not found");
    const missing = await call("PUT", "/configs?force=true", { path: join(home, "nope.yaml") });
    expect(missing.json.message).toMatch(/no such file or directory/);
    expect((await call("PUT", "/configs", "")).status).toBe(400);
    // Nothing changed.
    expect((await call("GET", "/proxies/PROXY")).json.all).toContain("AUTO");
  });

  it("with profile.store-selected the selection survives a reload and a new core", async () => {
    const config = baseConfig({ profile: { "store-selected": true } });
    await startSim({ config });
    await call("PUT", "/proxies/PROXY", { name: "[a] JP 2" });
    expect((await call("PUT", "/configs?force=true", { payload: stringify(config) })).status).toBe(
      204,
    );
    expect((await call("GET", "/proxies/PROXY")).json.now).toBe("[a] JP 2");
    await sim?.close();
    sim = createMihomoSim({ config, homeDir: home, healthChecks: false });
    await sim.listen();
    expect((await call("GET", "/proxies/PROXY")).json.now).toBe("[a] JP 2");
  });

  it("loads what the production compiler writes, and reads provider files like `yaml` does", async () => {
    const A = "a".repeat(24);
    const nodes = [
      ...NODES_A,
      {
        name: 'quote " and \\ #x: y',
        type: "ss",
        server: "q.example.net",
        port: 1,
        cipher: "aes-128-gcm",
        password: "'0123'",
      },
    ];
    const compiled = compileConfig(
      {
        settings: { ...DEFAULT_SETTINGS, selectionMode: "manual", selectedNode: nodeId(A, "HK 1") },
        subscriptions: [{ id: A, name: "a", nodes }],
        rules: [],
      },
      { controllerPort: 0, secret: SECRET },
    );
    for (const [id, text] of compiled.providers) {
      mkdirSync(join(home, "providers"), { recursive: true });
      writeFileSync(join(home, "providers", `${id}.yaml`), text);
      expect(parseProviderYaml(text)).toEqual(parse(text));
    }
    // Block-style provider files (as other tools write them) read the same as with `yaml`.
    const block = stringify({ proxies: nodes });
    expect(parseProviderYaml(block)).toEqual(parse(block));
    const odd = "proxies:\n  - name: x # c\n    alpn:\n    - h2\n    port: 0x1F\n    k: ~\n";
    expect(parseProviderYaml(odd)).toEqual(parse(odd));
    // The compiled configuration turns geodata downloads off: the files must be there.
    for (const name of ["geoip.metadb", "geosite.dat"])
      copyFileSync(join(FIXTURE_GEODATA_DIR, name), join(home, name));
    sim = createMihomoSim({ configText: compiled.yaml, homeDir: home, healthChecks: false });
    await sim.listen();
    const client = new MihomoClient({ port: sim.port, secret: SECRET });
    const proxies = await client.proxies();
    expect(proxies.PROXY.now).toBe("REJECT");
    await client.selectProxy("PROXY", `[${A}] HK 1`);
    expect((await client.proxies()).PROXY.now).toBe(`[${A}] HK 1`);
    const delay = await client.healthcheck(`sub-${A}`, `[${A}] ${nodes[5].name}`, URL204, 3000);
    expect(delay).toBe(simulatedDelay("q.example.net", 1));
  });
});

// ---------------------------------------------------------------------------------------
// The executable

function run(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; out: string }>((resolvePromise) => {
    execFile(FAKE_CORE, args, { env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      resolvePromise({ code, out: `${stdout}${stderr}` });
    });
  });
}

function writeConfig(config: Record<string, unknown>): string {
  writeProviders();
  const file = join(home, "config.yaml");
  writeFileSync(file, stringify(config));
  return file;
}

describe("fake core executable", () => {
  it("-v prints mihomo's version line", async () => {
    const r = await run(["-v"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Mihomo Meta v1\.19\.2 \w+ \w+ with go\S+ /);
  });

  it("-t accepts a good configuration", async () => {
    const file = writeConfig(baseConfig());
    const r = await run(["-d", home, "-t", "-f", file]);
    expect(r.out.trim()).toBe(`configuration file ${file} test is successful`);
    expect(r.code).toBe(0);
  });

  it.each([
    ["a YAML error", "mode: rule\n  x: [", /level=error msg="yaml: line \d+: /],
    [
      "an unknown proxy type",
      stringify(baseConfig({ proxies: [{ name: "x", type: "nope", server: "a", port: 1 }] })),
      /msg="proxy 0: unsupport proxy type: nope"/,
    ],
    [
      "a rule naming an unknown group",
      stringify(baseConfig({ rules: ["DOMAIN,example.com,NOPE", "MATCH,PROXY"] })),
      /rules\[0\] \[DOMAIN,example.com,NOPE\] error: proxy \[NOPE\] not found/,
    ],
    [
      "a bad IP-CIDR rule",
      stringify(baseConfig({ rules: ["IP-CIDR,10.0.0.300/8,DIRECT,no-resolve", "MATCH,PROXY"] })),
      /error: payloadRule error/,
    ],
    [
      "a group naming an unknown provider",
      stringify(
        baseConfig({ "proxy-groups": [{ name: "G", type: "select", use: ["zzz"] }], rules: [] }),
      ),
      /proxy group\[0\]: 'zzz' not found/,
    ],
    [
      "a missing provider file",
      stringify(
        baseConfig({
          "proxy-providers": { "sub-a": { type: "file", path: "./providers/none.yaml" } },
        }),
      ),
      /parse proxy provider sub-a error: open .*none\.yaml: no such file or directory/,
    ],
    [
      "a provider outside the home dir",
      stringify(
        baseConfig({ "proxy-providers": { "sub-a": { type: "file", path: "/etc/hosts" } } }),
      ),
      /path is not subpath of home directory/,
    ],
  ])("-t refuses %s with exit 1", async (_what, text, why) => {
    writeProviders();
    const file = join(home, "config.yaml");
    writeFileSync(file, text);
    const r = await run(["-d", home, "-t", "-f", file]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(why);
    expect(r.out.trim().split("\n").pop()).toBe(`configuration file ${file} test failed`);
  });

  it("-t fails on GEOSITE without geodata when offline", async () => {
    const file = writeConfig(baseConfig({ rules: ["GEOSITE,cn,DIRECT", "MATCH,PROXY"] }));
    expect((await run(["-d", home, "-t", "-f", file])).code).toBe(0);
    const offline = await run(["-d", home, "-t", "-f", file], { MIHOMO_SIM_OFFLINE: "1" });
    expect(offline.code).toBe(1);
    expect(offline.out).toMatch(
      /rules\[0\] \[GEOSITE,cn,DIRECT\] error: can't download GeoSite\.dat: Get \\"https:\/\/github\.com\//,
    );
    // Found in any letter case, as mihomo does.
    writeFileSync(join(home, "GeoSite.DAT"), geoSiteBytes(["CN"]));
    expect((await run(["-d", home, "-t", "-f", file], { MIHOMO_SIM_OFFLINE: "1" })).code).toBe(0);
  });

  it("serves the controller and a tunnelling mixed port, and exits cleanly on SIGTERM", async () => {
    const ctlPort = await freePort();
    const mixedPort = await freePort();
    const file = writeConfig(
      baseConfig({ "external-controller": `127.0.0.1:${ctlPort}`, "mixed-port": mixedPort }),
    );
    const child: ChildProcess = spawn(FAKE_CORE, ["-d", home, "-f", file], {
      cwd: home,
      env: { ...process.env, MIHOMO_SIM_DELAY_SCALE: "0.02" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout?.on("data", (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    cleanups.push(() => void child.kill("SIGKILL"));
    await waitFor(() => out.includes("RESTful API listening at"), 10_000, "the controller");
    expect(out).toContain(`Mixed(http+socks) proxy listening at: 127.0.0.1:${mixedPort}`);
    expect(out).toMatch(/^time="[^"]+" level=info msg="Start initial configuration in progress"$/m);

    const client = new MihomoClient({ port: ctlPort, secret: SECRET });
    expect(await client.versionInfo()).toEqual({ meta: true, version: "v1.19.2" });
    await client.selectProxy("PROXY", "[a] HK 1");
    expect(await client.delay("[a] HK 1", URL204, 3000)).toBe(
      simulatedDelay("hk1.example.net", 8388),
    );

    // An HTTP request through the mixed port reaches a local site and is listed meanwhile.
    const pending: { release?: () => void } = {};
    const site = http.createServer((_req, res) => {
      pending.release = () => res.end("done");
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("partial");
    });
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
    cleanups.push(() => {
      site.closeAllConnections();
      return new Promise<void>((r) => site.close(() => r()));
    });
    const sitePort = (site.address() as AddressInfo).port;
    const body = new Promise<string>((resolveBody, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port: mixedPort,
          path: `http://127.0.0.1:${sitePort}/x`,
          method: "GET",
        },
        (res) => {
          let text = "";
          res.on("data", (c: Buffer) => (text += c.toString()));
          res.on("end", () => resolveBody(text));
        },
      );
      req.on("error", reject);
      req.end();
    });
    let listed: Awaited<ReturnType<MihomoClient["connections"]>> | null = null;
    for (let i = 0; i < 100 && !listed?.connections.length; i++) {
      listed = await client.connections();
      if (!listed.connections.length) await new Promise((r) => setTimeout(r, 20));
    }
    expect(listed?.connections[0]).toMatchObject({
      chains: ["[a] HK 1", "PROXY"],
      rule: "Match",
      metadata: { type: "HTTP", destinationPort: String(sitePort) },
    });
    // The core lists a tunnel once it is dialled, which can be before the site saw the request.
    await waitFor(() => pending.release !== undefined, 5000, "the request at the site");
    pending.release?.();
    expect(await body).toBe("partialdone");
    await waitFor(
      () => out.includes(`--> 127.0.0.1:${sitePort} match Match using PROXY[[a] HK 1]`),
      5000,
      "the log line",
    );

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("exits 1 with mihomo's fatal line when the configuration cannot be parsed", async () => {
    const file = join(home, "config.yaml");
    writeFileSync(file, "mode: nope\n");
    const r = await run(["-d", home, "-f", file]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/level=fatal msg="Parse config error: invalid mode"/);
  });
});
