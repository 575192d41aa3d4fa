import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../server/log.js";
import { freePort } from "../helpers/free-ports.js";
import { startFeedServer, type FeedServer } from "../fixtures/feed-server.js";
import { startParcel, type Harness, type Reply } from "../helpers/parcel-harness.js";
import { bearer, createUpload, uploadAndPublish, waitFor } from "../helpers/parcel-uploads.js";
import {
  FakeCore,
  sessionCookie,
  startProxy,
  type ProxyHarness,
  type Reply as ProxyReply,
} from "./proxy-api-harness.js";

/** Everything the logger writes, at its most verbose level. */
function captured() {
  const lines: string[] = [];
  const logger = createLogger({
    level: "trace",
    destination: { write: (s: string) => lines.push(s) },
  });
  return { logger, lines };
}

/** A port nobody listens on right now (the core's controller and mixed port). */

/** Waits until every request sent so far has its entry (they are written when they end). */
async function settled(lines: string[], ids: string[]): Promise<void> {
  await waitFor(() => ids.every((id) => lines.some((l) => l.includes(`"requestId":"${id}"`))));
}

function cookieValues(r: { headers: Reply["headers"] }): string[] {
  return (r.headers["set-cookie"] ?? [])
    .map((c) => c.split(";")[0].split("=").slice(1).join("="))
    .filter((v) => v.length > 0);
}

function expectNoSecret(text: string, secrets: string[]): void {
  for (const secret of secrets) {
    expect(secret.length).toBeGreaterThanOrEqual(6);
    expect(text, `a log line holds ${secret}`).not.toContain(secret);
  }
}

let parcel: Harness | null = null;
let proxy: ProxyHarness | null = null;
let feeds: FeedServer | null = null;
afterEach(async () => {
  await parcel?.close(true);
  await proxy?.close();
  await feeds?.close();
  parcel = proxy = feeds = null;
});

describe("the parcel service's log", () => {
  it("holds no manage token, pickup code, password, cookie or query value", async () => {
    const log = captured();
    const adminPassword = "admin-pw-SECRET-1a2b3c";
    parcel = await startParcel({ logger: log.logger, adminPassword });
    const h = parcel;
    const secrets: string[] = [adminPassword];
    const ids: string[] = [];
    const send = async (...args: Parameters<Harness["request"]>): Promise<Reply> => {
      const r = await h.request(...args);
      ids.push(String(r.headers["x-request-id"]));
      secrets.push(...cookieValues(r));
      return r;
    };

    const parcelPassword = "parcel-pw-SECRET-9z8y";
    const up = await createUpload(h, { "a.txt": 4, "b.txt": 6 }, { password: parcelPassword });
    secrets.push(parcelPassword, up.manage_token);
    await send("GET", `/uploads/${up.id}`, { headers: bearer(up.manage_token) });
    await send("GET", `/uploads/${up.id}`, { headers: bearer("BOGUS-TOKEN-SECRET-77") });
    secrets.push("BOGUS-TOKEN-SECRET-77");
    const published = await uploadAndPublish(h, up);
    const code = published.json.code as string;
    secrets.push(code, code.replace("-", ""));

    await send("POST", "/pickup/resolve", { body: { code: "QQQQ-ZZZZ", password: "" } });
    await send("POST", "/pickup/resolve", { body: { code, password: "WRONG-PW-SECRET-55" } });
    secrets.push("QQQQ-ZZZZ", "WRONG-PW-SECRET-55");
    await send("POST", "/pickup/resolve", { body: '{"code":"BROKEN-JSON-SECRET-3' });
    secrets.push("BROKEN-JSON-SECRET-3");
    const resolved = await send("POST", "/pickup/resolve", {
      body: { code, password: parcelPassword },
    });
    expect(resolved.status).toBe(200);
    const files = (await send("GET", "/pickup")).json.files as Array<{ id: string }>;
    expect((await send("GET", `/pickup/files/${files[0].id}/download`)).status).toBe(200);
    // A failing read, so the error path writes too: the blob folder is no longer a folder (a
    // missing blob alone is a 410 now, quarantined, not a failure of the service).
    rmSync(join(h.dataDir, "parcel", "blobs"), { recursive: true, force: true });
    writeFileSync(join(h.dataDir, "parcel", "blobs"), "");
    expect((await send("GET", `/pickup/files/${files[1].id}/download`)).status).toBe(500);

    const newCode = await send("POST", `/parcels/${up.id}/code`, {
      headers: bearer(up.manage_token),
    });
    secrets.push(newCode.json.code as string);

    await send("POST", "/admin/login", {
      body: { username: "admin", password: "WRONG-ADMIN-SECRET-8" },
    });
    secrets.push("WRONG-ADMIN-SECRET-8");
    expect(
      (await send("POST", "/admin/login", { body: { username: "admin", password: adminPassword } }))
        .status,
    ).toBe(200);
    await send("GET", "/admin/audit?token=QUERY-SECRET-41&target=QUERY-SECRET-42");
    await send("GET", "/nowhere?code=QUERY-SECRET-43");
    secrets.push("QUERY-SECRET-41", "QUERY-SECRET-42", "QUERY-SECRET-43");
    const errors = await send("GET", "/admin/errors");
    expect(errors.json.items.length).toBeGreaterThan(0);

    await settled(log.lines, ids);
    const text = log.lines.join("") + JSON.stringify(errors.json);
    // The log did record the exchange: one entry per request and the failure.
    expect(log.lines.filter((l) => l.includes('"msg":"request"')).length).toBeGreaterThanOrEqual(
      ids.length,
    );
    expect(text).toContain('"level":"error"');
    expect(text).toContain("/api/v1/pickup/resolve");
    expectNoSecret(text, secrets);
  });
});

