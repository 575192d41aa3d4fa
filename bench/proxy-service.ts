import http from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createProxyService } from "../server/proxy/service.js";

/**
 * The proxy service for bench/proxy.ts, in a process of its own: the bench's client reads
 * megabytes of JSON per request, which must not share (and slow) the service's event loop.
 * Arguments: data dir, core executable, controller port. Over IPC it says when it is ready
 * (its port and setup token) and, when asked, the worst event-loop delay since it was last
 * asked, with the longest synchronous step of its traffic counting; "stop" closes it.
 */
export type ServiceMessage =
  | { type: "ready"; port: number; setupToken: string | null }
  | { type: "loop"; maxMs: number; p99Ms: number; countingMs: number };

export type BenchRequest = { type: "loop" } | { type: "stop" };

async function main(): Promise<void> {
  const [dataDir, coreBin, controllerPort] = process.argv.slice(2);
  const svc = await createProxyService({
    dataDir,
    coreBin,
    controllerPort: Number(controllerPort),
    log: () => undefined,
  });
  const server = http.createServer(svc.app);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  svc.setOwnPort(port);
  await svc.start();
  // 1 ms resolution: the worst stall of each phase is what the bench reports.
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const send = (msg: ServiceMessage): void => void process.send?.(msg);
  process.on("message", (msg: BenchRequest) => {
    if (msg.type === "loop") {
      const countingMs = svc.accounting.stats.longestStepMs;
      send({ type: "loop", maxMs: loop.max / 1e6, p99Ms: loop.percentile(99) / 1e6, countingMs });
      loop.reset();
      svc.accounting.stats.longestStepMs = 0;
      return;
    }
    loop.disable();
    server.closeAllConnections();
    server.close();
    void svc.close().finally(() => process.exit(0));
  });
  // The bench going away (killed, crashed) takes the service and its core with it.
  process.on("disconnect", () => void svc.close().finally(() => process.exit(0)));
  send({ type: "ready", port, setupToken: svc.setupToken });
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
