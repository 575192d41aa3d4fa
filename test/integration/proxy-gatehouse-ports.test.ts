import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig, type GatehouseConfig } from "../../server/config.js";
import { startGatehouse } from "../../server/host.js";
import { createLogger } from "../../server/log.js";
import { freePort } from "./proxy-core-harness.js";

/**
 * Both services in one process, as `npm run serve` runs them: the console names the ports this
 * Gatehouse really listens on, and refuses them (and only them) as the proxy's port.
 */
describe("the ports this Gatehouse uses", () => {
  it("are the console's, the controller's and the file transfer's, and the proxy may take none", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gh-ports-"));
    const controller = await freePort();
    const config = parseConfig(
      [
        "--host",
        "127.0.0.1",
        "--parcel-port",
        "0",
        "--proxy-port",
        "0",
        "--core-controller-port",
        String(controller),
        "--data-dir",
        dataDir,
      ],
      { GATEHOUSE_CORE_BIN: "/nonexistent/mihomo" },
    ) as GatehouseConfig;
    const running = await startGatehouse(config, createLogger({ level: "silent" }));
    try {
      const proxyUrl = running.proxy!.url;
      const parcelPort = Number(new URL(running.parcel!.url).port);
      const consolePort = Number(new URL(proxyUrl).port);
      const origin = { Origin: proxyUrl, "Content-Type": "application/json" };
      const setup = await fetch(`${proxyUrl}/api/v1/auth/setup`, {
        method: "POST",
        headers: origin,
        body: JSON.stringify({ token: running.proxy!.setupToken, password: "ports test password" }),
      });
      expect(setup.status).toBe(200);
      const cookie = (setup.headers.get("set-cookie") ?? "").split(";")[0];
      const { csrf } = (await setup.json()) as { csrf: string };
      const api = (path: string, init: RequestInit = {}) =>
        fetch(`${proxyUrl}/api/v1${path}`, {
          ...init,
          headers: { ...origin, cookie, "X-CSRF-Token": csrf },
        });
      const network = (await (await api("/system/network")).json()) as {
        gatehousePorts: unknown[];
      };
      expect(network.gatehousePorts).toEqual([
        { port: consolePort, use: "console" },
        { port: controller, use: "controller" },
        { port: parcelPort, use: "parcel" },
      ]);
      const settings = (await (await api("/settings")).json()) as Record<string, unknown>;
      for (const [port, code] of [
        [consolePort, "settings.mixed_port_own"],
        [controller, "settings.mixed_port_controller"],
        [parcelPort, "settings.mixed_port_parcel"],
      ] as const) {
        const r = await api("/settings", {
          method: "PUT",
          body: JSON.stringify({ ...settings, mixedPort: port }),
        });
        expect(r.status).toBe(400);
        expect(((await r.json()) as { code: string }).code).toBe(code);
      }
      const free = await freePort();
      const ok = await api("/settings", {
        method: "PUT",
        body: JSON.stringify({ ...settings, mixedPort: free }),
      });
      expect(ok.status).toBe(200);
    } finally {
      await running.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
