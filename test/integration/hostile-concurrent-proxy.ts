import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { sendTogether, type RawReply } from "../helpers/hostile-http.js";
import { startCoreReleaseServer } from "../fixtures/core-release-server.js";
import { installService, type InstallHarness } from "./core-install-support.js";
import { FakeCore, FakeFeeds, startProxy, type ProxyHarness } from "./proxy-api-harness.js";

/**
 * The proxy service's half of the hostile matrix for timing: requests on one resource sent so
 * that they arrive together. Each case says what one outcome must be: one of them does the
 * work and the others are refused with a sentence (or queue behind it), and the stored state
 * is the work of exactly one.
 */

export interface ConcurrentCase {
  name: string;
  run(): Promise<void>;
}

type Json = RawReply & { json: Record<string, unknown> };

/** `n` copies of one request of `h`'s session, arriving together. */
async function together(
  h: ProxyHarness,
  calls: Array<{ method: string; path: string; body?: unknown }>,
): Promise<Json[]> {
  const replies = await sendTogether(
    h.port,
    calls.map((c) => ({
      method: c.method,
      path: `/api/v1${c.path}`,
      headers: {
        host: `127.0.0.1:${h.port}`,
        origin: h.origin,
        cookie: h.cookie ?? "",
        "x-csrf-token": h.csrf,
        "content-type": "application/json",
      },
      body: Buffer.from(JSON.stringify(c.body ?? {})),
    })),
  );
  return replies.map((r) => ({ ...r, json: r.text ? (JSON.parse(r.text) as never) : {} }));
}

const statuses = (rs: Json[]) => rs.map((r) => r.status).sort();

/** The one refused answer's code. */
const refusedCode = (rs: Json[], status: number) =>
  rs.find((r) => r.status === status)?.json.code as string | undefined;

const feeds = new FakeFeeds();

/** The service with a stand-in core that runs, so settings changes wait for confirmation. */
async function running(probationCheckMs = 0): Promise<ProxyHarness> {
  const core = new FakeCore();
  core.isRunning = true;
  const h = await startProxy({ core, feeds, probationCheckMs });
  await h.setup();
  return h;
}

async function withInstaller(work: (s: InstallHarness, tag: (t: string) => void) => Promise<void>) {
  const rel = await startCoreReleaseServer();
  const s = await installService(rel.url);
  try {
    await work(s, (t) => rel.set({ tag: t, variant: "good", mode: "ok" }));
  } finally {
    await s.close();
    await rel.close();
  }
}

/** A backup's rule; its id is its value's first letter 24 times (a hex letter). */
const rule = (value: string) => ({
  id: value[0].repeat(24),
  type: "DOMAIN",
  value,
  action: "DIRECT",
  enabled: true,
});

