import http from "node:http";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { forkNode } from "../../main/host/fork-node.js";
import type { ForkFunction, HostChild } from "../../main/host/host-child.js";
import {
  ServiceHost,
  type HostInfo,
  type HostStatus,
  type ServiceHostOptions,
} from "../../main/host/service-host.js";
import type { ServiceEvent } from "../../server/desktop/protocol.js";
import { freePort } from "../helpers/free-ports.js";
import { desktopEntry, execArgvFor } from "../helpers/service-entry.js";

/** The real services entry: compiled, as the packaged app runs it, when the run built it. */
export const ENTRY = desktopEntry();

/** The core controller port the services of this test file are given: a free one. */
const CONTROLLER_PORT = await freePort();

export function tempDir(prefix = "gh-desktop-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Arguments of a test start: loopback only, any free ports, quiet log. */
export function serviceArgs(dataDir: string, extra: string[] = []): string[] {
  return [
    "--data-dir",
    dataDir,
    "--host",
    "127.0.0.1",
    "--parcel-port",
    "0",
    "--proxy-port",
    "0",
    // The desktop side asks the core's controller how it is; never the production 9090.
    "--core-controller-port",
    String(CONTROLLER_PORT),
    "--log-level",
    "warn",
    ...extra,
  ];
}

export interface Driven {
  host: ServiceHost;
  statuses: HostStatus[];
  infos: HostInfo[];
  events: ServiceEvent[];
  lines: string[];
  /** Every child the fork function started, newest last. */
  children: HostChild[];
  output(): string;
  /** Resolves with the first status (from now on, or already seen after `from`) that matches. */
  waitStatus<S extends HostStatus>(
    match: (s: HostStatus) => s is S,
    ms?: number,
    from?: number,
  ): Promise<S>;
  waitStatus(match: (s: HostStatus) => boolean, ms?: number, from?: number): Promise<HostStatus>;
  waitFor<T>(read: () => T | undefined, ms?: number): Promise<T>;
}

/** A Node fork of `entry` (under tsx when it is TypeScript) that keeps the child handles and its output. */
export function recordingFork(
  children: HostChild[],
  onOutput: (text: string) => void,
  env: NodeJS.ProcessEnv = {},
): ForkFunction {
  const forkWith = (execArgv: string[]): ForkFunction =>
    forkNode({
      execArgv,
      // A free controller port also for services started from the app's own arguments (which
      // name none): never the production 9090.
      env: {
        ...process.env,
        GATEHOUSE_ADMIN_PASSWORD: "",
        GATEHOUSE_CORE_CONTROLLER_PORT: String(CONTROLLER_PORT),
        ...env,
      },
      output: onOutput,
    });
  return (entry, args) => {
    const child = forkWith(execArgvFor(entry))(entry, args);
    children.push(child);
    return child;
  };
}

/** A ServiceHost on the real entry (or another), recording all it says. */
export function drive(options: Partial<ServiceHostOptions> & { dataDir: string }): Driven {
  const children: HostChild[] = [];
  let out = "";
  const lines: string[] = [];
  const host = new ServiceHost({
    fork: recordingFork(children, (t) => (out += t)),
    entry: ENTRY,
    args: serviceArgs(options.dataDir),
    log: (l) => lines.push(l),
    ...options,
  });
  const statuses: HostStatus[] = [];
  const infos: HostInfo[] = [];
  const events: ServiceEvent[] = [];
  host.on("status", (s) => statuses.push(s));
  host.on("info", (i) => infos.push(i));
  host.on("event", (e) => events.push(e));
  const waitFor = async <T>(read: () => T | undefined, ms = 15_000): Promise<T> => {
    const until = Date.now() + ms;
    for (;;) {
      const v = read();
      if (v !== undefined) return v;
      if (Date.now() > until)
        throw new Error(
          `timed out; statuses: ${JSON.stringify(statuses.map((s) => s.state))}\nhost log:\n${lines.join("\n")}\nchild output:\n${out}`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return {
    host,
    statuses,
    infos,
    events,
    lines,
    children,
    output: () => out,
    waitFor,
    waitStatus: (match: (s: HostStatus) => boolean, ms?: number, from = statuses.length) =>
      waitFor(() => statuses.slice(from).find(match), ms),
  };
}

export type ReadyStatus = Extract<HostStatus, { state: "ready" }>;
export const isReady = (s: HostStatus): s is ReadyStatus => s.state === "ready";

export interface Reply {
  status: number;
  json: unknown;
  text: string;
  headers: http.IncomingHttpHeaders;
}

/** One request to a service with a chosen `Host`, `Origin` and cookies. */
export function request(
  base: string,
  method: string,
  path: string,
  opts: { host?: string; body?: unknown; raw?: Buffer; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const url = new URL(path, base);
  const headers: Record<string, string> = { host: opts.host ?? url.host, ...opts.headers };
  if (method !== "GET" && method !== "HEAD") headers.origin ??= `http://${opts.host ?? url.host}`;
  let payload: Buffer | undefined = opts.raw;
  if (opts.body !== undefined) {
    payload = Buffer.from(JSON.stringify(opts.body));
    headers["content-type"] = "application/json";
  }
  if (payload) headers["content-length"] = String(payload.length);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method, path: url.pathname + url.search, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json, text, headers: res.headers });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** `name=value` pairs of a reply's Set-Cookie, for the next request's Cookie header. */
export function cookiesOf(reply: Reply): string {
  return (reply.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]).join("; ");
}
