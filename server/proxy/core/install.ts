import { randomBytes } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  linkSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { join } from "node:path";
import { DomainError } from "../../domain-errors.js";
import type { ServiceLog } from "../../log.js";
import type { ProxyProblemCode } from "../../problem-codes.js";
import type { CoreControl } from "../context.js";
import type { CoreInput } from "../types.js";
import type { CheckResult } from "./check.js";
import { lastLines, versionIn, versionOutput } from "./check.js";
import { errorMessage } from "./errors.js";
import { downloadAsset, fetchReleaseDocument, tooLarge, type Release } from "./install-fetch.js";
import { assetNames, type CoreLocator } from "./install-location.js";
import { gunzipTo, unzipTo } from "./install-unpack.js";
import { MINUTE_MS } from "../../contract/time-units.js";
import type { z } from "zod";
import type { InstallProgressSchema } from "../../contract/proxy-system.js";

/** What the console shows while an install runs. */
export type InstallProgress = z.output<typeof InstallProgressSchema>;

/** A core layer that can check the current configuration with another executable. */
interface CandidateCheck {
  checkWith(bin: string, input: CoreInput): Promise<CheckResult>;
}

export interface InstallerOptions {
  locator: CoreLocator;
  releaseURL: string;
  core: CoreControl;
  coreInput: () => CoreInput;
  log: ServiceLog<ProxyProblemCode>;
  /** Deadline of the asset's download (60 s). */
  downloadTimeoutMs?: number;
  /** Deadline of the release document. */
  releaseTimeoutMs?: number;
  /** Largest archive accepted (128 MiB). */
  maxBytes?: number;
  /** How long the new core's `-v` may take before its process group is ended (10 s). */
  versionTimeoutMs?: number;
  platform?: NodeJS.Platform;
  arch?: string;
}

export const DOWNLOAD_TIMEOUT_MS = MINUTE_MS;
export const MAX_ARCHIVE_BYTES = 128 * 1024 * 1024;

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A hard link where the file system has them (instant, same bytes), else a copy. */
function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
    chmodSync(to, 0o755);
  }
}

/**
 * Installs the core from the release document, and rolls back to the one it replaced. One at
 * a time; every failure leaves the installed binaries, the running core and the configuration
 * as they were, and no temporary file behind.
 */
export class CoreInstaller {
  private busy = false;
  private state: InstallProgress | null = null;

  constructor(private readonly opts: InstallerOptions) {}

  get installing(): boolean {
    return this.busy;
  }

  get progress(): InstallProgress | null {
    return this.state ? { ...this.state } : null;
  }

  private claim(): void {
    if (this.busy) {
      throw new DomainError(
        "conflict",
        "install.busy",
        "Another install or rollback of the core is running",
      );
    }
    if (this.opts.locator.configured) {
      throw new DomainError(
        "invalid",
        "install.configured",
        "The core is chosen with --core-bin; installing would not change which core runs",
      );
    }
    this.busy = true;
  }

  private phase(phase: InstallProgress["phase"]): void {
    if (this.state) this.state = { ...this.state, phase };
  }

  async install(): Promise<{ version: string }> {
    this.claim();
    // Released whatever happens below: a stuck `-v` or a failed clean-up included.
    try {
      return await this.installClaimed();
    } finally {
      this.state = null;
      this.busy = false;
    }
  }

  private async installClaimed(): Promise<{ version: string }> {
    this.state = { phase: "release", bytesDone: 0, bytesTotal: null };
    const { dir } = this.opts.locator;
    const id = randomBytes(6).toString("hex");
    const windows = (this.opts.platform ?? process.platform) === "win32";
    // No extension of its own: it runs as it is (`-v`, `-t`), and Windows runs only `.exe`.
    const download = join(dir, `.install-download-${id}`);
    const candidate = join(dir, `.install-new-${id}${windows ? ".exe" : ""}`);
    try {
      const release = await fetchReleaseDocument(
        this.opts.releaseURL,
        this.opts.releaseTimeoutMs ?? 15_000,
      );
      const { asset, sha256 } = this.pick(release);
      const maxBytes = this.opts.maxBytes ?? MAX_ARCHIVE_BYTES;
      if (typeof asset.size === "number" && asset.size > maxBytes) throw tooLarge(maxBytes);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      this.state = { phase: "download", bytesDone: 0, bytesTotal: asset.size ?? null };
      const got = await downloadAsset(asset, download, {
        timeoutMs: this.opts.downloadTimeoutMs ?? DOWNLOAD_TIMEOUT_MS,
        maxBytes,
        onProgress: (done) => {
          if (this.state) this.state = { ...this.state, bytesDone: done };
        },
      });
      if (got !== sha256) {
        throw new DomainError(
          "invalid",
          "install.digest_mismatch",
          `The downloaded ${asset.name} does not match the digest the release gives`,
          { params: { asset: asset.name } },
        );
      }
      this.phase("unpack");
      await (windows ? unzipTo(download, candidate) : gunzipTo(download, candidate));
      rmSync(download, { force: true });
      chmodSync(candidate, 0o755);
      this.phase("verify");
      const said = await versionOutput(candidate, this.opts.versionTimeoutMs);
      if (said === null || !said.includes(release.tag_name)) {
        throw new DomainError(
          "invalid",
          "install.version_mismatch",
          `The downloaded core does not say it is ${release.tag_name}`,
          { params: { version: release.tag_name }, extra: { output: lastLines(said ?? "", 4) } },
        );
      }
      this.phase("test");
      const check = (this.opts.core as Partial<CandidateCheck>).checkWith;
      const result = check
        ? await check.call(this.opts.core, candidate, this.opts.coreInput())
        : null;
      if (result && !result.ok) {
        throw new DomainError(
          "invalid",
          "install.config_rejected",
          `The new core rejected the current configuration: ${result.message}`,
          { params: { detail: result.message } },
        );
      }
      this.phase("swap");
      await this.replace(() => this.swapIn(candidate, id));
      this.opts.log.info(`proxy core ${release.tag_name} installed`);
      return { version: release.tag_name };
    } finally {
      rmSync(download, { force: true });
      rmSync(candidate, { force: true });
    }
  }

