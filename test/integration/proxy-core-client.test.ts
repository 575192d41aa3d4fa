import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  CoreApiError,
  CoreTimeoutError,
  CoreUnreachableError,
} from "../../server/proxy/core/errors.js";
import { MihomoClient } from "../../server/proxy/core/mihomo-client.js";
import { NdjsonSplitter } from "../../server/proxy/core/ndjson.js";
import { refusedPort } from "../helpers/free-ports.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server | null = null;
const seen: Array<{ method: string; url: string; auth: string; body: string }> = [];

async function serve(handler: Handler): Promise<number> {
  seen.length = 0;
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        auth: req.headers.authorization ?? "",
        body,
      });
      handler(req, res);
    });
  });
  await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
  return (server?.address() as AddressInfo).port;
}

afterEach(async () => {
  const s = server;
  server = null;
  if (!s) return;
  s.closeAllConnections();
  await new Promise((r) => s.close(r));
});

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

describe("MihomoClient", () => {
  it("sends the Bearer secret and reads the version", async () => {
    const port = await serve((_req, res) => json(res, 200, { meta: true, version: "v1.19.2" }));
    const client = new MihomoClient({ port, secret: "abc" });
    expect(await client.version()).toBe("v1.19.2");
    expect(seen[0]).toMatchObject({ method: "GET", url: "/version", auth: "Bearer abc" });
  });

  it("throws CoreApiError with the core's message, never returning the error body", async () => {
    const port = await serve((_req, res) => json(res, 401, { message: "Unauthorized" }));
    const client = new MihomoClient({ port, secret: "wrong" });
    const err = await client.proxies().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreApiError);
    expect((err as CoreApiError).status).toBe(401);
    expect((err as CoreApiError).message).toBe("Unauthorized");
  });

  it("throws CoreUnreachableError when nothing listens", async () => {
    const client = new MihomoClient({ port: await refusedPort(), secret: "" });
    await expect(client.version(1000)).rejects.toBeInstanceOf(CoreUnreachableError);
  });

  it("throws CoreTimeoutError at the call's deadline", async () => {
    const port = await serve(() => undefined); // never answers
    const client = new MihomoClient({ port, secret: "" });
    const started = Date.now();
    await expect(client.version(150)).rejects.toBeInstanceOf(CoreTimeoutError);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("normalises connections: null to an empty list", async () => {
    const port = await serve((_req, res) =>
      json(res, 200, { downloadTotal: 10, uploadTotal: 5, memory: 1, connections: null }),
    );
    const c = await new MihomoClient({ port, secret: "" }).connections();
    expect(c).toMatchObject({ downloadTotal: 10, uploadTotal: 5, connections: [] });
  });

  it("URL-encodes provider and node in healthcheck and clamps the int16 timeout", async () => {
    const port = await serve((_req, res) => json(res, 200, { delay: 42 }));
    const client = new MihomoClient({ port, secret: "" });
    const delay = await client.healthcheck("sub-x", "[abc] HK/1 #2", "https://t.example/", 50_000);
    expect(delay).toBe(42);
    const url = new URL(seen[0].url, "http://x");
    expect(url.pathname).toBe("/providers/proxies/sub-x/%5Babc%5D%20HK%2F1%20%232/healthcheck");
    expect(url.searchParams.get("timeout")).toBe("32767");
    expect(url.searchParams.get("url")).toBe("https://t.example/");
  });

  it("selects with PUT /proxies/{group} and reports a refused member as 400", async () => {
    const port = await serve((req, res) => {
      if ((JSON.parse(seen[seen.length - 1].body) as { name: string }).name === "nope") {
        json(res, 400, { message: "Selector update error: Proxy does not exist" });
      } else {
        res.writeHead(204).end();
      }
      void req;
    });
    const client = new MihomoClient({ port, secret: "" });
    await client.selectProxy("PROXY", "[a] HK 1");
    expect(seen[0]).toMatchObject({ method: "PUT", url: "/proxies/PROXY" });
    expect(JSON.parse(seen[0].body)).toEqual({ name: "[a] HK 1" });
    const err = await client.selectProxy("PROXY", "nope").catch((e: unknown) => e);
    expect((err as CoreApiError).status).toBe(400);
  });

  it("puts configs with force and a path", async () => {
    const port = await serve((_req, res) => res.writeHead(204).end());
    await new MihomoClient({ port, secret: "" }).putConfigs({ path: "/x/config.yaml" }, true);
    expect(seen[0]).toMatchObject({ method: "PUT", url: "/configs?force=true" });
    expect(JSON.parse(seen[0].body)).toEqual({ path: "/x/config.yaml" });
  });

  it("streams NDJSON records split across chunks and stops on abort", async () => {
    const port = await serve((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write('{"type":"info","pay');
      setTimeout(() => res.write('load":"one"}\n{"type":"warning",'), 20);
      setTimeout(() => res.write('"payload":"two"}\n'), 40);
    });
    const client = new MihomoClient({ port, secret: "" });
    const items: unknown[] = [];
    const abort = new AbortController();
    const done = client.logs(
      "info",
      (item) => {
        items.push(item);
        if (items.length === 2) abort.abort();
      },
      { signal: abort.signal },
    );
    await expect(done).resolves.toBeUndefined();
    expect(items).toEqual([
      { type: "info", payload: "one" },
      { type: "warning", payload: "two" },
    ]);
    expect(seen[0].url).toBe("/logs?level=info");
  });

  it("rejects a stream the core breaks off", async () => {
    const port = await serve((req, res) => {
      res.writeHead(200);
      res.write('{"up":1,"down":2}\n');
      setTimeout(() => req.socket.destroy(), 30);
    });
    const items: unknown[] = [];
    const err = await new MihomoClient({ port, secret: "" })
      .traffic((i) => items.push(i))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreUnreachableError);
    expect(items).toEqual([{ up: 1, down: 2 }]);
  });
});

describe("NdjsonSplitter", () => {
  it("joins records across chunks, even inside a multi-byte character", () => {
    const s = new NdjsonSplitter();
    const bytes = new TextEncoder().encode('{"a":"é"}\n{"b":2}\n{"c":3}');
    const cut = bytes.indexOf(0xc3) + 1; // split the two bytes of é
    expect(s.push(bytes.subarray(0, cut))).toEqual([]);
    expect(s.push(bytes.subarray(cut))).toEqual([{ a: "é" }, { b: 2 }]);
    expect(s.end()).toEqual([{ c: 3 }]);
  });

  it("skips a malformed line and carries on", () => {
    const s = new NdjsonSplitter();
    expect(s.push(new TextEncoder().encode('not json\n{"ok":1}\n'))).toEqual([{ ok: 1 }]);
  });
});
