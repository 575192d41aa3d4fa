import type { Logger } from "pino";
import { ConfigError, parseConfig } from "../config.js";
import { startGatehouse, type RunningGatehouse } from "../host.js";
import type { ParentChannel } from "./parent-channel.js";
import type { CoreStatus, HostMessage } from "./protocol.js";
import { checkDataDir, describeStartError } from "./start-errors.js";

export interface RunOptions {
  /** The same options `npm run serve` takes. */
  argv: string[];
  channel: ParentChannel;
  logger: Logger;
  exit(code: number): void;
  /** Registers what a termination signal calls (a clean stop). */
  onStopSignal?(stop: () => void): void;
  /** How often the proxy core is looked at for the tray (5 s). */
  coreStatusEveryMs?: number;
  /** A stop that takes longer than this exits anyway, inside the host's 2 s (1.4 s). */
  stopDeadlineMs?: number;
}

/** Exit codes: 2 for a start refused by its settings or data dir, like `npm run serve`. */
const EXIT_REFUSED = 2;
const EXIT_FAILED = 1;

/** The window's own addresses stay entries whatever list the host sends, or it would lock itself out. */
function withOwnUrls(entries: string[], parcel: NonNullable<RunningGatehouse["parcel"]>): string[] {
  const own = [parcel.url, ...(parcel.httpsUrl ? [parcel.httpsUrl] : [])];
  const origins = new Set(entries.map((e) => new URL(e).origin));
  return [...own.filter((u) => !origins.has(new URL(u).origin)), ...entries];
}

/**
 * The services as the desktop app's child process: started from `argv`, reporting `ready`
 * (or a coded `error`), the parcel events and the core's status to the host, following
 * `entries` and `stop`. Messages are accepted from the start, so a stop sent while the
 * services are still starting stops them as soon as they are up.
 */
export async function runDesktopServices(opts: RunOptions): Promise<void> {
  const { channel, logger } = opts;
  const log = logger.child({ service: "desktop" });
  let running: RunningGatehouse | null = null;
  let stopping = false;
  let pendingEntries: string[] | null = null;
  let coreTimer: NodeJS.Timeout | null = null;
  let lastStatus = "";
  let core: CoreStatus | null = null;

  const postStatus = (): void => {
    if (!running) return;
    const status = { entries: running.parcel?.entries ?? null, core };
    const key = JSON.stringify(status);
    if (key === lastStatus) return;
    lastStatus = key;
    channel.post({ type: "status", ...status });
  };

  const applyEntries = async (entries: string[]): Promise<void> => {
    if (!running?.parcel) return;
    try {
      await running.setParcelEntries(withOwnUrls(entries, running.parcel));
      log.info({ entries: running.parcel.entries.length }, "parcel entry addresses replaced");
    } catch (err) {
      log.warn({ err }, "the new parcel entry addresses were refused; the old ones stay");
    }
    postStatus();
  };

  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    if (coreTimer) clearInterval(coreTimer);
    // Still starting: stopped below as soon as it is up.
    if (!running) return;
    const services = running;
    const deadline = setTimeout(() => {
      log.warn("the services did not stop in time; exiting anyway");
      opts.exit(EXIT_FAILED);
    }, opts.stopDeadlineMs ?? 1400);
    services.stop().then(
      () => {
        clearTimeout(deadline);
        opts.exit(0);
      },
      (err: unknown) => {
        clearTimeout(deadline);
        log.error({ err }, "stopping the services failed");
        opts.exit(EXIT_FAILED);
      },
    );
  };

  channel.onMessage((message: HostMessage) => {
    if (message.type === "stop") return stop();
    if (running) void applyEntries(message.entries);
    else pendingEntries = message.entries;
  });
  channel.onGone(stop);
  opts.onStopSignal?.(stop);

  let config;
  try {
    config = parseConfig(opts.argv);
  } catch (err) {
    const problem = describeStartError(err, "");
    channel.post({ type: "error", ...problem });
    log.error(problem.message);
    return opts.exit(err instanceof ConfigError ? EXIT_REFUSED : EXIT_FAILED);
  }
  if (config === "help") return opts.exit(0);
  const dirProblem = checkDataDir(config.dataDir);
  if (dirProblem) {
    channel.post({ type: "error", ...dirProblem });
    log.error(dirProblem.message);
    return opts.exit(EXIT_REFUSED);
  }

  try {
    running = await startGatehouse(config, logger, {
      onParcelEvent: (event) => channel.post({ type: "event", event }),
    });
  } catch (err) {
    const problem = describeStartError(err, config.dataDir);
    channel.post({ type: "error", ...problem });
    log.error({ err }, problem.message);
    return opts.exit(problem.code === "start_failed" ? EXIT_FAILED : EXIT_REFUSED);
  }
  if (stopping) {
    stopping = false;
    return stop();
  }

  channel.post({
    type: "ready",
    dataDir: config.dataDir,
    parcel: running.parcel && {
      url: running.parcel.url,
      httpsUrl: running.parcel.httpsUrl,
      entries: running.parcel.entries,
      adminUser: running.parcel.adminUser,
      generatedAdminPassword: running.parcel.generatedAdminPassword,
    },
    proxy: running.proxy && { url: running.proxy.url, setupToken: running.proxy.setupToken },
  });
  if (pendingEntries) await applyEntries(pendingEntries);

  const proxyCore = running.core;
  if (proxyCore) {
    const { readCoreStatus } = await import("./core-status.js");
    let busy = false;
    const look = async (): Promise<void> => {
      if (busy || stopping) return;
      busy = true;
      try {
        core = await readCoreStatus(proxyCore, 1000);
        if (!stopping) postStatus();
      } finally {
        busy = false;
      }
    };
    await look();
    if (!stopping) {
      coreTimer = setInterval(() => void look(), opts.coreStatusEveryMs ?? 5000);
      coreTimer.unref();
    }
  } else {
    postStatus();
  }
}
