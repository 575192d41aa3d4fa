/**
 * Downloads the proxy core (mihomo) and its geodata for packaging, and refuses anything whose
 * SHA-256 differs from the pins in resources/core/manifest.json.
 *
 *   npx tsx scripts/fetch-core.ts --platform linux-x64 [--platform mac-arm64 ...] [--out DIR]
 *     writes DIR/<os>-<arch>/mihomo(.exe) per platform and DIR/shared/ (geodata, the core's
 *     licence and a notice of where its source is); DIR defaults to resources/core.
 *   npx tsx scripts/fetch-core.ts --pin-geodata
 *     for maintainers, on a machine with internet: pins the geodata to the current commit of
 *     its release branch and records the files' hashes in the manifest (review, then commit).
 *
 * Platform names are electron-builder's `${os}-${arch}` (linux, mac, win; x64, arm64).
 */
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, inflateRawSync } from "node:zlib";
import { z } from "zod";

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const pin = sha256.nullable();

const manifestSchema = z.object({
  mihomo: z.object({
    version: z.string().regex(/^v\d+\.\d+\.\d+$/),
    license: z.string(),
    source: z.url(),
    download: z.url(),
    licenseUrl: z.url(),
    assets: z.record(
      z.string().regex(/^(linux|mac|win)-(x64|arm64)$/),
      z.object({ name: z.string().regex(/^mihomo-[\w.-]+\.(gz|zip)$/), sha256: pin }),
    ),
  }),
  geodata: z.object({
    repository: z.string().regex(/^[\w.-]+\/[\w.-]+$/),
    branch: z.string(),
    commit: z
      .string()
      .regex(/^[0-9a-f]{40}$/)
      .nullable(),
    /** `{commit}` is replaced by the pinned commit. */
    download: z.string(),
    files: z.array(z.object({ name: z.string().regex(/^[\w.-]+$/), sha256: pin })).min(1),
  }),
});
export type CoreManifest = z.infer<typeof manifestSchema>;

export const MANIFEST_PATH = join("resources", "core", "manifest.json");
/** Largest download accepted (the core is about 20 MB, the geodata less). */
const MAX_BYTES = 128 * 1024 * 1024;

export function readManifest(path = MANIFEST_PATH): CoreManifest {
  return manifestSchema.parse(JSON.parse(readFileSync(path, "utf8")));
}

export type Fetch = (
  url: string,
  init?: { signal?: AbortSignal; headers?: Record<string, string> },
) => Promise<Response>;

/** The body of `url` (redirects followed), refusing anything but 200 and oversized answers. */
export async function download(
  url: string,
  fetchImpl: Fetch = fetch,
  headers: Record<string, string> = {},
): Promise<Buffer> {
  const res = await fetchImpl(url, { signal: AbortSignal.timeout(120_000), headers });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  const declared = Number(res.headers.get("content-length") ?? 0);
  if (declared > MAX_BYTES) throw new Error(`${url} is larger than ${MAX_BYTES} bytes`);
  const body = Buffer.from(await res.arrayBuffer());
  if (body.length > MAX_BYTES) throw new Error(`${url} is larger than ${MAX_BYTES} bytes`);
  return body;
}

/** Throws unless `data` has the pinned hash; an unpinned file is refused too. */
export function verify(name: string, data: Buffer, expected: string | null): void {
  if (expected === null)
    throw new Error(
      `${name} has no pinned sha256 in ${MANIFEST_PATH}; pin it first (see scripts/fetch-core.ts)`,
    );
  const actual = createHash("sha256").update(data).digest("hex");
  if (actual !== expected)
    throw new Error(`${name}: sha256 ${actual} differs from the pinned ${expected}`);
}

/** The one `.exe` of a ZIP archive (what mihomo's Windows release holds). */
export function unzipExe(zip: Buffer): Buffer {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error("not a ZIP archive");
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error("damaged ZIP directory");
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    at += 46 + skip;
    if (!/\.exe$/i.test(name)) continue;
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error("damaged ZIP entry");
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + size);
    if (method === 0) return Buffer.from(data);
    if (method === 8) return inflateRawSync(data);
    throw new Error(`ZIP entry ${name} uses unsupported compression ${method}`);
  }
  throw new Error("the ZIP archive holds no .exe");
}

/** Writes through a temporary file, so a failure never leaves half a file. */
function writeAtomic(path: string, data: Buffer | string, mode: number): void {
  const temp = `${path}.part-${process.pid}`;
  try {
    writeFileSync(temp, data, { mode });
    chmodSync(temp, mode);
    renameSync(temp, path);
  } finally {
    rmSync(temp, { force: true });
  }
}

export interface FetchOptions {
  manifest: CoreManifest;
  platforms: string[];
  outDir: string;
  fetchImpl?: Fetch;
}

