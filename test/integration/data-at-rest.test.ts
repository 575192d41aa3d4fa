import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadOrCreateCertificate } from "../../server/tls.js";
import { startParcel, type Harness } from "../helpers/parcel-harness.js";
import { createUpload, putBytes } from "../helpers/parcel-uploads.js";
import { FakeFeeds, startProxy, type ProxyHarness } from "./proxy-api-harness.js";
import { serviceEntryArgs } from "../helpers/service-entry.js";

const mode = (p: string) => statSync(p).mode & 0o777;

/** Every directory and file below `root` (itself included) with its mode. */
function modes(root: string): Map<string, number> {
  const out = new Map<string, number>([[".", mode(root)]]);
  const walk = (dir: string, rel: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      out.set(r, mode(join(dir, e.name)));
      if (e.isDirectory()) walk(join(dir, e.name), r);
    }
  };
  walk(root, "");
  return out;
}

/** The paths below `root` whose mode is not 0700 (directories) or 0600 (files). */
function loose(root: string): string[] {
  return [...modes(root)]
    .filter(([rel, m]) => m !== (statSync(join(root, rel)).isDirectory() ? 0o700 : 0o600))
    .map(([rel, m]) => `${rel} ${m.toString(8)}`);
}

function looseFile(path: string): void {
  writeFileSync(path, "");
  chmodSync(path, 0o644);
}

let base = "";
let umask = 0;
let parcel: Harness | null = null;
let proxy: ProxyHarness | null = null;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "gh-at-rest-"));
  // The usual 022 umask: the services must not depend on a stricter one.
  umask = process.umask(0o022);
});
afterEach(async () => {
  await parcel?.close();
  await proxy?.close(false);
  parcel = null;
  proxy = null;
  process.umask(umask);
  rmSync(base, { recursive: true, force: true });
});

describe.skipIf(process.platform === "win32")("data at rest: parcel service", () => {
  it("creates a fresh data dir 0700 with parcel.db and its WAL files 0600", async () => {
    const dataDir = join(base, "fresh");
    parcel = await startParcel({ dataDir });
    const dir = join(dataDir, "parcel");
    expect(mode(dataDir)).toBe(0o700);
    for (const f of ["parcel.db", "parcel.db-wal", "parcel.db-shm"]) {
      expect(existsSync(join(dir, f)), f).toBe(true);
    }
    expect(loose(dir)).toEqual([]);
  });

  it("tightens a data dir left at 0755/0644 by an older version, blobs in the background", async () => {
    const dataDir = join(base, "old");
    // What an older version left behind after running with the usual umask.
    parcel = await startParcel({ dataDir });
    const up = await createUpload(parcel, { "a.txt": 5, "b.txt": 7 });
    expect((await putBytes(parcel, up, 0, Buffer.from("hello"))).status).toBe(200);
    expect((await putBytes(parcel, up, 1, Buffer.from("goodbye"))).status).toBe(200);
    await parcel.close();
    parcel = null;
    const dir = join(dataDir, "parcel");
    for (const [rel] of modes(dir)) {
      const p = join(dir, rel);
      chmodSync(p, statSync(p).isDirectory() ? 0o755 : 0o644);
    }
    looseFile(join(dir, "parcel.db-wal"));
    looseFile(join(dir, "parcel.db-shm"));
    expect(loose(dir).length).toBeGreaterThan(6);

    parcel = await startParcel({ dataDir });
    // Directories and the database are private before the service answers anything.
    const blobDir = join(dir, "blobs");
    expect(loose(dir).filter((l) => !/^blobs\/..\/[0-9a-f]{64} /.test(l))).toEqual([]);
    const result = await parcel.service.ctx.storage.modesTightened;
    expect(result).toMatchObject({ changed: 2, failed: 0 });
    expect(loose(dir)).toEqual([]);
    expect(readdirSync(blobDir).length).toBe(2);
  });

  it("stores an uploaded blob 0600 in a 0700 directory", async () => {
    parcel = await startParcel({ dataDir: join(base, "upload") });
    const up = await createUpload(parcel, { "c.bin": 3 });
    expect((await putBytes(parcel, up, 0, Buffer.from([1, 2, 3]))).status).toBe(200);
    const blobDir = parcel.service.ctx.storage.blobDir;
    const [sub] = readdirSync(blobDir);
    const [blob] = readdirSync(join(blobDir, sub));
    expect(blob).toMatch(/^[0-9a-f]{64}$/);
    expect(mode(join(blobDir, sub))).toBe(0o700);
    expect(mode(join(blobDir, sub, blob))).toBe(0o600);
  });
});

