import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startFeedServer, type FeedServer } from "../../fixtures/feed-server.js";
import { freePort, freeProxyPorts, refusedPort } from "../../helpers/free-ports.js";
import {
  createProxyService,
  type ProxyService,
  type ProxyServiceExtras,
} from "../../../server/proxy/service.js";
import type { ProxyServiceOptions } from "../../../server/proxy/context.js";

export const PASSWORD = "gatehouse console e2e";

export interface ProxyConsole {
  /** `http://127.0.0.1:<port>` of the proxy service, which serves the console at `/`. */
  url: string;
  token: string;
  feeds: FeedServer;
  /** Feed URL of a Clash YAML subscription with usage headers. */
  feedUrl: string;
  dataDir: string;
  /** The core's mixed and DNS ports in the stored settings: free ones, not 7890 and 1053. */
  mixedPort: number;
  dnsPort: number;
  service: ProxyService;
  log: string[];
  close(): Promise<void>;
}

/**
 * `freePort`: a port nobody listens on right now (for the core's controller and mixed port).
 * `refusedPort`: one that refuses every connection while the test runs (nobody there).
 */
export { freePort, refusedPort };

/**
 * Opens an HTTP CONNECT tunnel through the core's mixed port to `host`:`port`;
 * resolves with the socket once the core answered 200.
 */
export function openTunnel(
  proxyPort: number,
  port: number,
  host = "127.0.0.1",
): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(proxyPort, "127.0.0.1");
    let head = "";
    const onData = (chunk: Buffer) => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      sock.off("data", onData);
      sock.resume();
      if (head.startsWith("HTTP/1.1 200")) resolve(sock);
      else {
        sock.destroy();
        reject(new Error(`the mixed port answered: ${head.split("\r\n")[0]}`));
      }
    };
    sock.on("data", onData);
    sock.once("error", reject);
    sock.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`);
  });
}

/**
 * The real proxy service on 127.0.0.1 port 0 with a temp data dir, the built console
 * (renderer/dist), the fake core executable and a local subscription feed. Every port the
 * core would open is a free one: its controller, and the mixed and DNS ports in the settings.
 */
export async function startProxyConsole(
  /** Replaces the defaults below (a given controller port, another release source, ...). */
  overrides: Partial<ProxyServiceOptions> & ProxyServiceExtras = {},
  /** Ports to store in the settings instead of free ones (a mixed port nobody answers on). */
  given: { mixedPort?: number } = {},
): Promise<ProxyConsole> {
  const dataDir = mkdtempSync(join(tmpdir(), "gh-proxy-e2e-"));
  const ports = await freeProxyPorts(dataDir, given);
  const feeds = await startFeedServer();
  feeds.setRoute("/sub/clash", {
    feed: "clash.yml",
    headers: {
      "content-type": "text/yaml; charset=utf-8",
      "subscription-userinfo":
        "upload=1073741824; download=4294967296; total=107374182400; expire=1830297600",
    },
  });
  feeds.setRoute("/release", {
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      tag_name: "v1.19.9",
      html_url: "https://github.com/MetaCubeX/mihomo/releases/tag/v1.19.9",
    }),
  });
  const log: string[] = [];
  const service = await createProxyService({
    dataDir,
    staticDir: resolve(process.env.GATEHOUSE_E2E_STATIC_DIR ?? "renderer/dist"),
    coreBin: resolve("test/fixtures/fake-core.mjs"),
    controllerPort: await freePort(),
    coreReleaseURL: `${feeds.url}/release`,
    log: (line) => log.push(line),
    ...overrides,
  });
  const server = http.createServer(service.app);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  service.setOwnPort(port);
  await service.start();
  const token = service.setupToken;
  if (!token) throw new Error("a fresh proxy service must have a setup token");
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    feeds,
    feedUrl: `${feeds.url}/sub/clash`,
    dataDir,
    ...ports,
    service,
    log,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
      await service.close();
      await feeds.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A call to the controller the service's core listens on (the simulated core's own routes,
 * `/__sim/...`, among them), with the secret the service gave the core; its status.
 */
export async function coreCall(
  svc: ProxyConsole,
  controllerPort: number,
  method: string,
  path: string,
  body?: unknown,
): Promise<number> {
  const secret = readFileSync(join(svc.dataDir, "proxy", "core", "secret"), "utf8").trim();
  const r = await fetch(`http://127.0.0.1:${controllerPort}${path}`, {
    method,
    headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await r.arrayBuffer();
  return r.status;
}