  async rollback(): Promise<{ version: string }> {
    this.claim();
    try {
      const { previousPath, installedPath } = this.opts.locator;
      if (!isFile(previousPath)) {
        throw new DomainError(
          "invalid",
          "install.no_previous",
          "There is no previous core to go back to",
        );
      }
      const id = randomBytes(6).toString("hex");
      await this.replace(() => this.swapPrevious(id));
      const said = (await versionOutput(installedPath, this.opts.versionTimeoutMs)) ?? "";
      this.opts.log.info("proxy core rolled back to the previous one");
      return { version: versionIn(said) };
    } finally {
      this.busy = false;
    }
  }

  /** The asset for this machine and its SHA-256 as the release gives it. */
  private pick(release: Release) {
    const names = assetNames(release.tag_name, this.opts.platform, this.opts.arch);
    const asset = names
      .map((n) => release.assets.find((a) => a.name === n))
      .find((a) => a !== undefined);
    if (!asset) {
      const wanted = names.at(-1) ?? `mihomo-${this.opts.platform ?? process.platform}`;
      throw new DomainError(
        "invalid",
        "install.no_asset",
        `The release ${release.tag_name} has no ${wanted} for this machine`,
        { params: { asset: wanted } },
      );
    }
    const m = /^sha256:([0-9a-f]{64})$/i.exec(asset.digest?.trim() ?? "");
    if (!m) {
      throw new DomainError(
        "invalid",
        "install.no_digest",
        `The release gives no SHA-256 digest for ${asset.name}, so it cannot be checked`,
        { params: { asset: asset.name } },
      );
    }
    return { asset, sha256: m[1].toLowerCase() };
  }

  /**
   * Swaps the files, then brings a running core up on the new binary. When that fails the files
   * are put back and the previous core started again, and the answer says why.
   */
  private async replace(swap: () => () => void): Promise<void> {
    const core = this.opts.core;
    const wasRunning = core.running();
    // Windows does not let a running executable be replaced: stop it first.
    const stopFirst = wasRunning && (this.opts.platform ?? process.platform) === "win32";
    if (stopFirst) await core.stop();
    let undo: () => void;
    try {
      undo = swap();
    } catch (err) {
      if (stopFirst) await core.start(this.opts.coreInput()).catch(() => undefined);
      throw err;
    }
    if (!wasRunning) return;
    if (this.state) this.phase("restart");
    try {
      await (stopFirst ? core.start(this.opts.coreInput()) : core.restart(this.opts.coreInput()));
    } catch (err) {
      undo();
      await core.restart(this.opts.coreInput()).catch((again: unknown) => {
        this.opts.log.error(
          "install.restore_failed",
          "The previous proxy core was put back but did not start",
          { err: again },
        );
      });
      const output = err instanceof DomainError ? err.extra.output : undefined;
      throw new DomainError(
        "invalid",
        "install.restart_failed",
        `The new core did not start, so the previous one was put back: ${errorMessage(err)}`,
        {
          params: { detail: errorMessage(err) },
          ...(typeof output === "string" ? { extra: { output } } : {}),
          cause: err,
        },
      );
    }
  }

  /** The candidate becomes the installed core; the one it replaces becomes the previous one. */
  private swapIn(candidate: string, id: string): () => void {
    const { installedPath: cur, previousPath: prev, dir } = this.opts.locator;
    const hadCur = isFile(cur);
    const hadPrev = hadCur && isFile(prev);
    const oldPrev = join(dir, `.install-old-previous-${id}`);
    // The previous "previous" is kept aside until the new core runs, so a failure restores it.
    if (hadPrev) renameSync(prev, oldPrev);
    const undo = () => {
      if (hadCur) renameSync(prev, cur);
      else rmSync(cur, { force: true });
      if (hadPrev) renameSync(oldPrev, prev);
    };
    try {
      if (hadCur) linkOrCopy(cur, prev);
      // One rename: at every moment `mihomo` is a whole executable, old or new.
      renameSync(candidate, cur);
    } catch (err) {
      rmSync(prev, { force: true });
      if (hadPrev) renameSync(oldPrev, prev);
      throw err;
    }
    return undo;
  }

  /** `mihomo.previous` and `mihomo` trade places; undone by trading them back. */
  private swapPrevious(id: string): () => void {
    const { installedPath: cur, previousPath: prev, dir } = this.opts.locator;
    const trade = (tag: string) => {
      if (!isFile(cur)) {
        renameSync(prev, cur);
        return () => renameSync(cur, prev);
      }
      const aside = join(dir, `.install-${tag}-${id}`);
      linkOrCopy(cur, aside);
      try {
        renameSync(prev, cur);
        renameSync(aside, prev);
      } catch (err) {
        rmSync(aside, { force: true });
        throw err;
      }
      return null;
    };
    const back = trade("swap");
    return back ?? (() => void trade("swap-back"));
  }

  /** Removes what an install that died with the process left behind (`.install-*`). */
  static sweep(locator: CoreLocator): void {
    let names: string[];
    try {
      names = readdirSync(locator.dir);
    } catch {
      return; // nothing installed yet
    }
    for (const name of names) {
      if (name.startsWith(".install-")) rmSync(join(locator.dir, name), { force: true });
    }
  }
}