/** Fetches and verifies the core of each platform and the shared files. Returns the paths written. */
export async function fetchCore(options: FetchOptions): Promise<string[]> {
  const { manifest, outDir, fetchImpl = fetch } = options;
  const { mihomo, geodata } = manifest;
  const written: string[] = [];
  for (const platform of options.platforms) {
    const asset = mihomo.assets[platform];
    if (!asset) throw new Error(`no mihomo asset pinned for ${platform} in ${MANIFEST_PATH}`);
    const archive = await download(`${mihomo.download}/${asset.name}`, fetchImpl);
    verify(asset.name, archive, asset.sha256);
    const binary = asset.name.endsWith(".zip") ? unzipExe(archive) : gunzipSync(archive);
    const dir = join(outDir, platform);
    mkdirSync(dir, { recursive: true });
    const target = join(dir, platform.startsWith("win-") ? "mihomo.exe" : "mihomo");
    writeAtomic(target, binary, 0o755);
    written.push(target);
  }

  const shared = join(outDir, "shared");
  mkdirSync(shared, { recursive: true });
  if (geodata.commit === null)
    throw new Error(
      `the geodata is not pinned to a commit in ${MANIFEST_PATH}; run scripts/fetch-core.ts --pin-geodata`,
    );
  const base = geodata.download.replace("{commit}", geodata.commit);
  for (const file of geodata.files) {
    const data = await download(`${base}/${file.name}`, fetchImpl);
    verify(file.name, data, file.sha256);
    writeAtomic(join(shared, file.name), data, 0o644);
    written.push(join(shared, file.name));
  }

  // The core is GPL-3.0: its licence and where its source is travel with it.
  const license = (await download(mihomo.licenseUrl, fetchImpl)).toString("utf8");
  if (!/GNU GENERAL PUBLIC LICENSE/.test(license) || !/Version 3/.test(license))
    throw new Error(`${mihomo.licenseUrl} is not the GPL-3.0 text`);
  writeAtomic(join(shared, "LICENSE-mihomo.txt"), license, 0o644);
  const notice = `The proxy core in this folder is mihomo ${mihomo.version}, unmodified, licensed under ${mihomo.license} (LICENSE-mihomo.txt).\nIts source code: ${mihomo.source}\nGeodata: https://github.com/${geodata.repository} at commit ${geodata.commit}.\n`;
  writeAtomic(join(shared, "NOTICE-mihomo.txt"), notice, 0o644);
  written.push(join(shared, "LICENSE-mihomo.txt"), join(shared, "NOTICE-mihomo.txt"));
  return written;
}

/**
 * The manifest with the geodata pinned to the release branch's current commit and hashes.
 * Each file must match the `<name>.sha256sum` its publisher keeps beside it at that commit,
 * so a pin made at release time is checked too, never taken on trust.
 */
export async function pinGeodata(
  manifest: CoreManifest,
  fetchImpl: Fetch = fetch,
  api = "https://api.github.com",
  token: string | undefined = process.env.GITHUB_TOKEN,
): Promise<CoreManifest> {
  const { geodata } = manifest;
  // With a token (the release workflow's GITHUB_TOKEN) GitHub's API allows 1000 requests an
  // hour per repository instead of 60 per address, which shared runners exhaust. Only the API
  // request carries it, never the file downloads.
  const apiHeaders: Record<string, string> = {
    accept: "application/vnd.github+json",
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  const info = JSON.parse(
    (
      await download(
        `${api}/repos/${geodata.repository}/commits/${geodata.branch}`,
        fetchImpl,
        apiHeaders,
      )
    ).toString("utf8"),
  ) as { sha?: unknown };
  const commit = z
    .string()
    .regex(/^[0-9a-f]{40}$/)
    .parse(info.sha);
  const base = geodata.download.replace("{commit}", commit);
  const files = [];
  for (const file of geodata.files) {
    const data = await download(`${base}/${file.name}`, fetchImpl);
    const actual = createHash("sha256").update(data).digest("hex");
    const published = (await download(`${base}/${file.name}.sha256sum`, fetchImpl))
      .toString("utf8")
      .trim()
      .split(/\s+/)[0]
      ?.toLowerCase();
    if (!published || !/^[0-9a-f]{64}$/.test(published))
      throw new Error(`${file.name}.sha256sum at ${commit} holds no SHA-256`);
    if (published !== actual)
      throw new Error(`${file.name}: sha256 ${actual} differs from its published ${published}`);
    files.push({ name: file.name, sha256: actual });
  }
  return { ...manifest, geodata: { ...geodata, commit, files } };
}

/** `linux-x64` style name of the machine running this. */
export function hostPlatform(): string {
  const os =
    process.platform === "win32" ? "win" : process.platform === "darwin" ? "mac" : process.platform;
  return `${os}-${process.arch}`;
}

async function main(argv: string[]): Promise<void> {
  const platforms: string[] = [];
  let outDir = join("resources", "core");
  let pinOnly = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--platform") platforms.push(argv[++i] ?? "");
    else if (argv[i] === "--out") outDir = argv[++i] ?? outDir;
    else if (argv[i] === "--pin-geodata") pinOnly = true;
    else throw new Error(`unknown option ${argv[i]}`);
  }
  const manifest = readManifest();
  if (pinOnly) {
    const pinned = await pinGeodata(manifest);
    writeFileSync(MANIFEST_PATH, `${JSON.stringify(pinned, null, 2)}\n`);
    console.log(
      `pinned the geodata to ${pinned.geodata.commit}; review and commit ${MANIFEST_PATH}`,
    );
    return;
  }
  const written = await fetchCore({
    manifest,
    platforms: platforms.length ? platforms : [hostPlatform()],
    outDir,
  });
  for (const path of written) console.log(`verified ${path}`);
}

if (process.argv[1]?.endsWith("fetch-core.ts"))
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error((err as Error).message);
    process.exit(1);
  });
