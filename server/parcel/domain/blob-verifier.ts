import { createHash } from "node:crypto";
import { open, type FileHandle } from "node:fs/promises";
import type { VerifyReason, VerifyStatus } from "../../contract/parcel-verify.js";
import { WEEK_S } from "../../contract/time-units.js";
import { faultPoint } from "../../fault-points.js";
import type { BlobCheck, ParcelDomain, VerifyPace } from "./ports.js";

export type { VerifyPace };
import { quarantineBlob, type BlobFault } from "./blob-integrity.js";
import { holdBlobs } from "./transfer.js";

export const DEFAULT_PACE: VerifyPace = { chunkBytes: 256 * 1024, rest: 1, busyRest: 9 };

/** A blob found wrong, as the last run recorded it. */
interface Found {
  sha256: string;
  reason: VerifyReason;
  files: string[];
  names: string[];
  /** How many parcels held those files when it was found (absent in runs kept before). */
  parcels?: number;
}

/** A run as kept in the database (`meta`), so the last one is known after a restart. */
interface Run {
  checked: number;
  total: number;
  started_at: number | null;
  finished_at: number | null;
  found: Found[];
}

const RUN_KEY = "verify.last";
const NEXT_KEY = "verify.next";
const EMPTY: Run = { checked: 0, total: 0, started_at: null, finished_at: null, found: [] };
const PAGE = 100;
/** The progress is saved this often (and at every blob found wrong). */
const SAVE_EVERY = 100;
const NAMES_SHOWN = 3;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const rest = (ms: number) =>
  ms < 1 ? turn() : new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The scrub: reads every stored blob again, one at a time, and checks that its size is its
 * record's and its content hashes to its name. A blob found otherwise is quarantined
 * (domain/blob-integrity.ts), listed with the files whose content it is, and the operator
 * hears of it. Runs when asked and weekly by itself; reads a modest piece at a time, giving the
 * event loop a turn after each and resting as long as the piece took (nine times as long while
 * a transfer runs), so it never takes more than half the disk and gives way to transfers.
 */
export class BlobVerifier implements BlobCheck {
  private run: Run | null = null;
  private running: Promise<void> | null = null;
  private stopping = false;

  constructor(
    private readonly ctx: () => ParcelDomain,
    private readonly pace: VerifyPace = DEFAULT_PACE,
  ) {}

  private last(): Run {
    this.run ??= this.ctx().repos.meta.json<Run>(RUN_KEY, EMPTY);
    return this.run;
  }

  private save(run: Run): void {
    this.ctx().repos.meta.setJson(RUN_KEY, run);
  }

  /** When the weekly check is due (set a week after the first start, then after each run). */
  nextAt(): number {
    const ctx = this.ctx();
    const kept = ctx.repos.meta.json<{ at: number | null }>(NEXT_KEY, { at: null });
    if (kept.at !== null) return kept.at;
    const at = ctx.now() + WEEK_S;
    ctx.repos.meta.setJson(NEXT_KEY, { at });
    return at;
  }

  status(): VerifyStatus {
    const run = this.last();
    const { blobs } = this.ctx().repos;
    return {
      running: this.running !== null,
      checked: run.checked,
      total: run.total,
      bad: run.found.map((f) => ({ sha256: f.sha256, files: f.files })),
      started_at: run.started_at,
      finished_at: run.finished_at,
      found: run.found.map((f) => {
        const row = blobs.blob(f.sha256);
        const outcome = !row
          ? "removed"
          : row.quarantined_at === null
            ? "stored_again"
            : "quarantined";
        const parcels = f.parcels ?? (f.files.length > 0 ? 1 : 0);
        return { sha256: f.sha256, reason: f.reason, names: f.names, parcels, outcome };
      }),
      next_at: this.nextAt(),
    };
  }

