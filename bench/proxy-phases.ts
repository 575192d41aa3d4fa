import { execFile } from "node:child_process";
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import type { ApiClient, ServiceProcess } from "./proxy-client.js";

/** The phases of bench/proxy.ts: each one's figures and the service's worst event-loop delay. */

export const FAKE_CORE = resolve("test/fixtures/fake-core.mjs");
export const NODE_PHASE_MS = 12_000;
export const CONNECTION_PHASE_MS = 10_000;
export const CONNECTIONS = 20_000;

/** Asks the core's controller (`body`: a POST) and answers the time to its last byte. */
export type CoreCall = (path: string, body?: unknown) => Promise<number>;

export function feed(count: number, prefix: string): string {
  const lines = ["proxies:"];
  for (let i = 0; i < count; i++) {
    lines.push(
      `  - {name: "${prefix} node ${i}", type: ss, server: "s${i % 250}.example.net", port: ${10000 + (i % 50000)}, cipher: aes-128-gcm, password: "pw${i}", udp: true}`,
    );
  }
  return lines.join("\n") + "\n";
}

export async function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => res(port));
    });
  });
}

export async function feedServer(): Promise<{
  base: string;
  feeds: Map<string, string>;
  close(): void;
}> {
  const feeds = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const body = feeds.get(req.url ?? "");
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, {
      "content-type": "text/yaml",
      "subscription-userinfo": "upload=1; download=2; total=1000000000; expire=1893456000",
    });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, feeds, close: () => server.close() };
}

/** Wall time of the core's own configuration test (`-t`) of the configuration it runs. */
function coreCheckMs(home: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((res, rej) =>
    execFile(
      process.execPath,
      [FAKE_CORE, "-d", home, "-t", "-f", join(home, "config.yaml")],
      (err) => (err ? rej(err) : res(performance.now() - t0)),
    ),
  );
}

/** Runs `fn` back to back for `ms`, returning each run's figure. */
async function during(ms: number, fn: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  const until = performance.now() + ms;
  while (performance.now() < until) out.push(await fn());
  return out;
}

async function addSubscription(api: ApiClient, name: string, url: string): Promise<string> {
  const sub = await api.call<{ id: string }>("POST", "/subscriptions", {
    name,
    url,
    enabled: true,
    intervalHours: 0,
  });
  return sub.id;
}

export async function refreshPhase(
  api: ApiClient,
  svc: ServiceProcess,
  feedBase: string,
  home: string,
) {
  const id = await addSubscription(api, "big", `${feedBase}/big`);
  const refresh = async (): Promise<number> => {
    const r = await api.timed("POST", `/subscriptions/${id}/refresh`);
    if (r.status !== 200) throw new Error(`refresh -> ${r.status} ${r.body.toString()}`);
    return r.ms;
  };
  // Two warm-up rounds: the parser's worker starts, the provider file exists.
  await refresh();
  await refresh();
  await svc.loop();
  const times: number[] = [];
  for (let i = 0; i < 5; i++) times.push(await refresh());
  const loop = await svc.loop();
  const checks: number[] = [];
  for (let i = 0; i < 3; i++) checks.push(await coreCheckMs(home));
  await api.call("DELETE", `/subscriptions/${id}`);
  return { times, loop, checks };
}

export async function nodesPhase(
  api: ApiClient,
  svc: ServiceProcess,
  feedBase: string,
  core: CoreCall,
) {
  for (let s = 0; s < 50; s++) {
    const id = await addSubscription(api, `sub ${s}`, `${feedBase}/s${s}`);
    await api.call("POST", `/subscriptions/${id}/refresh`);
  }
  let count = 0;
  const parses: number[] = [];
  const nodes = async (): Promise<number> => {
    const r = await api.timed("GET", "/nodes");
    const t0 = performance.now();
    count = (JSON.parse(r.body.toString()) as unknown[]).length;
    parses.push(performance.now() - t0);
    return r.ms;
  };
  // The first request may wait for the core's /proxies; the sample starts after it.
  for (let i = 0; i < 3; i++) await nodes();
  parses.length = 0;
  await svc.loop();
  const times = await during(NODE_PHASE_MS, nodes);
  const loop = await svc.loop();
  const reference: number[] = [];
  for (let i = 0; i < 8; i++) reference.push(await core("/proxies"));
  return { times, parses, count, loop, reference };
}

export async function connectionsPhase(
  api: ApiClient,
  svc: ServiceProcess,
  core: CoreCall,
  chains: string[][],
) {
  // The simulator's own injection, a few dozen at a time.
  let made = 0;
  const inject = async (): Promise<void> => {
    while (made < CONNECTIONS) {
      const i = made++;
      await core("/__sim/connections", {
        metadata: {
          host: `host${i % 400}.site${i % 37}.example`,
          destinationIP: `203.0.113.${i % 250}`,
          destinationPort: String(443 + (i % 3)),
          sourceIP: `192.168.1.${2 + (i % 200)}`,
          sourcePort: String(20_000 + (i % 40_000)),
        },
        upload: i * 31,
        download: i * 977,
        chains: chains[i % chains.length],
        rule: i % 5 === 0 ? "GeoSite" : "Match",
        rulePayload: i % 5 === 0 ? "cn" : "",
      });
    }
  };
  await Promise.all(Array.from({ length: 32 }, inject));
  let bytes = 0;
  const connections = async (): Promise<number> => {
    const r = await api.timed("GET", "/connections");
    if (r.status !== 200) throw new Error(`GET /connections -> ${r.status}`);
    bytes = r.body.length;
    return r.ms;
  };
  for (let i = 0; i < 3; i++) await connections();
  await svc.loop();
  const times = await during(CONNECTION_PHASE_MS, connections);
  const loop = await svc.loop();
  const reference: number[] = [];
  for (let i = 0; i < 8; i++) reference.push(await core("/connections"));
  return { times, loop, reference, bytes };
}
