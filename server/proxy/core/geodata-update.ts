import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { stringify } from "yaml";
import type { Clock } from "../../clock.js";
import { DomainError } from "../../domain-errors.js";
import { checkConfig } from "./check.js";
import { writeAtomic } from "./files.js";
import { streamToFile } from "./stream-to-file.js";
import { BodyTooLarge, discardBody, readLimited } from "../system/limited-body.js";
import { findGeodata, PREVIOUS_DIR, recordGeodata } from "./geodata.js";
import { MINUTE_MS } from "../../contract/time-units.js";

/** Deadline of one file's download, and the largest file accepted. */
export const GEODATA_TIMEOUT_MS = MINUTE_MS;
export const GEODATA_MAX_BYTES = 128 * 1024 * 1024;
/** Where a check of a staged set would download from: nowhere (the discard port). */
const NO_DOWNLOAD = "http://127.0.0.1:9/gatehouse-never-downloads";

export interface GeodataUpdateOptions {
  homeDir: string;
  /** `--geodata-url`: files are `<base>/<name>`, checksums `<base>/<name>.sha256sum`. */
  baseURL: string;
  /** The files the rules need. */
  needed: readonly string[];
  /** The GEOSITE/GEOIP rule lines the core's `-t` checks the new set with. */
  geoRules: readonly string[];
  /** The core executable; without one the set is checked by its checksums only. */
  coreBin: string | null;
  clock: Clock;
  timeoutMs?: number;
  maxBytes?: number;
}

const unreachable = (name: string, cause?: unknown) =>
  new DomainError(
    "upstream",
    "geodata.unreachable",
    `The geodata server could not be reached for ${name}`,
    {
      params: { file: name },
      cause,
    },
  );

/** Streams `url` into `path`, hashing as it goes; answers the SHA-256. */
async function download(
  url: string,
  path: string,
  name: string,
  timeoutMs: number,
  maxBytes: number,
): Promise<string> {
  let res: Response;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    res = await fetch(url, { signal, redirect: "follow" });
  } catch (err) {
    throw unreachable(name, err);
  }
  if (res.status !== 200 || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    throw new DomainError(
      "upstream",
      "geodata.http_status",
      `The geodata server answered ${res.status} for ${name}`,
      { params: { file: name, status: res.status } },
    );
  }
  const hash = createHash("sha256");
  let size = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) return done(new Error("too large"));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await streamToFile(
      [Readable.fromWeb(res.body as import("node:stream/web").ReadableStream), count],
      path,
      0o600,
    );
  } catch (err) {
    if (size > maxBytes)
      throw new DomainError("invalid", "geodata.too_large", `${name} is larger than allowed`, {
        params: { file: name },
        cause: err,
      });
    throw unreachable(name, err);
  }
  return hash.digest("hex");
}

/** A checksum file is a line or a few; one larger than this is something else. */
export const CHECKSUM_FILE_LIMIT = 64 * 1024;

/** The published checksum: the first 64-hex word of `<name>.sha256sum`. */
async function publishedSum(url: string, name: string, timeoutMs: number): Promise<string> {
  let text = "";
  let status: number;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: "follow" });
    status = res.status;
    if (status !== 200) await discardBody(res);
    else text = (await readLimited(res, CHECKSUM_FILE_LIMIT)).toString("utf8");
  } catch (err) {
    if (err instanceof BodyTooLarge)
      throw new DomainError(
        "invalid",
        "geodata.too_large",
        `${name}.sha256sum is larger than ${CHECKSUM_FILE_LIMIT / 1024} KiB, so it is not a checksum file`,
        { params: { file: `${name}.sha256sum` }, cause: err },
      );
    throw unreachable(name, err);
  }
  if (status !== 200)
    throw new DomainError(
      "upstream",
      "geodata.http_status",
      `The geodata server answered ${status} for ${name}.sha256sum`,
      { params: { file: `${name}.sha256sum`, status } },
    );
  const m = /^\s*([0-9a-fA-F]{64})\b/.exec(text);
  if (!m)
    throw new DomainError(
      "invalid",
      "geodata.checksum",
      `${name} has no readable published checksum`,
      {
        params: { file: name },
      },
    );
  return m[1].toLowerCase();
}