  /** Starts a run unless one is running; answers whether this call started it. */
  start(): boolean {
    if (this.running || this.stopping) return false;
    const ctx = this.ctx();
    const run: Run = { ...EMPTY, started_at: ctx.now(), found: [] };
    this.run = run;
    this.save(run);
    ctx.repos.meta.setJson(NEXT_KEY, { at: run.started_at! + WEEK_S });
    this.running = this.check(run)
      .catch((err: unknown) => {
        if (!this.stopping)
          ctx.log.error("verify.failed", "The check of the stored files stopped before its end", {
            err,
          });
      })
      .finally(() => {
        this.running = null;
      });
    return true;
  }

  /** Starts the weekly run when it is due; answers whether it did. */
  startIfDue(): boolean {
    if (this.running || this.ctx().now() < this.nextAt()) return false;
    return this.start();
  }

  /** Ends a running check at its next piece (the service is stopping); it stays unfinished. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  private async check(run: Run): Promise<void> {
    const ctx = this.ctx();
    const createdBy = run.started_at as number;
    run.total = ctx.repos.blobs.count(createdBy);
    this.save(run);
    const buffer = Buffer.allocUnsafe(this.pace.chunkBytes);
    let after = "";
    for (;;) {
      const page = ctx.repos.blobs.page(after, createdBy, PAGE);
      if (page.length === 0) break;
      for (const blob of page) {
        after = blob.sha256;
        if (this.stopping) return;
        const fault = await this.checkOne(blob.sha256, blob.size, buffer);
        run.checked++;
        if (fault) {
          const files = ctx.repos.blobs.files(blob.sha256);
          run.found.push({
            sha256: blob.sha256,
            reason: fault.kind,
            files: files.map((f) => f.id),
            names: files.slice(0, NAMES_SHOWN).map((f) => f.name),
            parcels: new Set(files.map((f) => f.parcel_id)).size,
          });
          // Saved before the quarantine, so a crash in it still leaves the finding behind.
          this.save(run);
          await quarantineBlob(ctx, blob.sha256, fault);
        } else if (run.checked % SAVE_EVERY === 0) this.save(run);
        await faultPoint("parcel.scrub-mid");
      }
    }
    if (this.stopping) return;
    run.finished_at = ctx.now();
    this.save(run);
  }

  /**
   * Reads one blob again; answers what is wrong with it, or null when it is what its name says
   * (or went away meanwhile: reclaimed, or quarantined by a download).
   */
  private async checkOne(sha256: string, size: number, buffer: Buffer): Promise<BlobFault | null> {
    const ctx = this.ctx();
    const gone = () => ctx.repos.blobs.blob(sha256)?.quarantined_at !== null;
    // Held like a download, so cleanup does not delete it while it is read.
    holdBlobs(ctx, [sha256], 1);
    let handle: FileHandle | null = null;
    try {
      try {
        handle = await open(ctx.storage.pathOf(sha256), "r");
      } catch (err) {
        if (gone()) return null;
        return (err as NodeJS.ErrnoException).code === "ENOENT"
          ? { kind: "missing" }
          : { kind: "unreadable" };
      }
      const found = (await handle.stat()).size;
      if (found !== size) return { kind: "size", found, expected: size };
      const hash = createHash("sha256");
      for (let at = 0; at < size;) {
        if (this.stopping) return null;
        const began = performance.now();
        let n: number;
        try {
          n = (await handle.read(buffer, 0, Math.min(buffer.length, size - at), at)).bytesRead;
        } catch {
          return { kind: "unreadable" };
        }
        if (n === 0) return { kind: "size", found: at, expected: size };
        hash.update(buffer.subarray(0, n));
        at += n;
        const busy = ctx.activity.uploadsActive + ctx.activity.downloadsActive > 0;
        const took = performance.now() - began;
        await rest(
          Math.max(this.pace.minRestMs ?? 0, took * (busy ? this.pace.busyRest : this.pace.rest)),
        );
      }
      if (hash.digest("hex") === sha256) return null;
      return gone() ? null : { kind: "content" };
    } finally {
      await handle?.close().catch(() => undefined);
      holdBlobs(ctx, [sha256], -1);
    }
  }
}
