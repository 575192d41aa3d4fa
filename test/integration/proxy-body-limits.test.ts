import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoreApiError } from "../../server/proxy/core/errors.js";
import { MihomoClient } from "../../server/proxy/core/mihomo-client.js";
import { FakeCore, startProxy, type ProxyHarness } from "./proxy-api-harness.js";

/**
 * Bodies read from the network into memory have a limit: a server that sends a huge body (here
 * 128 MiB, as fast as loopback goes) where a checksum, a release document, an error of the core
 * or one line of its log is expected gets the request refused with a sentence, after the
 * service read no more than the limit (the server counts what it could send), and the service's
 * memory does not grow with the body.
 */

const HUGE = 128 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, "a");

interface Sent {
  bytes: number;
  done: Promise<void>;
}

/** A server whose routes answer `head`, then filler up to 128 MiB (or until the client goes). */
class HugeServer {
  readonly sent = new Map<string, Sent>();
  private server = http.createServer((req, res) => this.answer(req, res));
  port = 0;

  constructor(private readonly routes: Record<string, { status: number; head: string }>) {}

  async listen(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.port = (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = (req.url ?? "").split("?")[0];
    const route = this.routes[path];
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    let finish!: () => void;
    const record: Sent = { bytes: 0, done: new Promise((r) => (finish = r)) };
    this.sent.set(path, record);
    res.writeHead(route.status, { "content-type": "application/octet-stream" });
    res.write(route.head);
    let gone = false;
    res.on("close", () => {
      gone = true;
      finish();
    });
    const pump = (): void => {
      while (!gone && record.bytes < HUGE) {
        record.bytes += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once("drain", pump);
      }
      if (!gone) res.end();
    };
    pump();
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** The JavaScript heap and the buffers outside it: what holding a body would fill. */
function held(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

/**
 * Runs `work` and answers the most the process's memory grew while it ran (MiB), sampled every
 * few milliseconds: a body held whole shows up even when it is let go at the end.
 */
async function growth<T>(work: () => Promise<T>): Promise<{ result: T; mib: number }> {
  const before = held();
  let peak = before;
  const sample = setInterval(() => (peak = Math.max(peak, held())), 2);
  try {
    const result = await work();
    peak = Math.max(peak, held());
    return { result, mib: (peak - before) / 1048576 };
  } finally {
    clearInterval(sample);
  }
}

let huge: HugeServer;
let h: ProxyHarness;

beforeAll(async () => {
  huge = new HugeServer({
    "/geo/geoip.metadb.sha256sum": { status: 200, head: "" },
    "/geo/geosite.dat.sha256sum": { status: 200, head: "" },
    "/release": { status: 200, head: '{"tag_name":"v1.19.9","html_url":"' },
    "/version": { status: 400, head: '{"message":"' },
    "/logs": { status: 200, head: '{"type":"info","payload":"' },
  });
  await huge.listen();
  h = await startProxy({
    core: new FakeCore(),
    geodataURL: `${huge.url}/geo`,
    coreReleaseURL: `${huge.url}/release`,
  });
  await h.setup();
});

afterAll(async () => {
  await h.close();
  await huge.close();
});

/** What the server could send before the service stopped reading (kernel buffers included). */
async function sentTo(path: string): Promise<number> {
  await expect.poll(() => huge.sent.has(path), { timeout: 5000 }).toBe(true);
  const record = huge.sent.get(path) as Sent;
  await record.done;
  return record.bytes;
}

describe("a huge body where a small one is expected", () => {
  it("the geodata checksum file: 400 geodata.too_large, naming the file", async () => {
    const { result: r, mib } = await growth(() =>
      h.request("POST", "/system/geodata/update", { body: {} }),
    );
    expect(r.status, r.text).toBe(400);
    expect(r.json.code).toBe("geodata.too_large");
    expect(r.json.params.file).toMatch(/^geo(ip\.metadb|site\.dat)\.sha256sum$/);
    expect(r.json.error).toMatch(/larger than 64 KiB, so it is not a checksum file/);
    const path = `/geo/${r.json.params.file}`;
    expect(await sentTo(path)).toBeLessThan(16 * 1024 * 1024);
    expect(mib).toBeLessThan(48);
  });

  it("the update check's release document: 502 updates.too_large", async () => {
    const { result: r, mib } = await growth(() => h.request("GET", "/system/updates"));
    expect(r.status, r.text).toBe(502);
    expect(r.json.code).toBe("updates.too_large");
    expect(r.json.error).toMatch(/larger than 4 MiB/);
    expect(await sentTo("/release")).toBeLessThan(20 * 1024 * 1024);
    expect(mib).toBeLessThan(48);
  });

  it("an error answer of the core's controller: its message cut short, the rest unread", async () => {
    const client = new MihomoClient({ port: huge.port, secret: "s", defaultTimeoutMs: 20_000 });
    const { result: err, mib } = await growth(() => client.version().catch((e: unknown) => e));
    expect(err).toBeInstanceOf(CoreApiError);
    expect((err as CoreApiError).status).toBe(400);
    expect((err as CoreApiError).message.length).toBeLessThanOrEqual(500);
    expect(await sentTo("/version")).toBeLessThan(16 * 1024 * 1024);
    expect(mib).toBeLessThan(48);
  });

  it("one line of the core's log stream that never ends: dropped as it comes", async () => {
    const client = new MihomoClient({ port: huge.port, secret: "s" });
    const items: unknown[] = [];
    const abort = new AbortController();
    const { mib } = await growth(async () => {
      const reading = client.logs("info", (item) => items.push(item), { signal: abort.signal });
      // The whole 128 MiB is read this time (it is a stream), a piece at a time.
      await sentTo("/logs");
      abort.abort();
      await reading.catch(() => undefined);
    });
    expect(items).toEqual([]);
    // Chunks decoded and dropped are garbage until the next collection; a held line is 128 MiB.
    expect(mib).toBeLessThan(96);
  });
});