/** Downloads each needed file into staging and checks it against its published checksum. */
async function downloadChecked(
  opts: GeodataUpdateOptions,
  staging: string,
): Promise<Array<{ name: string; sha256: string }>> {
  const timeoutMs = opts.timeoutMs ?? GEODATA_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? GEODATA_MAX_BYTES;
  const files: Array<{ name: string; sha256: string }> = [];
  for (const name of opts.needed) {
    const expected = await publishedSum(`${opts.baseURL}/${name}.sha256sum`, name, timeoutMs);
    const actual = await download(
      `${opts.baseURL}/${name}`,
      join(staging, name),
      name,
      timeoutMs,
      maxBytes,
    );
    if (actual !== expected)
      throw new DomainError(
        "invalid",
        "geodata.checksum",
        `${name} does not match its published checksum`,
        { params: { file: name } },
      );
    files.push({ name, sha256: actual });
  }
  return files;
}

/** Has the core (`-t`) load the staged set with the rules that read it; throws if refused. */
async function coreAccepts(
  coreBin: string,
  geoRules: readonly string[],
  staging: string,
): Promise<void> {
  // The staging folder is the core's home for the check: the new files, and a
  // configuration holding only the rules that read them.
  const config = join(staging, "config.yaml");
  writeAtomic(
    config,
    stringify({
      "mixed-port": 0,
      mode: "rule",
      "geo-auto-update": false,
      "geodata-mode": false,
      "geox-url": {
        geoip: NO_DOWNLOAD,
        geosite: NO_DOWNLOAD,
        mmdb: NO_DOWNLOAD,
        asn: NO_DOWNLOAD,
      },
      rules: [...geoRules, "MATCH,DIRECT"],
    }),
  );
  const result = await checkConfig(coreBin, staging, config);
  if (!result.ok)
    throw new DomainError(
      "invalid",
      "geodata.rejected",
      `The core refused the new geodata: ${result.message}`,
      { params: { detail: result.message } },
    );
}

/** Moves the staged files into the core's home, keeping the set it replaces aside. */
function installSet(
  homeDir: string,
  staging: string,
  previous: string,
  files: Array<{ name: string; sha256: string }>,
): void {
  // The set in force is copied aside first, then each new file renamed over its old one;
  // a rename that fails puts the ones already moved back.
  mkdirSync(previous, { mode: 0o700 });
  const kept: string[] = [];
  for (const { name } of files) {
    const current = findGeodata(homeDir, name);
    if (current) {
      copyFileSync(current, join(previous, name));
      kept.push(name);
    }
  }
  const moved: string[] = [];
  try {
    for (const { name } of files) {
      renameSync(join(staging, name), join(homeDir, name));
      moved.push(name);
    }
  } catch (err) {
    for (const name of moved) {
      if (kept.includes(name)) copyFileSync(join(previous, name), join(homeDir, name));
      else rmSync(join(homeDir, name), { force: true });
    }
    throw err;
  }
  if (kept.length > 0) {
    rmSync(join(homeDir, PREVIOUS_DIR), { recursive: true, force: true });
    renameSync(previous, join(homeDir, PREVIOUS_DIR));
  }
}

/**
 * Downloads the needed files into a staging folder, checks each against its published
 * checksum and the whole set with the core's `-t`, then puts it in the core's home, keeping
 * the set it replaces in `geodata.previous/`. Any failure leaves the current set untouched.
 */
export async function updateGeodata(
  opts: GeodataUpdateOptions,
): Promise<Array<{ name: string; sha256: string }>> {
  const tag = randomBytes(4).toString("hex");
  const staging = join(opts.homeDir, `geodata.staging-${tag}`);
  const previous = join(opts.homeDir, `geodata.previous-${tag}`);
  mkdirSync(staging, { recursive: true, mode: 0o700 });
  try {
    const files = await downloadChecked(opts, staging);
    if (opts.coreBin) await coreAccepts(opts.coreBin, opts.geoRules, staging);
    installSet(opts.homeDir, staging, previous, files);
    recordGeodata(
      opts.homeDir,
      files.map((f) => ({ ...f, source: "download" as const })),
      opts.clock.now(),
    );
    return files;
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(previous, { recursive: true, force: true });
  }
}
