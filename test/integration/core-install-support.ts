import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect } from "vitest";
import type { CoreManager } from "../../server/proxy/core/index.js";
import type { InstallTuning } from "../../server/proxy/domain/assemble.js";
import { DEFAULT_SETTINGS } from "../../server/proxy/types.js";
import { FakeFeeds, startProxy, type ProxyHarness, type Reply } from "./proxy-api-harness.js";
import { freePort } from "./proxy-core-harness.js";

/** Helpers of the core install tests: the real service with its release server. */

const FEED = "http://feeds.install.test/nodes";
const NODES = ["Tokyo", "Osaka"].map((name) => ({
  name,
  type: "ss",
  server: `${name.toLowerCase()}.example.net`,
  port: 8388,
  cipher: "aes-128-gcm",
  password: "p",
}));

const GEODATA = { geodataDirs: [resolve("test/fixtures")] };

/** The real proxy service installing from `releaseURL`, signed in, on a free mixed port. */
export async function installService(
  releaseURL: string,
  machine: InstallTuning = {},
): Promise<InstallHarness> {
  const feeds = new FakeFeeds();
  feeds.responses.set(FEED, JSON.stringify(NODES));
  const h = await startProxy({
    coreReleaseURL: releaseURL,
    controllerPort: await freePort(),
    feeds,
    coreInstall: { downloadTimeoutMs: 1000, maxBytes: 64 * 1024, ...machine },
    // The rules' geodata, as the app ships it beside its core (the install puts only the
    // executable in <data-dir>/core).
    ...GEODATA,
  });
  await h.setup();
  const put = await h.request("PUT", "/settings", {
    body: { ...DEFAULT_SETTINGS, mixedPort: await freePort() },
  });
  expect(put.status).toBe(200);
  return new InstallHarness(h, machine.platform === "win32" ? "mihomo.exe" : "mihomo");
}

export class InstallHarness {
  constructor(
    readonly h: ProxyHarness,
    /** The installed executable's name on the machine the service believes it runs on. */
    readonly exe = "mihomo",
  ) {}

  get coreDir(): string {
    return join(this.h.dataDir, "core");
  }

  /** Every file in `<data-dir>/core` with its bytes, so "as before" is exact. */
  snapshot(): Record<string, string> {
    const dir = this.coreDir;
    if (!existsSync(dir)) return {};
    return Object.fromEntries(
      readdirSync(dir)
        .sort()
        .map((n) => [n, readFileSync(join(dir, n)).toString("base64")]),
    );
  }

  script(name = this.exe): string {
    return readFileSync(join(this.coreDir, name), "utf8");
  }

  install(): Promise<Reply> {
    return this.h.request("POST", "/system/core/install", { body: {} });
  }

  rollback(): Promise<Reply> {
    return this.h.request("POST", "/system/core/rollback", { body: {} });
  }

  async info() {
    return (await this.h.request("GET", "/system/core")).json;
  }

  get manager(): CoreManager {
    return this.h.service.ctx.core as CoreManager;
  }

  get pid(): number | undefined {
    return (this.manager.supervisor as { pid?: number }).pid;
  }

  version(): Promise<string> {
    return this.manager.client.version(2000);
  }

  async start(): Promise<void> {
    const r = await this.h.request("POST", "/system/service", { body: { action: "start" } });
    expect(r.status, r.text).toBe(200);
  }

  /** Subscribes to the two-node feed and chooses `name` by hand. */
  async pick(name: string): Promise<string> {
    const sub = await this.h.request("POST", "/subscriptions", {
      body: { name: "feed", url: FEED, intervalHours: 0 },
    });
    expect((await this.h.request("POST", `/subscriptions/${sub.json.id}/refresh`)).status).toBe(
      200,
    );
    const nodes = (await this.h.request("GET", "/nodes")).json as Array<{
      id: string;
      name: string;
    }>;
    const id = nodes.find((n) => n.name === name)!.id;
    const r = await this.h.request("POST", "/nodes/select", { body: { mode: "manual", id } });
    expect(r.status).toBe(200);
    return id;
  }

  /** The member the core's PROXY selector uses now. */
  async proxyNow(): Promise<string | undefined> {
    return (await this.manager.client.proxies(2000)).PROXY?.now;
  }

  async close(): Promise<void> {
    await this.h
      .request("POST", "/system/service", { body: { action: "stop" } })
      .catch(() => undefined);
    await this.h.close();
  }
}