describe.skipIf(process.platform === "win32")("data at rest: proxy service", () => {
  const FEED = "http://feeds.test/a";
  const NODES = JSON.stringify([
    { name: "n1", type: "ss", server: "10.0.0.1", port: 1, password: "secret" },
  ]);

  async function startWithFeed(dataDir: string): Promise<ProxyHarness> {
    const feeds = new FakeFeeds();
    feeds.responses.set(FEED, NODES);
    const h = await startProxy({ dataDir, feeds });
    return h;
  }

  it("keeps everything it writes private: database, setup token, snapshots, core home", async () => {
    const dataDir = join(base, "fresh");
    proxy = await startWithFeed(dataDir);
    const dir = join(dataDir, "proxy");
    expect(mode(dataDir)).toBe(0o700);
    expect(existsSync(join(dir, "setup-token"))).toBe(true);
    await proxy.setup();
    const created = await proxy.request("POST", "/subscriptions", {
      body: { name: "A", url: FEED },
    });
    const id = created.json.id as string;
    expect((await proxy.request("POST", `/subscriptions/${id}/refresh`)).status).toBe(200);
    for (const f of [
      "proxy.db",
      "proxy.db-wal",
      "proxy.db-shm",
      `snapshots/${id}.json`,
      "core/secret",
      "core/config.yaml",
      `core/providers/${id}.yaml`,
    ]) {
      expect(existsSync(join(dir, f)), f).toBe(true);
    }
    expect(loose(dir)).toEqual([]);
  });

  it("tightens a proxy dir left at 0755/0644 by an older version on the next start", async () => {
    const dataDir = join(base, "old");
    const dir = join(dataDir, "proxy");
    for (const d of [dir, join(dir, "snapshots"), join(dir, "core", "providers")]) {
      mkdirSync(d, { recursive: true, mode: 0o755 });
      chmodSync(d, 0o755);
    }
    chmodSync(join(dir, "core"), 0o755);
    for (const f of [
      "proxy.db",
      "proxy.db-wal",
      "proxy.db-shm",
      "setup-token",
      "snapshots/0123456789abcdef01234567.json",
      "core/config.yaml",
      "core/providers/0123456789abcdef01234567.yaml",
      "core/cache.db",
    ]) {
      looseFile(join(dir, f));
    }
    writeFileSync(join(dir, "core", "secret"), `${"ab".repeat(32)}\n`, { mode: 0o644 });
    expect(loose(dir).length).toBe(13);
    proxy = await startWithFeed(dataDir);
    expect(loose(dir)).toEqual([]);
  });
});

describe.skipIf(process.platform === "win32")("data at rest: generated certificate", () => {
  it("writes the certificate, key and host list 0600 in a 0700 directory, and re-tightens them", async () => {
    const dataDir = join(base, "tls-home");
    const first = await loadOrCreateCertificate(dataDir, ["127.0.0.1", "localhost"], {
      cert: null,
      key: null,
    });
    const dir = join(dataDir, "tls");
    expect(readdirSync(dir).sort()).toEqual(["cert.pem", "hosts.json", "key.pem"]);
    expect(loose(dir)).toEqual([]);
    chmodSync(dir, 0o755);
    for (const f of readdirSync(dir)) chmodSync(join(dir, f), 0o644);
    const again = await loadOrCreateCertificate(dataDir, ["localhost"], { cert: null, key: null });
    expect(again.key).toBe(first.key); // reused, not regenerated
    expect(loose(dir)).toEqual([]);
  });
});

describe.skipIf(process.platform === "win32")("data at rest: headless command", () => {
  it("creates the data dir 0700 and keeps everything below it private", async () => {
    const dataDir = join(base, "cli", "data");
    const args = ["--parcel-only", "--host", "127.0.0.1", "--parcel-port", "0"];
    args.push("--parcel-https-port", "0", "--data-dir", dataDir);
    const proc = spawn(process.execPath, [...serviceEntryArgs(), ...args], {
      env: { ...process.env, GATEHOUSE_ADMIN_PASSWORD: "admin-password-1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    proc.stdout.on("data", (b: Buffer) => (out += b.toString()));
    proc.stderr.on("data", (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
    try {
      for (let i = 0; i < 300 && !/listening on https:/.test(out); i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(out).toMatch(/parcel service listening on https:/);
      expect(mode(join(base, "cli"))).toBe(0o700);
      expect(loose(dataDir)).toEqual([]);
      expect(readdirSync(dataDir).sort()).toEqual(["parcel", "tls"]);
    } finally {
      proc.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});
