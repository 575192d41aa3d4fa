import { openSync, writeSync } from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createParcelService } from "../server/parcel/service.js";
import { createProxyService } from "../server/proxy/service.js";
import type { ServiceReady, ServiceRequest, ServiceStats } from "./load-protocol.js";

/**
 * The service process of the load benchmark: both services in one process on 127.0.0.1, as
 * `npm run serve` runs them (one event loop shared by the parcel and the proxy service, the
 * request timeout off), built from their factories so the core's controller gets a free port
 * instead of the production 9090 another program on this machine may hold. The only additions
 * are measurements: the event-loop delay histogram, read by the parent over IPC.
 *
 * The log goes to a file, written synchronously as a service writes its log, so no reader of
 * a pipe can hold the service up. Run by bench/load.ts with `fork()`; arguments: data dir, core
 * executable, administrator password, log file.
 */
const [dataDir, coreBin, adminPassword, logFile] = process.argv.slice(2);
if (!dataDir || !coreBin || !adminPassword || !logFile || !process.send) {
  console.error("load-service: started without its arguments or an IPC channel");
  process.exit(2);
}

const send = (msg: ServiceReady | ServiceStats): void => {
  process.send?.(msg);
};

function listen(server: http.Server): Promise<number> {
  server.requestTimeout = 0;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function main(): Promise<void> {
  const logFd = openSync(logFile, "a", 0o600);
  const log = (line: string): void => {
    writeSync(logFd, `${line}\n`);
  };
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();

  let parcelApp: http.RequestListener | null = null;
  const parcelServer = http.createServer((req, res) =>
    parcelApp ? parcelApp(req, res) : res.writeHead(503).end(),
  );
  const parcelPort = await listen(parcelServer);
  const origin = `http://127.0.0.1:${parcelPort}`;
  const parcel = await createParcelService({
    dataDir,
    entries: [origin],
    adminPassword,
    log,
  });
  parcelApp = parcel.app;

  let proxyApp: http.RequestListener | null = null;
  const proxyServer = http.createServer((req, res) =>
    proxyApp ? proxyApp(req, res) : res.writeHead(503).end(),
  );
  const proxyPort = await listen(proxyServer);
  const controllerPort = await freePort();
  const proxy = await createProxyService({ dataDir, coreBin, controllerPort, log });
  proxy.setOwnPort(proxyPort);
  proxyApp = proxy.app;
  await proxy.start();

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      delay.disable();
      for (const server of [parcelServer, proxyServer]) {
        server.closeAllConnections();
        server.close();
      }
      await parcel.close();
      await proxy.close();
    })();
    return stopping;
  };
  const exit = (): void => {
    void stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`load-service: error while stopping: ${String(err)}`);
        process.exit(1);
      },
    );
  };

  process.on("message", (raw) => {
    const msg = raw as ServiceRequest;
    if (msg.kind === "reset") {
      delay.reset();
    } else if (msg.kind === "stats") {
      send({
        kind: "stats",
        loopP50Ms: delay.percentile(50) / 1e6,
        loopP99Ms: delay.percentile(99) / 1e6,
        loopMaxMs: delay.max / 1e6,
        heapUsed: process.memoryUsage().heapUsed,
      });
    } else if (msg.kind === "stop") {
      exit();
    }
  });
  // The parent owns this process: when it goes (even by SIGKILL), so do the services.
  process.on("disconnect", exit);
  process.on("SIGTERM", exit);
  // Ctrl-C reaches the whole process group; the parent decides when the services stop.
  process.on("SIGINT", () => undefined);

  send({
    kind: "ready",
    parcelUrl: origin,
    proxyUrl: `http://127.0.0.1:${proxyPort}`,
    controllerPort,
    setupToken: proxy.setupToken ?? "",
  });
}

main().catch((err: unknown) => {
  console.error(`load-service: could not start: ${String(err)}`);
  process.exit(1);
});
