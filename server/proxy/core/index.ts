import { mkdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { DomainError } from "../../domain-errors.js";
import { problem } from "../../problem-codes.js";
import type { CoreControl, CoreManagerOptions } from "../context.js";
import { GROUP_PROXY, type CoreInput } from "../types.js";
import type { CheckResult } from "./check.js";
import { checkCompiled } from "./config-check.js";
import { compileConfig, compileRules, REJECT, selectionTarget } from "./compile.js";
import { CoreApiError, errorMessage, isCommunicationError } from "./errors.js";
import { loadSecret, writeAtomicAsync } from "./files.js";
import { bundledGeodataDirs, ensureGeodata, seedGeodata } from "./geodata.js";
import { ListenWatch, type ListenProblem } from "./listen-problems.js";
import { stopLeftoverCore } from "./leftover.js";
import { CoreLogFeed, withoutSecret } from "./log-feed.js";
import { MihomoClient, type CoreApi } from "./mihomo-client.js";
import { ensurePortFree, PORT_IN_USE, portInUseMessage } from "./port-check.js";
import { ProviderFiles } from "./provider-files.js";
import { ProcessSupervisor, type Supervisor } from "./supervisor.js";
import { SystemdSupervisor } from "./systemd.js";
import { waitCoreReady } from "./wait-ready.js";

export { CoreApiError, CoreTimeoutError, CoreUnreachableError } from "./errors.js";
export type { CoreApi, CoreConnections } from "./mihomo-client.js";
export { CoreLogFeed, type CoreLogLine } from "./log-feed.js";
export { coreApi, coreLogFeed } from "./access.js";
export { PORT_IN_USE } from "./port-check.js";
export type { ListenProblem } from "./listen-problems.js";

/** Test seams and tuning beyond `CoreManagerOptions`; production passes none. */
export interface CoreManagerExtras {
  backoffBaseMs?: number;
  /** How long a (re)started core may take to answer `/version`. */
  readyTimeoutMs?: number;
  /** The systemctl executable for the systemd backend. */
  systemctl?: string;
  /** Whether the controller port is already held by someone (default: try to bind it). */
  portTaken?: (port: number) => Promise<boolean>;
  /** Wait before following the core's log again after its stream ended. */
  logRetryMs?: number;
}

/** The core layer with its full controller client (what the live routes use). */
export interface CoreManager extends CoreControl {
  readonly client: CoreApi;
  readonly homeDir: string;
  readonly configFile: string;
  readonly supervisor: Supervisor;
  /** The core's log, followed while the core runs, with the last lines kept. */
  readonly logFeed: CoreLogFeed;
  /** Stable code of the last configuration or start error ("" when none). */
  readonly configErrorCode: string;
  /** Ports of the running core that another program holds (the core runs without them). */
  listenProblems(): ListenProblem[];
  /** The configuration of `input` tested by another executable (a core about to be installed). */
  checkWith(bin: string, input: CoreInput): Promise<CheckResult>;
}

class Manager implements CoreManager {
  readonly client: MihomoClient;
  readonly homeDir: string;
  readonly configFile: string;
  readonly supervisor: Supervisor;
  readonly logFeed: CoreLogFeed;
  private error = "";
  private errorCode = "";
  private wanted = false;
  private tail: Promise<unknown> = Promise.resolve();
  private readonly secret: string;
  private lastInput: CoreInput | null = null;
  private readonly providers: ProviderFiles;
  /** What the core's lines say about its listeners: stdout, or its log stream under systemd. */
  private readonly listen = new ListenWatch();

  constructor(private readonly opts: CoreManagerOptions & CoreManagerExtras) {
    // mihomo only loads config paths inside its home dir, compared as absolute paths.
    this.homeDir = resolve(opts.homeDir);
    this.providers = new ProviderFiles(this.homeDir);
    mkdirSync(this.homeDir, { recursive: true, mode: 0o700 });
    this.configFile = join(this.homeDir, "config.yaml");
    this.secret = loadSecret(this.homeDir);
    this.client = new MihomoClient({ port: opts.controllerPort, secret: this.secret });
    this.logFeed = new CoreLogFeed((onItem, o) => this.client.logs("info", onItem, o), {
      retryMs: opts.logRetryMs,
      now: () => opts.clock.now(),
      redact: withoutSecret(this.secret),
      observe: opts.service === "systemd" ? (line) => this.listen.line(line.payload) : undefined,
    });
    this.supervisor =
      opts.service === "systemd"
        ? new SystemdSupervisor({ unit: opts.unit, systemctl: opts.systemctl })
        : new ProcessSupervisor({
            // Read at each spawn: an install or a rollback can change the executable.
            get bin() {
              return opts.coreBin ?? "mihomo";
            },
            homeDir: this.homeDir,
            configFile: this.configFile,
            clock: opts.clock,
            log: opts.log,
            backoffBaseMs: opts.backoffBaseMs,
            onRestarted: () => this.afterRestart(),
            beforeStart: () => this.checkPort(),
            onLine: (line) => this.listen.line(line),
            onSpawn: () => this.listen.reset(),
          });
  }

  get installed(): boolean {
    const bin = this.opts.coreBin;
    if (!bin) return false;
    try {
      return statSync(bin).isFile();
    } catch {
      return false;
    }
  }

  get configError(): string {
    return this.error;
  }

  get configErrorCode(): string {
    return this.errorCode;
  }

  private setError(message: string, code = ""): void {
    this.error = message;
    this.errorCode = message ? code : "";
  }

  /** Refuses to start a core whose controller port another program holds. */
  private checkPort(): Promise<void> {
    return ensurePortFree(this.opts.controllerPort, {
      taken: this.opts.portTaken,
      answersOurSecret: () =>
        this.client.version(1000).then(
          () => true,
          () => false,
        ),
      stopLeftover: () =>
        this.supervisor.kind === "process"
          ? stopLeftoverCore(this.homeDir)
          : Promise.resolve(false),
      log: this.opts.log,
    });
  }

  running(): boolean {
    return this.wanted;
  }

  listenProblems(): ListenProblem[] {
    return this.wanted ? this.listen.problems(this.lastInput?.settings ?? null) : [];
  }

  /** Core control steps run one at a time so a stop never overtakes a start. */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task, task);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private geodataDirs(): string[] {
    return this.opts.geodataDirs ?? bundledGeodataDirs(this.opts.coreBin);
  }

  /** Compiles, checks with `-t` and promotes the config; throws 400 and keeps the old one. */
  private async stage(input: CoreInput): Promise<void> {
    const compiled = compileConfig(input, {
      controllerPort: this.opts.controllerPort,
      secret: this.secret,
    });
    await this.providers.writeMissing(compiled.providers);
    if (this.installed) {
      // Shipped geodata goes in as soon as a configuration needs it; without it, the check
      // leaves out the rules that would make the core download it.
      const rules = compileRules(input.rules);
      seedGeodata(this.homeDir, rules, this.geodataDirs(), this.opts);
      const result = await checkCompiled(
        this.opts.coreBin as string,
        this.homeDir,
        compiled.yaml,
        "config.staged.yaml",
        rules,
      );
      if (!result.ok) {
        this.setError(result.message, "core.config_rejected");
        throw new DomainError(
          "invalid",
          "core.config_rejected",
          `The core rejected the configuration: ${result.message}`,
          { params: { detail: result.message } },
        );
      }
    }
    await this.providers.sync(compiled.providers);
    await writeAtomicAsync(this.configFile, compiled.yaml);
    this.setError("");
    this.lastInput = input;
  }

  checkWith(bin: string, input: CoreInput): Promise<CheckResult> {
    return this.serial(async () => {
      const compiled = compileConfig(input, {
        controllerPort: this.opts.controllerPort,
        secret: this.secret,
      });
      await this.providers.writeMissing(compiled.providers);
      return checkCompiled(
        bin,
        this.homeDir,
        compiled.yaml,
        "config.candidate.yaml",
        compileRules(input.rules),
      );
    });
  }

  apply(input: CoreInput): Promise<void> {
    return this.serial(async () => {
      await this.stage(input);
      if (!this.wanted) return;
      try {
        await this.client.putConfigs({ path: this.configFile }, true);
      } catch (err) {
        // A core between restarts picks the promoted file up when it comes back.
        if (isCommunicationError(err) && this.supervisor.kind === "process") {
          this.opts.log(
            `configuration staged; the core did not take it now (${errorMessage(err)})`,
          );
          return;
        }
        this.setError(errorMessage(err));
        throw new DomainError(
          "invalid",
          "core.config_load",
          `The core did not load the configuration: ${this.error}`,
          { params: { detail: this.error }, cause: err },
        );
      }
      await this.selectNow(input);
    });
  }

  applySelection(input: CoreInput): Promise<void> {
    this.lastInput = input;
    if (!this.wanted) return Promise.resolve();
    return this.selectNow(input);
  }

  /** Points PROXY at the target; a node the core refuses leaves PROXY on REJECT. */
  private async selectNow(input: CoreInput): Promise<void> {
    const target = selectionTarget(input);
    try {
      await this.client.selectProxy(GROUP_PROXY, target);
    } catch (err) {
      if (target !== REJECT && err instanceof CoreApiError && err.status === 400) {
        await this.client.selectProxy(GROUP_PROXY, REJECT).catch(() => undefined);
      }
      throw err;
    }
  }

  private waitReady(): Promise<void> {
    return waitCoreReady({
      client: this.client,
      supervisor: this.supervisor,
      port: this.opts.controllerPort,
      timeoutMs: this.opts.readyTimeoutMs ?? 20_000,
    });
  }

  private async bringUp(input: CoreInput, how: "start" | "restart"): Promise<void> {
    if (!this.installed) {
      throw new DomainError("invalid", "core.not_installed", "The proxy core is not installed");
    }
    try {
      ensureGeodata(
        this.homeDir,
        compileRules(input.rules),
        this.geodataDirs(),
        this.opts.clock.now(),
      );
    } catch (err) {
      // Never a start that would make the core download geodata; status names the file.
      if (err instanceof DomainError) this.setError(err.message, err.code);
      throw err;
    }
    await this.stage(input);
    try {
      const up = how === "start" && (await this.supervisor.active().catch(() => false));
      // A unit started elsewhere may hold the port itself; a process core checks before it spawns.
      if (!up && how === "start" && this.supervisor.kind === "systemd") await this.checkPort();
      // A unit's run is seen through its log stream only; what the last one said is gone.
      if (!up && this.supervisor.kind === "systemd") this.listen.reset();
      this.wanted = true;
      if (up) {
        // Already running (e.g. a systemd unit started elsewhere): load the new config.
        await this.waitReady();
        await this.client.putConfigs({ path: this.configFile }, true);
      } else {
        try {
          await (how === "start" ? this.supervisor.start() : this.supervisor.restart());
          await this.waitReady();
        } catch (err) {
          // A core that never came up is stopped, not left restarting behind a failed call.
          this.wanted = false;
          await this.supervisor.stop().catch(() => undefined);
          throw err;
        }
      }
      await this.selectNow(input);
      this.logFeed.setFollowing(true);
    } catch (err) {
      if (err instanceof DomainError && err.code === PORT_IN_USE) {
        this.setError(portInUseMessage(this.opts.controllerPort), PORT_IN_USE);
      } else if (
        err instanceof DomainError &&
        (err.code === "core.exited_at_start" || err.code === "core.timeout")
      ) {
        // The status names it until the next start: the core's words, under its code.
        const output = err.extra.output;
        this.setError(typeof output === "string" && output ? output : err.message, err.code);
      }
      if (err instanceof DomainError) throw err;
      throw new DomainError(
        "invalid",
        `core.${how}_failed`,
        `Could not ${how} the proxy core: ${errorMessage(err)}`,
        { params: { detail: errorMessage(err) }, cause: err },
      );
    }
  }

  private async afterRestart(): Promise<void> {
    try {
      await this.waitReady();
      if (this.lastInput) await this.selectNow(this.lastInput);
      this.logFeed.setFollowing(this.wanted);
      this.opts.log("proxy core restarted; selection re-applied");
    } catch (err) {
      this.opts.log(
        "The proxy core restarted only partly",
        problem("warn", "core.restart_partial", { err }),
      );
    }
  }

  start(input: CoreInput): Promise<void> {
    return this.serial(() => this.bringUp(input, "start"));
  }

  restart(input: CoreInput): Promise<void> {
    return this.serial(() => this.bringUp(input, "restart"));
  }

  stop(): Promise<void> {
    return this.serial(async () => {
      try {
        await this.supervisor.stop();
        this.wanted = false;
        this.logFeed.setFollowing(false);
      } catch (err) {
        throw new DomainError(
          "invalid",
          "core.stop_failed",
          `Could not stop the proxy core: ${errorMessage(err)}`,
          { params: { detail: errorMessage(err) }, cause: err },
        );
      }
    });
  }

  close(): Promise<void> {
    return this.serial(async () => {
      this.wanted = false;
      this.logFeed.close();
      await this.supervisor.close();
    });
  }
}

/** Creates the core layer: compiler, `-t` check, controller client and supervisor. */
export function createCoreManager(opts: CoreManagerOptions & CoreManagerExtras): CoreManager {
  return new Manager(opts);
}
