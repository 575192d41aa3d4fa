import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { hostileFeedRows } from "./hostile-feeds.js";
import { percentile, printTable } from "./lib.js";
import { createProxyService } from "../server/proxy/service.js";

/**
 * Proxy benchmark: refreshing (download, parse, snapshot, compile, core check and apply) a
 * feed of 10,000 nodes, and `GET /nodes` with 50 subscriptions of 500 nodes, against the fake
 * core (test/fixtures/fake-core.mjs running the mihomo simulator, which health-checks the
 * providers' nodes in the background as mihomo does). Targets: refresh under 1 s; node list
 * p95 under 150 ms. The core's own `GET /proxies` is timed too: `/nodes` reads it at most every
 * 5 s (the slowest request of each window waits for it, later ones use the copy), and the
 * simulator is JavaScript and slower than mihomo.
 */
const FAKE_CORE = resolve("test/fixtures/fake-core.mjs");

function feed(count: number, prefix: string): string {
  const lines = ["proxies:"];
  for (let i = 0; i < count; i++) {
    lines.push(
      `  - {name: "${prefix} node ${i}", type: ss, server: "s${i % 250}.example.net", port: ${10000 + (i % 50000)}, cipher: aes-128-gcm, password: "pw${i}", udp: true}`,
    );
  }
  return lines.join("\n") + "\n";
}

async function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => res(port));
    });
  });
}

async function main(): Promise<void> {
  const feeds = new Map<string, string>();
  const feedServer = http.createServer((req, res) => {
    const body = feeds.get(req.url ?? "");
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, {
      "content-type": "text/yaml",
      "subscription-userinfo": "upload=1; download=2; total=1000000000; expire=1893456000",
    });
    res.end(body);
  });
  await new Promise<void>((r) => feedServer.listen(0, "127.0.0.1", r));
  const feedBase = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}`;
  feeds.set("/big", feed(10_000, "big"));
  for (let s = 0; s < 50; s++) feeds.set(`/s${s}`, feed(500, `sub${s}`));

  const dataDir = mkdtempSync(join(tmpdir(), "gatehouse-bench-proxy-"));
  const controllerPort = await freePort();
  const svc = await createProxyService({
    dataDir,
    coreBin: FAKE_CORE,
    controllerPort,
    log: () => undefined,
  });
  const server = http.createServer(svc.app);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  svc.setOwnPort(port);
  await svc.start();
  const base = `http://127.0.0.1:${port}/api/v1`;
  let cookie = "";
  let csrf = "";
  const call = async (
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; ms: number; json: unknown }> => {
    const t0 = performance.now();
    const r = await fetch(`${base}${path}`, {
      method,
      headers: {
        "content-type": "application/json",
        cookie,
        "x-csrf-token": csrf,
        origin: `http://127.0.0.1:${port}`,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    const ms = performance.now() - t0;
    const set = r.headers.get("set-cookie");
    if (set) cookie = set.split(";")[0];
    const json = text ? (JSON.parse(text) as unknown) : null;
    if (r.status >= 300) throw new Error(`${method} ${path} -> ${r.status} ${text}`);
    return { status: r.status, ms, json };
  };
  try {
    const setup = await call("POST", "/auth/setup", {
      token: svc.setupToken,
      password: "bench-password-123",
    });
    csrf = (setup.json as { csrf: string }).csrf;
    await call("POST", "/system/service", { action: "start" });

    const big = (
      await call("POST", "/subscriptions", {
        name: "big",
        url: `${feedBase}/big`,
        enabled: true,
        intervalHours: 0,
      })
    ).json as { id: string };
    const refreshTimes: number[] = [];
    for (let i = 0; i < 5; i++)
      refreshTimes.push((await call("POST", `/subscriptions/${big.id}/refresh`)).ms);
    await call("DELETE", `/subscriptions/${big.id}`);

    for (let s = 0; s < 50; s++) {
      const sub = (
        await call("POST", "/subscriptions", {
          name: `sub ${s}`,
          url: `${feedBase}/s${s}`,
          enabled: true,
          intervalHours: 0,
        })
      ).json as { id: string };
      await call("POST", `/subscriptions/${sub.id}/refresh`);
    }
    const nodeTimes: number[] = [];
    let count = 0;
    for (let i = 0; i < 60; i++) {
      const r = await call("GET", "/nodes");
      count = (r.json as unknown[]).length;
      if (i >= 10) nodeTimes.push(r.ms);
    }
    const secret = readFileSync(join(dataDir, "proxy", "core", "secret"), "utf8").trim();
    const coreTimes: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      const r = await fetch(`http://127.0.0.1:${controllerPort}/proxies`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      JSON.parse(await r.text());
      if (i >= 5) coreTimes.push(performance.now() - t0);
    }
    printTable("Proxy service (fake core running)", [
      {
        measure: "refresh a 10,000-node feed (median of 5)",
        value: `${percentile(refreshTimes, 50).toFixed(0)} ms`,
        target: "< 1000 ms",
        ok: percentile(refreshTimes, 50) < 1000 ? "yes" : "NO",
      },
      {
        measure: `GET /nodes, ${count} nodes (p50)`,
        value: `${percentile(nodeTimes, 50).toFixed(1)} ms`,
        target: "",
        ok: "",
      },
      {
        measure: `GET /nodes, ${count} nodes (p95)`,
        value: `${percentile(nodeTimes, 95).toFixed(1)} ms`,
        target: "< 150 ms",
        ok: percentile(nodeTimes, 95) < 150 ? "yes" : "NO",
      },
      {
        measure: "the core's GET /proxies + parse (p50; /nodes reads it at most every 5 s)",
        value: `${percentile(coreTimes, 50).toFixed(1)} ms`,
        target: "",
        ok: "",
      },
    ]);
    printTable("Hostile feeds, parsed in this process (median of 3)", hostileFeedRows());
  } finally {
    server.closeAllConnections();
    server.close();
    feedServer.close();
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
