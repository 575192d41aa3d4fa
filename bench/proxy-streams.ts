import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { percentile, printTable } from "./lib.js";
import { cpuSeconds } from "./load-processes.js";
import { ApiClient, coreRequest, startService } from "./proxy-client.js";

/**
 * Console streams that never read, from one session, against a core with many connections:
 * the service's and the core's CPU time over the run and how fast `GET /auth/status` answers
 * meanwhile (every 200 ms), with the streams and without them. Each stream is a raw socket
 * that sends `GET /api/v1/events` and then never reads, as a stalled or hostile client does.
 *
 *   npx tsx bench/proxy-streams.ts   (STREAMS=100 CONNECTIONS=10000 SECONDS=20)
 */

const STREAMS = Number(process.env.STREAMS ?? 100);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10_000);
const SECONDS = Number(process.env.SECONDS ?? 20);

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((ok) => s.listen(0, "127.0.0.1", ok));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((ok) => s.close(() => ok()));
  return port;
}

/** A `/events` stream that is opened and never read; answers the status line it got. */
function stalledStream(
  port: number,
  cookie: string,
): { socket: net.Socket; status: Promise<string> } {
  const socket = net.connect(port, "127.0.0.1");
  socket.write(
    `GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${cookie}\r\nAccept: text/event-stream\r\n\r\n`,
  );
  const status = new Promise<string>((ok) => {
    socket.once("data", (chunk: Buffer) => {
      ok(chunk.toString("latin1").split("\r\n")[0]);
      // From here on nothing is read: the kernel's buffers fill, then the service's.
      socket.pause();
    });
    socket.once("error", () => ok("error"));
  });
  return { socket, status };
}

async function phase(
  api: ApiClient,
  pids: number[],
  seconds: number,
): Promise<{ cpu: number[]; latencies: number[] }> {
  const before = pids.map(cpuSeconds);
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const r = await api.timed("GET", "/auth/status");
    if (r.status === 200) latencies.push(r.ms);
    await new Promise((ok) => setTimeout(ok, 200));
  }
  return { cpu: pids.map((pid, i) => cpuSeconds(pid) - before[i]), latencies };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "gatehouse-bench-streams-"));
  const controllerPort = await freePort();
  const svc = await startService(dataDir, resolve("test/fixtures/fake-core.mjs"), controllerPort);
  try {
    const api = new ApiClient(svc.port);
    await api.signIn(svc.setupToken);
    const settings = await api.call<object>("GET", "/settings");
    await api.call("PUT", "/settings", { ...settings, mixedPort: await freePort() });
    await api.call("POST", "/system/service", { action: "start" });
    const secret = readFileSync(join(dataDir, "proxy", "core", "secret"), "utf8").trim();
    const crowd = await coreRequest(controllerPort, secret, "/__sim/connections/bulk", {
      count: CONNECTIONS,
    });
    if (crowd.status >= 300) throw new Error(`the simulated core answered ${crowd.status}`);
    const corePid = Number(readFileSync(join(dataDir, "proxy", "core", "core.pid"), "utf8"));
    const pids = [svc.pid, corePid];

    const quiet = await phase(api, pids, Math.min(5, SECONDS));
    const cookie = api.cookieHeader;
    const streams = Array.from({ length: STREAMS }, () => stalledStream(svc.port, cookie));
    const statuses = await Promise.all(streams.map((s) => s.status));
    const loaded = await phase(api, pids, SECONDS);
    const still = streams.filter((s) => !s.socket.destroyed && s.socket.readyState === "open");
    for (const s of streams) s.socket.destroy();

    const count = (line: string) => statuses.filter((s) => s.includes(line)).length;
    const row = (name: string, p: { cpu: number[]; latencies: number[] }, seconds: number) => ({
      phase: name,
      "service CPU s": p.cpu[0].toFixed(1),
      "core CPU s": p.cpu[1].toFixed(1),
      seconds,
      "/auth/status p50 ms": percentile(p.latencies, 50).toFixed(1),
      "p99 ms": percentile(p.latencies, 99).toFixed(1),
      "max ms": Math.max(...p.latencies).toFixed(1),
    });
    printTable(
      `${STREAMS} stalled /events streams of one session, ${CONNECTIONS} connections in the core`,
      [row("no streams", quiet, Math.min(5, SECONDS)), row(`${STREAMS} streams`, loaded, SECONDS)],
    );
    console.log(
      `stream answers: ${count(" 200 ")} × 200, ${count(" 429 ")} × 429, ${
        STREAMS - count(" 200 ") - count(" 429 ")
      } other; still open at the end: ${still.length}`,
    );
  } finally {
    await svc.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
