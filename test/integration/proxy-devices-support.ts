import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect } from "vitest";
import type { CoreManager } from "../../server/proxy/core/index.js";
import type { ProxyRouterDeps } from "../../server/proxy/routes/router-deps.js";
import type { Settings } from "../../server/proxy/types.js";
import { freePort } from "../helpers/free-ports.js";
import { startProxy, type HarnessOptions, type ProxyHarness } from "./proxy-api-harness.js";

/** The fake mihomo executable: a real process running the simulated controller. */
export const FAKE_CORE = resolve("test/fixtures/fake-core.mjs");

/** A LAN device's addresses as the tests use them. */
export const TABLET = { ip: "192.168.1.20", mac: "a4:83:e7:11:22:33" };
export const LAPTOP = { ip: "192.168.1.30", mac: "00:1a:11:0a:0b:0c" };
/** A phone with a private (randomised) MAC address: registered to no maker. */
export const PHONE = { ip: "192.168.1.40", mac: "02:42:ac:11:00:02" };

export interface LanHarness {
  h: ProxyHarness;
  /** The neighbour table file the service reads (Linux's /proc/net/arp format). */
  arp: string;
  leases: string;
  setArp(entries: Array<{ ip: string; mac: string }>): void;
  setLeases(text: string): void;
  /** Asks the simulated core's controller (its own API and its `/__sim/` test routes). */
  core(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  /** A connection from `sourceIP` with these counts; answers its id. */
  connect(sourceIP: string, upload?: number, download?: number, host?: string): Promise<string>;
  /** Adds bytes to a connection (and to the core's totals). */
  move(id: string, upload: number, download: number): Promise<void>;
  close(id: string): Promise<void>;
  /** One reading of the core's connections by the service, now. */
  poll(): Promise<void>;
  /** Waits until every change queued so far reached the core. */
  settled(): Promise<void>;
  /** The configuration the core runs. */
  config(): string;
  stop(wipe?: boolean): Promise<void>;
  dir: string;
}

export function arpText(entries: Array<{ ip: string; mac: string }>): string {
  const head = "IP address       HW type     Flags       HW address            Mask     Device\n";
  return (
    head +
    entries
      .map((e) => `${e.ip.padEnd(17)}0x1         0x2         ${e.mac}     *        br-lan`)
      .join("\n") +
    "\n"
  );
}

/**
 * The real proxy service with the fake core running, a neighbour table and a leases file of
 * the test's own. Readings are taken by hand (`poll`): the timer's interval is a minute.
 */
export async function startLan(opts: HarnessOptions = {}, dir?: string): Promise<LanHarness> {
  const files = dir ?? mkdtempSync(join(tmpdir(), "gatehouse-lan-"));
  const arp = join(files, "arp");
  const leases = join(files, "leases");
  if (!dir) {
    writeFileSync(arp, arpText([]));
    writeFileSync(leases, "");
  }
  const h = await startProxy({
    coreBin: FAKE_CORE,
    controllerPort: await freePort(),
    neighbourTable: arp,
    dhcpLeases: leases,
    deviceTiming: { pollMs: 60_000, flushMs: 3_600_000 },
    probationCheckMs: 0,
    ...opts,
  });
  const initialized = h.service.setupToken === null;
  if (!initialized) {
    await h.setup();
    const current = (await h.request("GET", "/settings")).json as Settings;
    const ports = { mixedPort: await freePort(), dnsPort: await freePort() };
    const put = await h.request("PUT", "/settings", { body: { ...current, ...ports } });
    expect(put.status, put.text).toBe(200);
  } else {
    await signIn(h);
  }
  const started = await h.request("POST", "/system/service", { body: { action: "start" } });
  expect(started.status, started.text).toBe(200);
  const manager = h.service.ctx.core as CoreManager;
  const secret = () => readFileSync(join(h.dataDir, "proxy", "core", "secret"), "utf8").trim();
  const controller = h.service.ctx.options.controllerPort;
  const core: LanHarness["core"] = async (method, path, body) => {
    const r = await fetch(`http://127.0.0.1:${controller}${path}`, {
      method,
      headers: { Authorization: `Bearer ${secret()}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, json: text ? (JSON.parse(text) as unknown) : null };
  };
  const lan: LanHarness = {
    h,
    arp,
    leases,
    dir: files,
    setArp: (entries) => writeFileSync(arp, arpText(entries)),
    setLeases: (text) => writeFileSync(leases, text),
    core,
    async connect(sourceIP, upload = 0, download = 0, host = "www.example.com") {
      const r = await core("POST", "/__sim/connections", {
        metadata: { sourceIP, host, destinationPort: "443", sourcePort: "40000" },
        upload,
        download,
      });
      expect(r.status).toBe(200);
      return (r.json as { id: string }).id;
    },
    async move(id, upload, download) {
      expect(
        (await core("POST", "/__sim/traffic", { id, up: upload, down: download })).status,
      ).toBe(204);
    },
    async close(id) {
      expect((await core("DELETE", `/connections/${id}`)).status).toBe(204);
    },
    poll: () => h.service.accounting.poll(),
    settled: () => (h.service.ctx as ProxyRouterDeps).changes.serial(() => undefined),
    config: () => readFileSync(manager.configFile, "utf8"),
    async stop(wipe = true) {
      await h.request("POST", "/system/service", { body: { action: "stop" } }).catch(() => null);
      await h.close(wipe);
      if (wipe && !dir) rmSync(files, { recursive: true, force: true });
    },
  };
  return lan;
}

async function signIn(h: ProxyHarness): Promise<void> {
  const { PASSWORD, sessionCookie } = await import("./proxy-api-harness.js");
  const r = await h.request("POST", "/auth/login", { body: { password: PASSWORD } });
  expect(r.status, r.text).toBe(200);
  h.cookie = sessionCookie(r);
  h.csrf = r.json.csrf;
}

/** The compiled rules of a configuration, in order. */
export function rulesOf(yaml: string): string[] {
  const at = yaml.indexOf("\nrules:\n");
  return yaml
    .slice(at + 8)
    .split("\n")
    .filter((l) => l.startsWith("  - "))
    .map((l) => l.slice(4).replace(/^"|"$/g, ""));
}
