import { createHash, randomBytes } from "node:crypto";
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdtempSync,
  rmSync,
  statfsSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { chromium, type Request } from "@playwright/test";
import { formatSize, parseSize, refuseForSpace } from "./bench-args.js";
import { mbps, tableRow, verdict, type Measure } from "./bench-table.js";
import { printTable } from "./lib.js";
import { startRelay } from "../test/helpers/tcp-relay.js";
import { startGatehouse } from "./transfer-gatehouse.js";
import { buildRendererIfChanged } from "../scripts/build-renderer-if-changed.js";

/**
 * A large upload from the real send page in Chromium, cut part-way and finished: the file
 * (4 GiB by default) goes through a TCP relay in front of the service (started as
 * `npm run serve` starts it); once the page shows `--cut` percent the relay drops every
 * connection and refuses new ones for a few seconds (a Wi-Fi hand-over), then lets them
 * through again. The page must go on by itself from what the service had stored, not from the
 * start, and the stored file must be the source byte for byte.
 *
 * Usage: npm run bench:resume -- [--size 4GiB] [--cut 50] [--down-seconds 3]
 */

const { values } = parseArgs({
  options: {
    size: { type: "string", default: "4GiB" },
    cut: { type: "string", default: "50" },
    "down-seconds": { type: "string", default: "3" },
  },
});
const SIZE = parseSize(values.size);
const CUT = Number(values.cut);
const DOWN_MS = Number(values["down-seconds"]) * 1000;
const CHROMIUM = process.env.GATEHOUSE_CHROMIUM ?? "/usr/bin/chromium";

/**
 * Writes `size` bytes that never repeat at the MiB scale (a random block whose every MiB
 * starts with its own index), answering their sha256.
 */
async function writeSource(path: string, size: number): Promise<string> {
  const block = randomBytes(16 * 1024 * 1024);
  const hash = createHash("sha256");
  const out = createWriteStream(path);
  const MIB = 1024 * 1024;
  for (let at = 0; at < size; at += MIB) {
    const start = at % block.length;
    const piece = Buffer.from(block.subarray(start, start + Math.min(MIB, size - at)));
    piece.writeDoubleLE(at / MIB, 0);
    hash.update(piece);
    if (!out.write(piece)) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((res, rej) => out.end((err?: Error | null) => (err ? rej(err) : res())));
  return hash.digest("hex");
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }))
    hash.update(chunk as Buffer);
  return hash.digest("hex");
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-resume-"));
  const refusal = refuseForSpace(SIZE, statfsSync(dir).bavail * statfsSync(dir).bsize, dir);
  if (refusal) {
    console.error(refusal);
    process.exit(1);
  }
  await buildRendererIfChanged(resolve("."));
  const relay = await startRelay();
  const dataDir = join(dir, "data");
  const g = await startGatehouse(dataDir, undefined, ["--entry", relay.url]);
  relay.target = Number(new URL(g.origin).port);
  const browser = await chromium.launch({
    executablePath: existsSync(CHROMIUM) ? CHROMIUM : undefined,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  try {
    const source = join(dir, "holiday video.mp4");
    console.log(`browser resume benchmark: writing a ${formatSize(SIZE)} source file…`);
    const sourceSha = await writeSource(source, SIZE);

    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.addInitScript(() => localStorage.setItem("gatehouse.parcel.lang", "en"));
    const page = await context.newPage();
    const offsets: number[] = [];
    page.on("request", (req: Request) => {
      if (req.method() === "PATCH" && /\/api\/v1\/uploads\/[^/]+\/files\//.test(req.url()))
        offsets.push(Number(req.headers()["upload-offset"]));
    });
    const progress = (): Promise<number> =>
      page
        .locator(".upload-row [role=progressbar]")
        .first()
        .getAttribute("aria-valuenow")
        .then(Number);

    await page.goto(`${relay.url}/#/`);
    const chooser = page.waitForEvent("filechooser");
    await page.getByRole("button", { name: /^Choose files$/ }).click();
    await (await chooser).setFiles(source);
    const t0 = performance.now();
    await page.getByRole("button", { name: /^Upload/ }).click();
    while ((await progress()) < CUT) await page.waitForTimeout(100);
    const shownAtCut = await progress();
    const cutMs = performance.now() - t0;
    relay.down = true;
    relay.cut();
    console.log(`cut every connection at ${shownAtCut}% (${(cutMs / 1000).toFixed(1)} s)`);
    await page.waitForTimeout(DOWN_MS);
    relay.down = false;
    await page
      .getByRole("heading", { name: /Ready to pick up/ })
      .waitFor({ timeout: Math.max(120_000, SIZE / 20_000) });
    const totalMs = performance.now() - t0;
    await context.close();

    const resumedFrom = offsets.length > 1 ? offsets[offsets.length - 1] : 0;
    const stored = join(dataDir, "parcel", "blobs", sourceSha.slice(0, 2), sourceSha);
    const storedSha = existsSync(stored) ? await sha256Of(stored) : "(not stored)";
    const pct = (n: number): string => `${((n / SIZE) * 100).toFixed(1)}%`;
    const rows: Measure[] = [
      {
        measure: `resumed from (${formatSize(SIZE)}, cut at ${shownAtCut}% shown)`,
        value: (resumedFrom / SIZE) * 100,
        reference: shownAtCut,
        referenceName: "progress shown at the cut, %",
        unit: "%",
        target: { kind: "ratio-at-least", min: 0.9 },
      },
      {
        measure: "whole upload, cut and down time included",
        value: mbps(SIZE, totalMs),
        reference: mbps(SIZE * (CUT / 100), cutMs),
        referenceName: "same page before the cut",
        unit: "MB/s",
        target: { kind: "info" },
      },
    ];
    printTable("Resumed upload in Chromium", rows.map(tableRow));
    console.log(
      `PATCH offsets: ${offsets.map(pct).join(", ")}; stored sha256 ${storedSha === sourceSha ? "equals" : "DIFFERS from"} the source's`,
    );
    if (rows.some((m) => verdict(m) === "NO") || storedSha !== sourceSha || offsets[0] !== 0)
      process.exitCode = 1;
  } finally {
    await browser.close();
    await relay.close();
    await g.srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
