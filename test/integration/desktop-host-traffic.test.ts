import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forkNode } from "../../main/host/fork-node.js";
import type { ForkFunction, HostChild } from "../../main/host/host-child.js";
import { ServiceHost, type HostStatus } from "../../main/host/service-host.js";
import type { HostMessage, ServiceEvent } from "../../server/desktop/protocol.js";
import {
  cookiesOf,
  drive,
  isReady,
  request,
  serviceArgs,
  tempDir,
  type Driven,
  type ReadyStatus,
} from "./desktop-host-support.js";

/**
 * What travels between the desktop app and the real services while they run: the parcel
 * events, entries updates, malformed messages, and the utility-process (parentPort) path.
 */

interface Published {
  id: string;
  code: string;
  files: Array<{ id: string; name: string }>;
  urls: Array<{ url: string }>;
}

/** Uploads two small files through `host` (a `Host`/`Origin` of an entry) and publishes. */
async function publishTwo(base: string, host?: string): Promise<Published> {
  const created = await request(base, "POST", "/api/v1/uploads", {
    host,
    body: {
      files: [
        { name: "report.pdf", size: 5 },
        { name: "photo.jpg", size: 3 },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  const up = created.json as { id: string; manage_token: string; files: Published["files"] };
  const auth = { authorization: `Bearer ${up.manage_token}` };
  for (const [i, f] of up.files.entries()) {
    const put = await request(base, "PUT", `/api/v1/uploads/${up.id}/files/${f.id}`, {
      host,
      raw: Buffer.alloc(i === 0 ? 5 : 3, 0x61 + i),
      headers: auth,
    });
    expect(put.status, put.text).toBe(200);
  }
  const pub = await request(base, "POST", `/api/v1/uploads/${up.id}/publish`, {
    host,
    headers: auth,
  });
  expect(pub.status, pub.text).toBe(200);
  const json = pub.json as { code: string; urls: Array<{ url: string }> };
  return { id: up.id, code: json.code, files: up.files, urls: json.urls };
}

describe("a running service host", () => {
  let d: Driven;
  let ready: ReadyStatus;
  let base: string;
  let port: string;

  beforeAll(async () => {
    d = drive({ dataDir: tempDir(), backoffMs: 100 });
    d.host.start();
    ready = await d.waitStatus(isReady, 20_000, 0);
    base = ready.info.parcel!.url;
    port = new URL(base).port;
  });
  afterAll(() => d.host.stop());

  it("ignores malformed messages from the host and keeps working", async () => {
    const child = d.children[0];
    for (const garbage of [
      "stop",
      null,
      42,
      { type: "nope" },
      { type: "entries", entries: ["not an address"] },
      { type: "entries", entries: "http://127.0.0.1:1" },
    ])
      child.postMessage(garbage as unknown as HostMessage);
    const health = await request(base, "GET", "/api/v1/health");
    expect(health.status).toBe(200);
    await d.waitFor(() =>
      (d.output().match(/ignored a malformed message from the host/g) ?? []).length >= 6
        ? true
        : undefined,
    );
    expect(d.host.state.state).toBe("ready");
    expect(d.host.pid).toBe(child.pid);
  });

  it("reports a publish and each completed download with the file names and the client's address", async () => {
    const before = Date.now();
    const p = await publishTwo(base);
    const finished = await d.waitFor(() =>
      d.events.find((e) => e.kind === "upload.finished" && e.parcelId === p.id),
    );
    expect(finished).toEqual({
      kind: "upload.finished",
      parcelId: p.id,
      files: ["report.pdf", "photo.jpg"],
      at: expect.any(Number),
    });
    expect(finished.at).toBeGreaterThanOrEqual(before - 1000);

    const resolved = await request(base, "POST", "/api/v1/pickup/resolve", {
      body: { code: p.code },
    });
    expect(resolved.status, resolved.text).toBe(200);
    const cookie = { cookie: cookiesOf(resolved) };
    const one = await request(base, "GET", `/api/v1/pickup/files/${p.files[0].id}/download`, {
      headers: cookie,
    });
    expect(one.status).toBe(200);
    expect(one.text).toBe("aaaaa");
    const zip = await request(base, "GET", "/api/v1/pickup/archive", { headers: cookie });
    expect(zip.status).toBe(200);

    const picked = await d.waitFor(() => {
      const list = d.events.filter(
        (e): e is Extract<ServiceEvent, { kind: "parcel.picked_up" }> =>
          e.kind === "parcel.picked_up" && e.parcelId === p.id,
      );
      return list.length === 2 ? list : undefined;
    });
    expect(picked).toEqual([
      {
        kind: "parcel.picked_up",
        parcelId: p.id,
        file: "report.pdf",
        files: 1,
        from: "127.0.0.1",
        at: expect.any(Number),
      },
      {
        kind: "parcel.picked_up",
        parcelId: p.id,
        file: null,
        files: 2,
        from: "127.0.0.1",
        at: expect.any(Number),
      },
    ]);
    // A HEAD answers headers and takes nothing: no event.
    const head = await request(base, "HEAD", `/api/v1/pickup/files/${p.files[1].id}/download`, {
      headers: cookie,
    });
    expect(head.status).toBe(200);
    // A GET of the other file after it marks the end: its event comes after any the HEAD
    // had wrongly made.
    const after = await request(base, "GET", `/api/v1/pickup/files/${p.files[0].id}/download`, {
      headers: cookie,
    });
    expect(after.status).toBe(200);
    const all = await d.waitFor(() => {
      const list = d.events.filter(
        (e): e is Extract<ServiceEvent, { kind: "parcel.picked_up" }> =>
          e.kind === "parcel.picked_up",
      );
      return list.filter((e) => e.file === "report.pdf").length === 2 ? list : undefined;
    });
    expect(all.map((e) => e.file)).toEqual(["report.pdf", null, "report.pdf"]);
  });

  it("puts new entries in place at once: shares, Host and Origin checks follow, the window's own address stays", async () => {
    const lan = `http://192.168.77.5:${port}`;
    const lanHost = `192.168.77.5:${port}`;
    expect((await request(base, "GET", "/api/v1/policy", { host: lanHost })).status).toBe(421);
    expect(() => d.host.setEntries(["ftp://192.168.77.5"])).toThrow(/http\(s\) origins/);

    const seen = d.infos.length;
    d.host.setEntries([lan]);
    const info = await d.waitFor(() =>
      d.infos.slice(seen).find((i) => i.parcel?.entries.includes(lan)),
    );
    // localhost is gone, the window's own 127.0.0.1 address is kept first.
    expect(info.parcel?.entries).toEqual([base, lan]);

    const policy = await request(base, "GET", "/api/v1/policy", { host: lanHost });
    expect(policy.status).toBe(200);
    expect((policy.json as { access_urls: string[] }).access_urls).toEqual([base, lan]);
    const p = await publishTwo(base, lanHost);
    expect(p.urls.map((u) => u.url)).toEqual([
      `${base}/#/pickup/${p.code.replace("-", "")}`,
      `${lan}/#/pickup/${p.code.replace("-", "")}`,
    ]);
    const fromLocalhost = await request(base, "POST", "/api/v1/uploads", {
      host: `localhost:${port}`,
      body: { files: [{ name: "x", size: 1 }] },
    });
    expect(fromLocalhost.status).toBe(421);
    const foreignOrigin = await request(base, "POST", "/api/v1/uploads", {
      headers: { origin: `http://localhost:${port}` },
      body: { files: [{ name: "x", size: 1 }] },
    });
    expect(foreignOrigin.status).toBe(403);
  });

  it("sends the entries again to services restarted after a crash", async () => {
    const lan = `http://192.168.77.5:${port}`;
    const at = d.statuses.length;
    const infosAt = d.infos.length;
    process.kill(d.host.pid!, "SIGKILL");
    const again = await d.waitStatus(isReady, 20_000, at);
    // The new process starts with the arguments' entries, then hears the kept ones.
    expect(again.info.parcel?.entries).not.toContain(lan);
    const info = await d.waitFor(() =>
      d.infos.slice(infosAt).find((i) => i.state === "ready" && i.parcel?.entries.includes(lan)),
    );
    // Entries are origins with their port: the kept one still names the first port (the app
    // uses fixed ports; only this test listens on any free one).
    const policy = await request(info.parcel!.url, "GET", "/api/v1/policy", {
      host: `192.168.77.5:${port}`,
    });
    expect(policy.status).toBe(200);
    expect((policy.json as { access_urls: string[] }).access_urls).toContain(lan);
  });
});

describe("the utility-process path (process.parentPort)", () => {
  it("starts, answers and stops cleanly when messages travel only through parentPort", async () => {
    let out = "";
    const inner = forkNode({
      execArgv: ["--import", "tsx"],
      env: { ...process.env, GATEHOUSE_ADMIN_PASSWORD: "" },
      output: (t) => (out += t),
    });
    const children: HostChild[] = [];
    // The host's side of the fake port: everything goes inside `{ viaPort }`.
    const fork: ForkFunction = (_entry, args) => {
      const child = inner("test/fixtures/desktop-parent-port.ts", args);
      children.push(child);
      return {
        get pid() {
          return child.pid;
        },
        postMessage: (m) => child.postMessage({ viaPort: m } as unknown as HostMessage),
        onMessage: (l) =>
          child.onMessage((raw) => {
            if (typeof raw === "object" && raw !== null && "viaPort" in raw)
              l((raw as { viaPort: unknown }).viaPort);
          }),
        onExit: (l) => child.onExit(l),
        kill: () => child.kill(),
      };
    };
    const dataDir = tempDir();
    const lines: string[] = [];
    const host = new ServiceHost({
      fork,
      entry: "unused",
      args: serviceArgs(dataDir, ["--parcel-only"]),
      dataDir,
      log: (l) => lines.push(l),
    });
    const statuses: HostStatus[] = [];
    host.on("status", (s) => statuses.push(s));
    host.start();
    for (let i = 0; i < 1000 && !statuses.some(isReady); i++)
      await new Promise((r) => setTimeout(r, 20));
    const ready = statuses.find(isReady);
    expect(ready, `${lines.join("\n")}\n${out}`).toBeDefined();
    expect(ready!.info.parcel?.generatedAdminPassword).toMatch(/^[\w-]{16}$/);
    expect(ready!.info.proxy).toBeNull();

    const lan = `http://10.1.2.3:${new URL(ready!.info.parcel!.url).port}`;
    host.setEntries([lan]);
    for (let i = 0; i < 250 && !host.info.parcel?.entries.includes(lan); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(host.info.parcel?.entries).toContain(lan);

    const t0 = performance.now();
    await host.stop();
    const ms = performance.now() - t0;
    console.log(`desktop host (parentPort): stop took ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(2000);
    expect(lines.join("\n")).not.toMatch(/killing/);
    expect(() => process.kill(children[0].pid!, 0)).toThrow();
  });
});
