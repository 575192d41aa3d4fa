import { spawn, type ChildProcessByStdio } from "node:child_process";
import http from "node:http";
import type { Readable } from "node:stream";
import { freePort } from "./free-ports.js";
import { CookieJar } from "./parcel-harness.js";
import { serviceEntryArgs } from "./service-entry.js";

/** The parcel administrator's password every fault test starts the service with. */
export const ADMIN_PASSWORD = "fault-admin-password-1";
/** The proxy console password the fault tests set up. */
export const PROXY_PASSWORD = "fault-proxy-password-1";

export interface ServiceOptions {
  dataDir: string;
  /** Which services to run (both when absent). */
  only?: "parcel" | "proxy";
  /** Extra command-line options (e.g. `--core-bin`). */
  args?: string[];
  env?: NodeJS.ProcessEnv;
}

/** The headless service (compiled, or `server/cli.ts` under tsx) as a real child process. */
export interface ServiceProcess {
  pid: number;
  parcelUrl: string | null;
  proxyUrl: string | null;
  /** Printed when the proxy console has no password yet. */
  setupToken: string | null;
  /** Everything the process printed so far (for failure messages). */
  output(): string;
  /** SIGKILL: no shutdown code runs. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM and wait; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** Whether the process has exited. */
  exited(): boolean;
  /**
   * Resolves once the service printed `fault point reached: <point>` (armed through
   * `env: { GATEHOUSE_FAULT }`); rejects when the process exits first without printing it.
   */
  reached(point: string): Promise<void>;
}

/**
 * A service start (tsx compiling the server) takes 2-5 s on a quiet 2-core machine and several
 * times that when other suites, a browser and a benchmark share it; a start is given this long.
 */
const START_TIMEOUT_MS = 60_000;

/**
 * The budget of one fault test: each starts the real service three or four times (set-up, the
 * kill, the restart and check), so the runner's 30 s default is too short on a busy machine.
 * Every wait inside is on an event; this only bounds a test that hangs.
 */
export const FAULT_TEST_TIMEOUT_MS = 180_000;

/**
 * Starts the service (test/helpers/service-entry.ts) on 127.0.0.1 with port 0 for each service (and a free port for
 * the core's controller unless `args` names one), and resolves once every listening line was
 * printed. Rejects (with the output) when it exits first.
 */
