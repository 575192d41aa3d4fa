import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateRawSync, gzipSync } from "node:zlib";
import {
  fetchCore,
  pinGeodata,
  readManifest,
  unzipExe,
  type CoreManifest,
} from "../../scripts/fetch-core.js";

/**
 * The download-and-verify step of packaging, against a real HTTP server on loopback that
 * serves stand-ins for the release files (redirecting like GitHub's release downloads do).
 */

const hash = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");

/** A ZIP with one entry, deflated, as mihomo's Windows release is. */
function zipOf(name: string, content: Buffer): Buffer {
  const data = deflateRawSync(content);
  const nameBytes = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(content.length, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  central.writeUInt32LE(0, 42);
  const directoryAt = local.length + nameBytes.length + data.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + nameBytes.length, 12);
  end.writeUInt32LE(directoryAt, 16);
  return Buffer.concat([local, nameBytes, data, central, nameBytes, end]);
}

const CORE = Buffer.from("#!/bin/sh\necho 'Mihomo Meta v1.19.28 linux amd64'\n");
const WIN_CORE = Buffer.from("MZ fake windows core");
const GEOIP = Buffer.from("geoip metadb stand-in");
const GEOSITE = Buffer.from("geosite stand-in");
const LICENSE = "GNU GENERAL PUBLIC LICENSE\nVersion 3, 29 June 2007\n...";
const COMMIT = "0123456789abcdef0123456789abcdef01234567";

const files = new Map<string, Buffer>([
  ["/files/mihomo-linux-amd64-compatible-v1.19.28.gz", gzipSync(CORE)],
  [
    "/files/mihomo-windows-amd64-compatible-v1.19.28.zip",
    zipOf("mihomo-windows-amd64-compatible.exe", WIN_CORE),
  ],
  [`/raw/${COMMIT}/geoip.metadb`, GEOIP],
  [`/raw/${COMMIT}/geosite.dat`, GEOSITE],
  [`/raw/${COMMIT}/geoip.metadb.sha256sum`, Buffer.from(`${hash(GEOIP)}  geoip.metadb\n`)],
  [`/raw/${COMMIT}/geosite.dat.sha256sum`, Buffer.from(`${hash(GEOSITE)}  geosite.dat\n`)],
  ["/raw/LICENSE", Buffer.from(LICENSE)],
  [
    "/api/repos/MetaCubeX/meta-rules-dat/commits/release",
    Buffer.from(JSON.stringify({ sha: COMMIT })),
  ],
]);