describe("the proxy service's log", () => {
  it("holds no setup token, password, cookie, CSRF token or subscription credentials", async () => {
    const log = captured();
    feeds = await startFeedServer();
    feeds.setRoute("/sub/SUBPATH-SECRET-1", { status: 500, body: "down" });
    const port = new URL(feeds.url).port;
    const subUrl = `http://feeduser:USERINFO-SECRET-2@127.0.0.1:${port}/sub/SUBPATH-SECRET-1?token=SUBQUERY-SECRET-3`;
    proxy = await startProxy({ core: new FakeCore(), logger: log.logger });
    const h = proxy;
    const setupToken = h.service.setupToken ?? "";
    const secrets = [
      setupToken,
      "USERINFO-SECRET-2",
      "SUBPATH-SECRET-1",
      "SUBQUERY-SECRET-3",
      "SETUP-WRONG-SECRET",
      "LOGIN-WRONG-SECRET-1",
      "NEW-PASSWORD-SECRET-22",
      "correct horse battery",
      "BROKEN-JSON-SECRET-4",
      "CSRF-WRONG-SECRET-5",
      "QUERY-SECRET-6",
    ];
    const ids: string[] = [];
    const send = async (...args: Parameters<ProxyHarness["request"]>): Promise<ProxyReply> => {
      const r = await h.request(...args);
      ids.push(String(r.headers["x-request-id"]));
      secrets.push(...cookieValues(r));
      if (typeof r.json?.csrf === "string" && r.json.csrf) secrets.push(r.json.csrf as string);
      return r;
    };
    const signIn = (r: ProxyReply) => {
      h.cookie = sessionCookie(r);
      h.csrf = r.json.csrf as string;
    };

    await send("POST", "/auth/setup", {
      body: { token: "SETUP-WRONG-SECRET", password: "correct horse battery" },
    });
    signIn(
      await send("POST", "/auth/setup", {
        body: { token: setupToken, password: "correct horse battery" },
      }),
    );
    await send("POST", "/auth/login", { body: '{"password":"BROKEN-JSON-SECRET-4' });
    await send("POST", "/subscriptions", {
      body: { name: "x", url: `http://127.0.0.1:${await freePort()}/` },
      headers: { "x-csrf-token": "CSRF-WRONG-SECRET-5" },
    });
    const created = await send("POST", "/subscriptions", {
      body: { name: "Provider", url: subUrl, intervalHours: 1 },
    });
    expect(created.status).toBe(200);
    const id = created.json.id as string;
    expect((await send("POST", `/subscriptions/${id}/refresh`)).status).toBe(400);
    // The scheduled refresh fails too, and says so in the log.
    h.clock.advance(3_600_000);
    await h.service.scheduler.tick();
    const backup = await send("GET", "/system/backup");
    expect((await send("POST", "/system/restore", { body: backup.json })).status).toBe(200);
    await send("GET", "/subscriptions?token=QUERY-SECRET-6");
    const changed = await send("PUT", "/auth/password", {
      body: { currentPassword: "correct horse battery", password: "NEW-PASSWORD-SECRET-22" },
    });
    expect(changed.status).toBe(200);
    h.csrf = changed.json.csrf as string;
    await send("POST", "/auth/logout");
    h.cookie = null;
    h.csrf = "";
    await send("POST", "/auth/login", { body: { password: "LOGIN-WRONG-SECRET-1" } });
    signIn(await send("POST", "/auth/login", { body: { password: "NEW-PASSWORD-SECRET-22" } }));
    const status = await send("GET", "/status");
    expect(status.json.recentErrors.length).toBeGreaterThan(0);

    await settled(log.lines, ids);
    const text = log.lines.join("") + JSON.stringify(status.json.recentErrors);
    expect(text).toContain("Scheduled refresh of subscription");
    expect(text).toContain('"level":"warn"');
    expect(text).toContain("/api/v1/auth/login");
    expectNoSecret(text, secrets);
  });

  it("holds neither the core's controller secret nor the nodes' passwords while a core runs", async () => {
    const log = captured();
    feeds = await startFeedServer();
    feeds.setRoute("/sub/clash", { feed: "clash.yml" });
    proxy = await startProxy({
      logger: log.logger,
      coreBin: resolve("test/fixtures/fake-core.mjs"),
      controllerPort: await freePort(),
    });
    const h = proxy;
    await h.setup();
    const settings = (await h.request("GET", "/settings")).json as Record<string, unknown>;
    const put = await h.request("PUT", "/settings", {
      body: { ...settings, mixedPort: await freePort() },
    });
    expect(put.status).toBe(200);
    const created = await h.request("POST", "/subscriptions", {
      body: { name: "Clash", url: `${feeds.url}/sub/clash?token=CLASH-QUERY-SECRET` },
    });
    expect((await h.request("POST", `/subscriptions/${created.json.id}/refresh`)).status).toBe(200);
    expect((await h.request("POST", "/system/service", { body: { action: "start" } })).status).toBe(
      200,
    );
    expect((await h.request("GET", "/status")).json.coreOnline).toBe(true);
    expect((await h.request("POST", "/system/service", { body: { action: "stop" } })).status).toBe(
      200,
    );

    const coreSecret = readFileSync(join(h.dataDir, "proxy", "core", "secret"), "utf8").trim();
    const text = log.lines.join("");
    expect(text).toContain("/api/v1/system/service");
    // The core's own output went through the log too.
    expect(text).toContain('"msg":"core: ');
    expectNoSecret(text, [
      coreSecret,
      "CLASH-QUERY-SECRET",
      "trojan-pass-04",
      "hy2-secret",
      "tuic-pass",
      "1b6b0f6c-8d1e-4e0b-9d35-1f2a3b4c5d6e",
    ]);
  });
});
