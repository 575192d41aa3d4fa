import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../server/clock.js";
import { openDatabase, type Db } from "../../server/db/open.js";
import type { ParcelServiceOptions } from "../../server/parcel/context.js";
import type { AuditRecord } from "../../server/parcel/repos/audit.js";
import { createRepos, type ParcelRepos } from "../../server/parcel/repos/index.js";
import { createParcelService, type ParcelService } from "../../server/parcel/service.js";

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Parsed JSON body (undefined when not JSON). */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body (Buffer) sent as-is, with Content-Length unless `chunked`. */
  raw?: Buffer;
  chunked?: boolean;
  headers?: Record<string, string | undefined>;
  /** Sends no Origin header on a state-changing request. */
  noOrigin?: boolean;
  /** Use this cookie jar instead of the harness default one. */
  jar?: CookieJar;
}

/** Cookie jar keyed by cookie name (the services set only Path=/ host-only cookies). */
export class CookieJar {
  readonly cookies = new Map<string, string>();
  header(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  take(setCookie: string[] | undefined): void {
    for (const line of setCookie ?? []) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const maxAge = attrs.map((a) => a.trim()).find((a) => a.toLowerCase().startsWith("max-age="));
      if (value === "" || maxAge?.toLowerCase() === "max-age=0") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

export interface Harness {
  service: ParcelService;
  /**
   * The test's own connection to the service's database file, for looking inside and for
   * setting up states no request can reach (the service itself reaches it only through its
   * repositories).
   */
  db: Db;
  /**
   * The service's repositories over the test's own connection: how a test reads what was
   * stored (parcels, files, the audit log) without writing SQL of its own.
   */
  repos: ParcelRepos;
  clock: ManualClock;
  dataDir: string;
  port: number;
  /** The entry origin the harness talks through (`http://127.0.0.1:<port>`). */
  origin: string;
  /** How many client connections the service's server holds open now. */
  openConnections(): Promise<number>;
  jar: CookieJar;
  request(method: string, path: string, options?: RequestOptions): Promise<Reply>;
  /** Stops the service (keeps the data dir unless `wipe`). */
  close(wipe?: boolean): Promise<void>;
  /** Stops and starts a new service on the same data dir and port (a restart). */
  restart(): Promise<Harness>;
}

const PORT_PLACEHOLDER = "PORT";

/**
 * Starts the real parcel service on 127.0.0.1, port 0, with a temporary data dir and a
 * manual clock. `entries` may contain `PORT`, replaced by the real port.
 */
export async function startParcel(
  opts: Partial<ParcelServiceOptions> & {
    entries?: string[];
    dataDir?: string;
    port?: number;
    clock?: ManualClock;
  } = {},
): Promise<Harness> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "gatehouse-parcel-"));
  const clock = opts.clock ?? new ManualClock(Date.UTC(2026, 0, 1, 12));
  // Listen first so the real port can go into the entries.
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const entries = (
    opts.entries ?? [`http://127.0.0.1:${PORT_PLACEHOLDER}`, `http://localhost:${PORT_PLACEHOLDER}`]
  ).map((e) => e.replace(PORT_PLACEHOLDER, String(port)));
  const service = await createParcelService({
    adminPassword: "admin-password-1",
    cleanupIntervalMs: 0,
    reclaimDelayMs: 20,
    log: () => undefined,
    ...opts,
    dataDir,
    clock,
    entries,
  });
  server.on("request", service.app);
  const origin = `http://127.0.0.1:${port}`;
  const jar = new CookieJar();

  const request = (method: string, path: string, o: RequestOptions = {}): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const cookieJar = o.jar ?? jar;
      const headers: Record<string, string> = { host: `127.0.0.1:${port}` };
      if (!["GET", "HEAD"].includes(method) && !o.noOrigin) headers.origin = origin;
      const cookie = cookieJar.header();
      if (cookie) headers.cookie = cookie;
      let payload: Buffer | undefined;
      if (o.raw) payload = o.raw;
      else if (o.body !== undefined) {
        payload = Buffer.from(typeof o.body === "string" ? o.body : JSON.stringify(o.body));
        headers["content-type"] = "application/json";
      }
      if (payload && !o.chunked) headers["content-length"] = String(payload.length);
      if (payload && o.chunked) headers["transfer-encoding"] = "chunked";
      for (const [k, v] of Object.entries(o.headers ?? {})) {
        if (v === undefined) delete headers[k.toLowerCase()];
        else headers[k.toLowerCase()] = v;
      }
      const req = http.request(
        { host: "127.0.0.1", port, method, path: `/api/v1${path}`, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            cookieJar.take(res.headers["set-cookie"]);
            const body = Buffer.concat(chunks);
            const text = body.toString("utf8");
            let json: unknown;
            if ((res.headers["content-type"] ?? "").includes("application/json")) {
              try {
                json = JSON.parse(text);
              } catch {
                json = undefined;
              }
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json, text });
          });
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      if (payload) req.end(payload);
      else req.end();
    });

  const db = openDatabase(join(dataDir, "parcel", "parcel.db"));
  const harness: Harness = {
    service,
    db,
    repos: createRepos(db),
    clock,
    dataDir,
    port,
    origin,
    openConnections: () =>
      new Promise((resolve, reject) =>
        server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
      ),
    jar,
    request,
    async close(wipe = false) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (db.open) db.close();
      await service.close();
      if (wipe) rmSync(dataDir, { recursive: true, force: true });
    },
    async restart() {
      await harness.close(false);
      return startParcel({ ...opts, dataDir, port, clock });
    },
  };
  return harness;
}

/** A file's state and content hash as stored, read through the parcels repository. */
export function fileState(
  h: Harness,
  fileId: string,
): { state: string; sha256: string | null } | undefined {
  const f = h.repos.parcels.file(fileId);
  return f && { state: f.state, sha256: f.sha256 };
}

/** The audit records of one action, oldest first, read through the audit repository. */
export function auditOf(h: Harness, action: string): AuditRecord[] {
  return h.repos.audit.page({ action }, { page: 1, pageSize: 1000 }).items.slice().reverse();
}