export const PROXY_CONCURRENT_CASES: ConcurrentCase[] = [
  {
    name: "two POST /system/core/install: one installs, the other is 409 install.busy",
    run: () =>
      withInstaller(async (s, tag) => {
        tag("v1.19.50");
        const rs = await together(s.h, [
          { method: "POST", path: "/system/core/install" },
          { method: "POST", path: "/system/core/install" },
        ]);
        expect(statuses(rs)).toEqual([200, 409]);
        expect(refusedCode(rs, 409)).toBe("install.busy");
        expect(await s.info()).toMatchObject({ installing: false, version: "v1.19.50" });
        expect(Object.keys(s.snapshot())).toEqual(["mihomo"]);
      }),
  },
  {
    name: "two POST /system/core/rollback: the cores trade places once",
    run: () =>
      withInstaller(async (s, tag) => {
        tag("v1.19.51");
        expect((await s.install()).status).toBe(200);
        tag("v1.19.52");
        expect((await s.install()).status).toBe(200);
        const rs = await together(s.h, [
          { method: "POST", path: "/system/core/rollback" },
          { method: "POST", path: "/system/core/rollback" },
        ]);
        expect(statuses(rs)).toEqual([200, 409]);
        expect(await s.info()).toMatchObject({
          version: "v1.19.51",
          previousVersion: "v1.19.52",
        });
      }),
  },
  {
    name: "two POST /system/restore: one backup whole, never a mix, and Undo brings back the state before both",
    run: async () => {
      const h = await running();
      try {
        expect(
          (
            await h.request("POST", "/rules", {
              body: { type: "DOMAIN", value: "before.example", action: "DIRECT" },
            })
          ).status,
        ).toBe(200);
        const original = (await h.request("GET", "/system/backup")).json;
        const backup = (value: string, gateway: string) => {
          const b = structuredClone(original);
          b.state.settings = { ...b.state.settings, proxyEnabled: false, gateway };
          b.state.rules = [rule(value)];
          return b;
        };
        const rs = await together(h, [
          { method: "POST", path: "/system/restore", body: backup("a.example", "192.168.1.1") },
          { method: "POST", path: "/system/restore", body: backup("b.example", "192.168.1.2") },
        ]);
        expect(statuses(rs)).toEqual([200, 200]);
        const settings = (await h.request("GET", "/settings")).json;
        const rules = (await h.request("GET", "/rules")).json.custom.map(
          (r: { value: string }) => r.value,
        );
        const pair = `${settings.gateway} ${rules.join(",")}`;
        expect(["192.168.1.1 a.example", "192.168.1.2 b.example"]).toContain(pair);
        expect((await h.request("POST", "/system/probation/revert", { body: {} })).status).toBe(
          200,
        );
        expect((await h.request("GET", "/system/backup")).json.state).toEqual(original.state);
      } finally {
        await h.close();
      }
    },
  },
  {
    name: "two DELETE /subscriptions/:id of one subscription: one deletes, the other says it is unknown",
    run: async () => {
      const h = await running();
      try {
        feeds.responses.set("http://feeds.test/one", JSON.stringify([{ name: "n", type: "ss" }]));
        const { id } = (
          await h.request("POST", "/subscriptions", {
            body: { name: "one", url: "http://feeds.test/one", intervalHours: 0 },
          })
        ).json;
        expect((await h.request("POST", `/subscriptions/${id}/refresh`)).status).toBe(200);
        const rs = await together(h, [
          { method: "DELETE", path: `/subscriptions/${id}` },
          { method: "DELETE", path: `/subscriptions/${id}` },
        ]);
        expect(statuses(rs)).toEqual([200, 400]);
        expect(refusedCode(rs, 400)).toBe("subscription.unknown");
        expect((await h.request("GET", "/subscriptions")).json).toEqual([]);
        const snapshots = join(h.dataDir, "proxy", "snapshots");
        expect(readdirSync(snapshots).filter((f) => f.endsWith(".json"))).toEqual([]);
      } finally {
        await h.close();
      }
    },
  },
  {
    name: "PUT and two DELETE /devices/:id of one device: one delete, the other unknown, never a device half gone",
    run: async () => {
      const h = await running();
      try {
        const backup = (await h.request("GET", "/system/backup")).json;
        backup.state.devices = [{ id: "192.168.1.20", name: "Tablet", policy: "block" }];
        expect((await h.request("POST", "/system/restore", { body: backup })).status).toBe(200);
        const rs = await together(h, [
          { method: "PUT", path: "/devices/192.168.1.20", body: { policy: "direct" } },
          { method: "DELETE", path: "/devices/192.168.1.20" },
          { method: "DELETE", path: "/devices/192.168.1.20" },
        ]);
        const [put, ...deletes] = rs;
        expect(deletes.map((r) => r.status).sort()).toEqual([200, 400]);
        expect(deletes.find((r) => r.status === 400)?.json.code).toBe("device.unknown");
        // The rename came first (200) or found the device gone (400): nothing else.
        expect([200, 400]).toContain(put.status);
        expect((await h.request("GET", "/devices")).json).toEqual([]);
        const core = h.service.ctx.core as FakeCore;
        expect(core.lastApplied?.devices).toEqual([]);
      } finally {
        await h.close();
      }
    },
  },
  {
    name: "two POST /system/confirm: one keeps the change, the other finds nothing waiting",
    run: async () => {
      const h = await running();
      try {
        const settings = (await h.request("GET", "/settings")).json;
        await h.request("PUT", "/settings", { body: { ...settings, proxyEnabled: false } });
        const rs = await together(h, [
          { method: "POST", path: "/system/confirm" },
          { method: "POST", path: "/system/confirm" },
        ]);
        expect(statuses(rs)).toEqual([200, 409]);
        expect(refusedCode(rs, 409)).toBe("probation.none");
        expect((await h.request("GET", "/settings")).json.proxyEnabled).toBe(false);
        expect(existsSync(join(h.dataDir, "proxy", "probation.json"))).toBe(false);
      } finally {
        await h.close();
      }
    },
  },
  {
    name: "POST /system/confirm at the deadline (the service's own check every 2 ms): one outcome, told the same everywhere",
    run: async () => {
      const h = await running(2);
      try {
        for (let round = 0; round < 10; round++) {
          const settings = (await h.request("GET", "/settings")).json;
          const was = settings.proxyEnabled as boolean;
          const change = await h.request("PUT", "/settings", {
            body: { ...settings, proxyEnabled: !was },
          });
          expect(change.headers["x-gatehouse-probation"]).toBeDefined();
          h.clock.advance(60_000);
          const [confirm] = await together(h, [{ method: "POST", path: "/system/confirm" }]);
          const kept = confirm.status === 200;
          if (!kept) expect(confirm.json.code).toBe("probation.none");
          await expect
            .poll(async () => (await h.request("GET", "/settings")).json.proxyEnabled)
            .toBe(kept ? !was : was);
          const status = (await h.request("GET", "/status")).json;
          expect(status.probation).toBeNull();
          expect(status.configErrorCode).toBe(kept ? "" : "probation.rolled_back");
          expect(existsSync(join(h.dataDir, "proxy", "probation.json"))).toBe(false);
        }
      } finally {
        await h.close();
      }
    },
  },
];