export async function startService(opts: ServiceOptions): Promise<ServiceProcess> {
  const args = [...serviceEntryArgs(), "--host", "127.0.0.1"];
  args.push("--data-dir", opts.dataDir);
  if (opts.only === "parcel") args.push("--parcel-only", "--parcel-port", "0");
  else if (opts.only === "proxy") args.push("--proxy-only", "--proxy-port", "0");
  else args.push("--parcel-port", "0", "--proxy-port", "0");
  args.push(...(opts.args ?? []));
  if (opts.only !== "parcel" && !args.includes("--core-controller-port")) {
    args.push("--core-controller-port", String(await freePort()));
  }
  const proc: ChildProcessByStdio<null, Readable, Readable> = spawn(process.execPath, args, {
    env: { ...process.env, GATEHOUSE_ADMIN_PASSWORD: ADMIN_PASSWORD, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let exitCode: number | null | undefined;
  const exit = new Promise<number | null>((resolve) =>
    proc.on("exit", (code) => {
      exitCode = code;
      resolve(code);
    }),
  );
  proc.on("error", (err) => (out += `spawn error: ${String(err)}\n`));
  proc.stdout.on("data", (b: Buffer) => (out += b.toString()));
  proc.stderr.on("data", (b: Buffer) => (out += b.toString()));

  const lineValue = (re: RegExp): string | null => re.exec(out)?.[1] ?? null;
  const wantParcel = opts.only !== "proxy";
  const wantProxy = opts.only !== "parcel";
  const handle = (): ServiceProcess => ({
    pid: proc.pid ?? -1,
    parcelUrl: lineValue(/^parcel service listening on (http:\/\/\S+)$/m),
    proxyUrl: lineValue(/^proxy service listening on (http:\/\/\S+)$/m),
    // Read when asked: the token line may arrive in a later chunk than the listening line.
    get setupToken() {
      return lineValue(/^proxy setup token: (\S+)$/m);
    },
    output: () => out,
    exited: () => exitCode !== undefined,
    reached(point: string) {
      const line = `fault point reached: ${point}\n`;
      return new Promise<void>((resolve, reject) => {
        const look = (): void => {
          if (out.includes(line)) return done(resolve);
          if (exitCode !== undefined) {
            done(() => reject(new Error(`the service exited before ${point}:\n${out}`)));
          }
        };
        const done = (settle: () => void): void => {
          proc.stderr.off("data", look);
          proc.off("exit", look);
          settle();
        };
        // Registered after the output collector, so `out` already holds the chunk.
        proc.stderr.on("data", look);
        proc.on("exit", look);
        look();
      });
    },
    async kill() {
      if (exitCode === undefined) proc.kill("SIGKILL");
      await exit;
    },
    async stop() {
      if (exitCode === undefined) proc.kill("SIGTERM");
      return exit;
    },
  });

  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = (): void => {
      const h = handle();
      const ready = (!wantParcel || h.parcelUrl !== null) && (!wantProxy || h.proxyUrl !== null);
      if (ready) {
        // The signal handlers are installed right after the listening lines are printed; one
        // answered request proves that code has run, so a SIGTERM now is a graceful stop.
        const url = (h.parcelUrl ?? h.proxyUrl) as string;
        return void new Client(url).request("GET", "/api/v1/health").then(
          () => resolve(h),
          (err: unknown) => reject(new Error(`the service did not answer: ${String(err)}\n${out}`)),
        );
      }
      if (exitCode !== undefined) {
        return reject(new Error(`the service exited (${exitCode}) before listening:\n${out}`));
      }
      if (Date.now() - started > START_TIMEOUT_MS) {
        proc.kill("SIGKILL");
        return reject(new Error(`the service did not start in time:\n${out}`));
      }
      setTimeout(poll, 25);
    };
    poll();
  });
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  /** Parsed JSON body, or undefined. */
  json: unknown;
}

export interface CallOptions {
  body?: unknown;
  raw?: Buffer;
  headers?: Record<string, string>;
}

/**
 * A browser-like client of one service: keeps cookies, sends `Origin` on state-changing
 * requests (both services accept their own origin) and the proxy's CSRF token once known.
 * No keep-alive, so no socket outlives its request (services are killed under it).
 */
export class Client {
  readonly jar = new CookieJar();
  csrf = "";
  readonly origin: string;

  constructor(base: string) {
    this.origin = new URL(base).origin;
  }

  get port(): number {
    return Number(new URL(this.origin).port);
  }

  request(method: string, path: string, o: CallOptions = {}): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { host: new URL(this.origin).host };
      if (method !== "GET" && method !== "HEAD") headers.origin = this.origin;
      if (this.csrf) headers["x-csrf-token"] = this.csrf;
      const cookie = this.jar.header();
      if (cookie) headers.cookie = cookie;
      let payload: Buffer | undefined = o.raw;
      if (!payload && o.body !== undefined) {
        payload = Buffer.from(JSON.stringify(o.body));
        headers["content-type"] = "application/json";
      }
      if (payload) headers["content-length"] = String(payload.length);
      Object.assign(headers, o.headers);
      const req = http.request(
        { host: "127.0.0.1", port: this.port, method, path, headers, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () => {
            this.jar.take(res.headers["set-cookie"]);
            const body = Buffer.concat(chunks);
            const text = body.toString("utf8");
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text, json });
          });
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
  }

  /** A request that must answer `status`; returns the parsed JSON. */
  async expect<T = Record<string, unknown>>(
    status: number,
    method: string,
    path: string,
    o: CallOptions = {},
  ): Promise<T> {
    const r = await this.request(method, path, o);
    if (r.status !== status) {
      throw new Error(`${method} ${path} answered ${r.status}, expected ${status}: ${r.text}`);
    }
    return r.json as T;
  }
}

/** Signs the parcel administrator in (the cookie stays in the client's jar). */
export async function parcelAdmin(url: string): Promise<Client> {
  const c = new Client(url);
  await c.expect(200, "POST", "/api/v1/admin/login", {
    body: { username: "admin", password: ADMIN_PASSWORD },
  });
  return c;
}

/** Sets the proxy console up with the printed token, or signs in when it already is. */
export async function proxyConsole(svc: ServiceProcess): Promise<Client> {
  if (!svc.proxyUrl) throw new Error("the proxy service is not running");
  const c = new Client(svc.proxyUrl);
  const status = await c.expect<{ initialized: boolean }>(200, "GET", "/api/v1/auth/status");
  let r: { csrf: string };
  if (status.initialized) {
    r = await c.expect(200, "POST", "/api/v1/auth/login", { body: { password: PROXY_PASSWORD } });
  } else {
    await until(() => svc.setupToken !== null, "the setup token was printed");
    r = await c.expect(200, "POST", "/api/v1/auth/setup", {
      body: { token: svc.setupToken, password: PROXY_PASSWORD },
    });
  }
  c.csrf = r.csrf;
  return c;
}

/** Polls `check` every few ms until it holds; throws `what` when `ms` pass first. */
export async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