let server: Server;
let base = "";
/** Every request the stand-in server saw, with its Authorization header. */
const asked: Array<{ url: string; authorization: string | null }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? "";
    asked.push({ url, authorization: req.headers.authorization ?? null });
    // Release downloads answer with a redirect to the storage host first.
    if (url.startsWith("/download/")) {
      res.writeHead(302, { location: `/files/${url.slice("/download/".length)}` }).end();
      return;
    }
    const body = files.get(url);
    if (!body) res.writeHead(404).end();
    else res.writeHead(200, { "content-length": body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function manifest(patch: (m: CoreManifest) => void = () => {}): CoreManifest {
  const m: CoreManifest = {
    mihomo: {
      version: "v1.19.28",
      license: "GPL-3.0",
      source: "https://github.com/MetaCubeX/mihomo/tree/v1.19.28",
      download: `${base}/download`,
      licenseUrl: `${base}/raw/LICENSE`,
      assets: {
        "linux-x64": {
          name: "mihomo-linux-amd64-compatible-v1.19.28.gz",
          sha256: hash(files.get("/files/mihomo-linux-amd64-compatible-v1.19.28.gz") ?? ""),
        },
        "win-x64": {
          name: "mihomo-windows-amd64-compatible-v1.19.28.zip",
          sha256: hash(files.get("/files/mihomo-windows-amd64-compatible-v1.19.28.zip") ?? ""),
        },
      },
    },
    geodata: {
      repository: "MetaCubeX/meta-rules-dat",
      branch: "release",
      commit: COMMIT,
      download: `${base}/raw/{commit}`,
      files: [
        { name: "geoip.metadb", sha256: hash(GEOIP) },
        { name: "geosite.dat", sha256: hash(GEOSITE) },
      ],
    },
  };
  patch(m);
  return m;
}

function out(): string {
  return mkdtempSync(join(tmpdir(), "gh-core-"));
}

describe("fetchCore", () => {
  it("writes each platform's verified core, executable, and the shared geodata and licence", async () => {
    const dir = out();
    await fetchCore({ manifest: manifest(), platforms: ["linux-x64", "win-x64"], outDir: dir });
    expect(readFileSync(join(dir, "linux-x64", "mihomo"))).toEqual(CORE);
    expect(statSync(join(dir, "linux-x64", "mihomo")).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(dir, "win-x64", "mihomo.exe"))).toEqual(WIN_CORE);
    expect(readdirSync(join(dir, "shared")).sort()).toEqual([
      "LICENSE-mihomo.txt",
      "NOTICE-mihomo.txt",
      "geoip.metadb",
      "geosite.dat",
    ]);
    expect(readFileSync(join(dir, "shared", "NOTICE-mihomo.txt"), "utf8")).toContain(
      "https://github.com/MetaCubeX/mihomo/tree/v1.19.28",
    );
  });

  it("refuses a core whose hash differs from the pin and leaves no file", async () => {
    const dir = out();
    const bad = manifest((m) => {
      m.mihomo.assets["linux-x64"].sha256 = "f".repeat(64);
    });
    await expect(
      fetchCore({ manifest: bad, platforms: ["linux-x64"], outDir: dir }),
    ).rejects.toThrow(
      /mihomo-linux-amd64-compatible-v1\.19\.28\.gz: sha256 [0-9a-f]{64} differs from the pinned f{64}/,
    );
    expect(existsSync(join(dir, "linux-x64", "mihomo"))).toBe(false);
  });

  it("refuses geodata that is not pinned, naming what to run", async () => {
    const unpinned = manifest((m) => {
      m.geodata.commit = null;
    });
    await expect(fetchCore({ manifest: unpinned, platforms: [], outDir: out() })).rejects.toThrow(
      /--pin-geodata/,
    );
    const noHash = manifest((m) => {
      m.geodata.files[1].sha256 = null;
    });
    await expect(fetchCore({ manifest: noHash, platforms: [], outDir: out() })).rejects.toThrow(
      /geosite\.dat has no pinned sha256/,
    );
  });

  it("refuses a platform the manifest does not pin and a download that is not there", async () => {
    await expect(
      fetchCore({ manifest: manifest(), platforms: ["mac-arm64"], outDir: out() }),
    ).rejects.toThrow(/no mihomo asset pinned for mac-arm64/);
    const missing = manifest((m) => {
      m.mihomo.assets["linux-x64"].name = "mihomo-linux-amd64-v9.9.9.gz";
    });
    await expect(
      fetchCore({ manifest: missing, platforms: ["linux-x64"], outDir: out() }),
    ).rejects.toThrow(/answered 404/);
  });

  it("refuses a licence that is not the GPL text", async () => {
    const wrong = manifest((m) => {
      m.mihomo.licenseUrl = `${base}/raw/${COMMIT}/geosite.dat`;
    });
    await expect(fetchCore({ manifest: wrong, platforms: [], outDir: out() })).rejects.toThrow(
      /is not the GPL-3\.0 text/,
    );
  });
});

describe("pinGeodata", () => {
  it("pins the release branch's commit and the hashes of its files", async () => {
    asked.length = 0;
    const pinned = await pinGeodata(
      manifest((m) => {
        m.geodata.commit = null;
        m.geodata.files = m.geodata.files.map((f) => ({ ...f, sha256: null }));
      }),
      fetch,
      `${base}/api`,
      "workflow-token",
    );
    // The token goes to the API only, never with a file download.
    expect(asked.filter((a) => a.authorization !== null)).toEqual([
      { url: expect.stringMatching(/^\/api\/repos\//), authorization: "Bearer workflow-token" },
    ]);
    expect(asked.length).toBeGreaterThan(1);
    expect(pinned.geodata.commit).toBe(COMMIT);
    expect(pinned.geodata.files).toEqual([
      { name: "geoip.metadb", sha256: hash(GEOIP) },
      { name: "geosite.dat", sha256: hash(GEOSITE) },
    ]);
  });

  it("refuses a file that does not match its published .sha256sum, or has none", async () => {
    const unpinned = manifest((m) => {
      m.geodata.commit = null;
      m.geodata.files = m.geodata.files.map((f) => ({ ...f, sha256: null }));
    });
    const sums = `/raw/${COMMIT}/geosite.dat.sha256sum`;
    const kept = files.get(sums) ?? Buffer.alloc(0);
    try {
      files.set(sums, Buffer.from(`${hash("something else")}  geosite.dat\n`));
      await expect(pinGeodata(unpinned, fetch, `${base}/api`)).rejects.toThrow(
        /geosite\.dat: sha256 [0-9a-f]{64} differs from its published/,
      );
      files.delete(sums);
      await expect(pinGeodata(unpinned, fetch, `${base}/api`)).rejects.toThrow(/404|not found/i);
    } finally {
      files.set(sums, kept);
    }
  });
});

describe("unzipExe", () => {
  it("takes the .exe out of an archive and refuses one without", () => {
    expect(unzipExe(zipOf("a/mihomo.exe", WIN_CORE))).toEqual(WIN_CORE);
    expect(() => unzipExe(zipOf("README.md", WIN_CORE))).toThrow(/holds no \.exe/);
    expect(() => unzipExe(Buffer.from("not a zip"))).toThrow(/not a ZIP/);
  });
});

describe("the committed manifest", () => {
  it("reads, with every core pinned to a hash", () => {
    const m = readManifest();
    for (const [platform, asset] of Object.entries(m.mihomo.assets))
      expect(asset.sha256, platform).toMatch(/^[0-9a-f]{64}$/);
    expect(m.mihomo.download).toBe(
      `https://github.com/MetaCubeX/mihomo/releases/download/${m.mihomo.version}`,
    );
  });
});
