import type { Logger } from "pino";
import { ConfigError, parseConfig, type GatehouseConfig } from "../config.js";
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

/** The proxy core a run watches for the tray. */
type ProxyCore = NonNullable<RunningGatehouse["core"]>;

/** One run of the services under the desktop host: its state and each step it takes. */
class DesktopRun {
  private readonly log: Logger;
  private running: RunningGatehouse | null = null;
  private stopping = false;
  private pendingEntries: string[] | null = null;
  private coreTimer: NodeJS.Timeout | null = null;
  private lastStatus = "";
  private core: CoreStatus | null = null;

  constructor(private readonly opts: RunOptions) {
    this.log = opts.logger.child({ service: "desktop" });
  }

  /** Messages are accepted from the start: entries wait for the services, a stop does not. */
  listen(): void {
    const { channel } = this.opts;
    channel.onMessage((message: HostMessage) => {
      if (message.type === "stop") return this.stop();
      if (this.running) void this.applyEntries(message.entries);
      else this.pendingEntries = message.entries;
    });
    channel.onGone(this.stop);
    this.opts.onStopSignal?.(this.stop);
  }

  async run(): Promise<void> {
    const config = this.readConfig();
    if (!config) return;
    const running = await this.start(config);
    if (!running) return;
    if (this.stopping) {
      this.stopping = false;
      return this.stop();
    }
    this.postReady(config.dataDir, running);
    if (this.pendingEntries) await this.applyEntries(this.pendingEntries);
    if (running.core) await this.watchCore(running.core);
    else this.postStatus();
  }

  /** The settings from `argv` with a usable data dir, or null once the run has exited. */
  private readConfig(): GatehouseConfig | null {
    const { channel } = this.opts;
    let config;
    try {
      config = parseConfig(this.opts.argv);
    } catch (err) {
      const problem = describeStartError(err, "");
      channel.post({ type: "error", ...problem });
      this.log.error(problem.message);
      this.opts.exit(err instanceof ConfigError ? EXIT_REFUSED : EXIT_FAILED);
      return null;
    }
    if (config === "help") {
      this.opts.exit(0);
      return null;
    }
    const dirProblem = checkDataDir(config.dataDir);
    if (dirProblem) {
      channel.post({ type: "error", ...dirProblem });
      this.log.error(dirProblem.message);
      this.opts.exit(EXIT_REFUSED);
      return null;
    }
    return config;
  }

  /** The services started, their parcel events sent on; null once a failed start has exited. */
  private async start(config: GatehouseConfig): Promise<RunningGatehouse | null> {
    const { channel } = this.opts;
    try {
      this.running = await startGatehouse(config, this.opts.logger, {
        onParcelEvent: (event) => channel.post({ type: "event", event }),
      });
      return this.running;
    } catch (err) {
      const problem = describeStartError(err, config.dataDir);
      channel.post({ type: "error", ...problem });
      this.log.error({ err }, problem.message);
      this.opts.exit(problem.code === "start_failed" ? EXIT_FAILED : EXIT_REFUSED);
      return null;
    }
  }

  private postReady(dataDir: string, running: RunningGatehouse): void {
    this.opts.channel.post({
      type: "ready",
      dataDir,
      parcel: running.parcel && {
        url: running.parcel.url,
        httpsUrl: running.parcel.httpsUrl,
        entries: running.parcel.entries,
        adminUser: running.parcel.adminUser,
        generatedAdminPassword: running.parcel.generatedAdminPassword,
      },
      proxy: running.proxy && { url: running.proxy.url, setupToken: running.proxy.setupToken },
    });
  }

  /** The entries and the core's state, sent only when they changed. */
  private postStatus(): void {
    if (!this.running) return;
    const status = { entries: this.running.parcel?.entries ?? null, core: this.core };
    const key = JSON.stringify(status);
    if (key === this.lastStatus) return;
    this.lastStatus = key;
    this.opts.channel.post({ type: "status", ...status });
  }

  private async applyEntries(entries: string[]): Promise<void> {
    const running = this.running;
    if (!running?.parcel) return;
    try {
      await running.setParcelEntries(withOwnUrls(entries, running.parcel));
      this.log.info({ entries: running.parcel.entries.length }, "parcel entry addresses replaced");
    } catch (err) {
      this.log.warn({ err }, "the new parcel entry addresses were refused; the old ones stay");
    }
    this.postStatus();
  }

  /** Looks at the core now and then every few seconds, one look at a time, until the stop. */
  private async watchCore(proxyCore: ProxyCore): Promise<void> {
    const { readCoreStatus } = await import("./core-status.js");
    let busy = false;
    const look = async (): Promise<void> => {
      if (busy || this.stopping) return;
      busy = true;
      try {
        this.core = await readCoreStatus(proxyCore, 1000);
        if (!this.stopping) this.postStatus();
      } finally {
        busy = false;
      }
    };
    await look();
    if (!this.stopping) {
      this.coreTimer = setInterval(() => void look(), this.opts.coreStatusEveryMs ?? 5000);
      this.coreTimer.unref();
    }
  }

  /** A clean stop, once; one asked for while starting happens as soon as the services are up. */
  readonly stop = (): void => {
    if (this.stopping) return;
    this.stopping = true;
    if (this.coreTimer) clearInterval(this.coreTimer);
    // Still starting: stopped by `run` as soon as it is up.
    if (!this.running) return;
    const services = this.running;
    const deadline = setTimeout(() => {
      this.log.warn("the services did not stop in time; exiting anyway");
      this.opts.exit(EXIT_FAILED);
    }, this.opts.stopDeadlineMs ?? 1400);
    services.stop().then(
      () => {
        clearTimeout(deadline);
        this.opts.exit(0);
      },
      (err: unknown) => {
        clearTimeout(deadline);
        this.log.error({ err }, "stopping the services failed");
        this.opts.exit(EXIT_FAILED);
      },
    );
  };
}

/**
 * The services as the desktop app's child process: started from `argv`, reporting `ready`
 * (or a coded `error`), the parcel events and the core's status to the host, following
 * `entries` and `stop`. Messages are accepted from the start, so a stop sent while the
 * services are still starting stops them as soon as they are up.
 */
export async function runDesktopServices(opts: RunOptions): Promise<void> {
  const run = new DesktopRun(opts);
  run.listen();
  await run.run();
}
