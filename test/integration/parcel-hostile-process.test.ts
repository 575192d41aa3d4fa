import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chunk, putHead, rawExchange, type RawStep } from "../helpers/raw-http.js";
import { serviceEntryArgs } from "../helpers/service-entry.js";

/**
 * The real headless service as a child process (`server/cli.ts`, parcel only): a client that
 * misbehaves mid-transfer must never end the process, whatever it does to the connection.
 */

let proc: ChildProcess;
let port = 0;
let dataDir = "";
let stderr = "";
let exit: { code: number | null; signal: string | null } | null = null;

interface Answer {
  status: number;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function call(
  method: string,
  path: string,
  opts: { body?: unknown; raw?: Buffer; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      host: `127.0.0.1:${port}`,
      origin: `http://127.0.0.1:${port}`,
      ...opts.headers,
    };
    let payload: Buffer | undefined = opts.raw;
    if (opts.body !== undefined) {
      payload = Buffer.from(JSON.stringify(opts.body));
      headers["content-type"] = "application/json";
    }
    if (payload) headers["content-length"] = String(payload.length);
    const req = http.request(
      { host: "127.0.0.1", port, method, path: `/api/v1${path}`, headers, agent: false },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (c: Buffer) => parts.push(c));
        res.on("end", () => {
          const body = Buffer.concat(parts);
          let json: unknown;
          try {
            json = JSON.parse(body.toString("utf8"));
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json, headers: res.headers, body });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

interface Upload {
  id: string;
  token: string;
  files: Array<{ id: string; size: number }>;
}

async function declare(sizes: number[]): Promise<Upload> {
  const r = await call("POST", "/uploads", {
    body: { files: sizes.map((size, i) => ({ name: `f${i}.bin`, size })) },
  });
  expect(r.status).toBe(201);
  return { id: r.json.id, token: r.json.manage_token, files: r.json.files };
}

const auth = (u: Upload) => ({ authorization: `Bearer ${u.token}` });

async function fileState(u: Upload, index = 0): Promise<string> {
  const r = await call("GET", `/uploads/${u.id}`, { headers: auth(u) });
  expect(r.status).toBe(200);
  return r.json.files[index].state;
}

/** Polls until the file reaches `state` (the service settles a cut transfer asynchronously). */
async function fileBecomes(u: Upload, state: string): Promise<void> {
  const end = Date.now() + 5000;
  let now = await fileState(u);
  while (now !== state && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 20));
    now = await fileState(u);
  }
  expect(now).toBe(state);
}

async function expectAlive(): Promise<void> {
  expect(exit).toBeNull();
  const health = await call("GET", "/health");
  expect(health.status).toBe(200);
  expect(health.json.ok).toBe(true);
  expect(stderr).not.toMatch(/Unhandled|uncaught/i);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "gh-hostile-"));
  proc = spawn(
    process.execPath,
    [
      ...serviceEntryArgs(),
      "--parcel-only",
      "--host",
      "127.0.0.1",
      "--parcel-port",
      "0",
      "--data-dir",
      dataDir,
    ],
    {
      env: { ...process.env, GATEHOUSE_ADMIN_PASSWORD: "hostile-admin-1" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  proc.on("exit", (code, signal) => (exit = { code, signal }));
  proc.stderr?.on("data", (b: Buffer) => (stderr += b.toString()));
  let out = "";
  proc.stdout?.on("data", (b: Buffer) => (out += b.toString()));
  const end = Date.now() + 20_000;
  let m: RegExpExecArray | null = null;
  while (!(m = /parcel service listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out))) {
    if (exit || Date.now() > end) throw new Error(`service did not start:\n${out}\n${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  port = Number(m[1]);
});

afterAll(async () => {
  if (proc && !exit) {
    const done = new Promise((r) => proc.once("exit", r));
    proc.kill("SIGTERM");
    await done;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

type Hostile = (u: Upload) => RawStep[];

const body = (n: number) => Buffer.alloc(n, 0x5a);
const head = (u: Upload, extra: Record<string, string | number>) =>
  putHead(port, `/uploads/${u.id}/files/${u.files[0].id}`, {
    Authorization: `Bearer ${u.token}`,
    ...extra,
  });

/** Client behaviours against a declared 1000-byte file, and the answer they may get. */
const cases: Array<[string, Hostile, number | null]> = [
  [
    "400 of 1000 bytes, then half-close",
    (u) => [{ write: head(u, { "Content-Length": 1000 }) }, { write: body(400) }, { end: true }],
    400,
  ],
  [
    "0 of 1000 bytes, then half-close",
    (u) => [{ write: head(u, { "Content-Length": 1000 }) }, { end: true }],
    400,
  ],
  [
    "999 of 1000 bytes, then half-close",
    (u) => [{ write: head(u, { "Content-Length": 1000 }) }, { write: body(999) }, { end: true }],
    400,
  ],
  [
    "400 of 1000 bytes, then a reset",
    (u) => [
      { write: head(u, { "Content-Length": 1000 }) },
      { write: body(400) },
      { pause: 50 },
      { reset: true },
    ],
    null,
  ],
  [
    "head only, then an immediate reset",
    (u) => [{ write: head(u, { "Content-Length": 1000 }) }, { reset: true }],
    null,
  ],
  [
    "400 of 1000 bytes, then a close",
    (u) => [
      { write: head(u, { "Content-Length": 1000 }) },
      { write: body(400) },
      { pause: 50 },
      { destroy: true },
    ],
    null,
  ],
  [
    "Expect: 100-continue, then 400 bytes and a half-close",
    (u) => [
      { write: head(u, { "Content-Length": 1000, Expect: "100-continue" }) },
      { waitFor: /100 Continue/ },
      { write: body(400) },
      { end: true },
    ],
    400,
  ],
  [
    "chunked without a length, cut inside a chunk",
    (u) => [
      { write: head(u, { "Transfer-Encoding": "chunked" }) },
      { write: chunk(body(300)) },
      { write: "100\r\nabc" },
      { end: true },
    ],
    400,
  ],
  [
    "chunked without a length, ending properly after 400 bytes",
    (u) => [
      { write: head(u, { "Transfer-Encoding": "chunked" }) },
      { write: chunk(body(400)) },
      { write: "0\r\n\r\n" },
    ],
    400,
  ],
  [
    "chunked without a length, 1500 bytes",
    (u) => [
      { write: head(u, { "Transfer-Encoding": "chunked" }) },
      { write: chunk(body(800)) },
      { write: chunk(body(700)) },
      { write: "0\r\n\r\n" },
    ],
    413,
  ],
  [
    "a length over the declared size, then a half-close",
    (u) => [{ write: head(u, { "Content-Length": 5000 }) }, { write: body(400) }, { end: true }],
    413,
  ],
  [
    "400 bytes trickled in pieces, then a half-close",
    (u) => [
      { write: head(u, { "Content-Length": 1000 }) },
      ...Array.from({ length: 8 }, (): RawStep[] => [{ write: body(50) }, { pause: 5 }]).flat(),
      { end: true },
    ],
    400,
  ],
];

describe("the headless parcel service under hostile upload bodies", () => {
  it.each(cases)(
    "survives %s; the file is failed and retryable in full",
    async (_name, steps, status) => {
      const u = await declare([1000]);
      const reply = await rawExchange(port, steps(u));
      if (status !== null) expect(reply.status).toBe(status);
      await fileBecomes(u, "failed");
      await expectAlive();
      const retry = await call("PUT", `/uploads/${u.id}/files/${u.files[0].id}`, {
        raw: body(1000),
        headers: auth(u),
      });
      expect(retry.status).toBe(200);
      expect(retry.json.state).toBe("ready");
    },
  );

  it.each([400, 0, 999])(
    "survives %i of 1000 bytes and a half-close while the file system is slow to open the file",
    async (sent) => {
      const u = await declare([1000]);
      // Uploads with a password hash it with scrypt on libuv's thread pool, so opening the
      // temporary file waits in line and the client's close arrives before the file is open:
      // the moment where an unhandled stream error used to end the process.
      const busy = Array.from({ length: 8 }, () =>
        call("POST", "/uploads", { body: { files: [{ name: "x", size: 1 }], password: "pw" } }),
      );
      await new Promise((r) => setTimeout(r, 5));
      const reply = await rawExchange(port, [
        { write: head(u, { "Content-Length": 1000 }) },
        { write: body(sent) },
        { end: true },
      ]);
      await Promise.all(busy);
      expect(reply.status).toBe(400);
      await fileBecomes(u, "failed");
      await expectAlive();
    },
  );

  it("survives a large body aborted mid-pipe, while the disk is being written", async () => {
    const size = 16 * 1048576;
    const u = await declare([size]);
    const piece = Buffer.alloc(1048576, 1);
    await rawExchange(port, [
      { write: head(u, { "Content-Length": size }) },
      ...Array.from({ length: 6 }, (): RawStep => ({ write: piece })),
      { pause: 30 },
      { reset: true },
    ]);
    await fileBecomes(u, "failed");
    await expectAlive();
  });

  it("survives many cut transfers at once", async () => {
    const uploads = await Promise.all(Array.from({ length: 12 }, () => declare([1000])));
    await Promise.all(
      uploads.map((u, i) =>
        rawExchange(port, [
          { write: head(u, { "Content-Length": 1000 }) },
          { write: body(100 * (i % 9)) },
          i % 2 === 0 ? { end: true } : { reset: true },
        ]),
      ),
    );
    for (const u of uploads) await fileBecomes(u, "failed");
    await expectAlive();
  });
});

describe("the headless parcel service under hostile downloads", () => {
  const big = 8 * 1048576;

  async function published(): Promise<{ u: Upload; cookie: string }> {
    const u = await declare([big, big]);
    for (const f of u.files) {
      const r = await call("PUT", `/uploads/${u.id}/files/${f.id}`, {
        raw: Buffer.alloc(big, 7),
        headers: auth(u),
      });
      expect(r.status).toBe(200);
    }
    const pub = await call("POST", `/uploads/${u.id}/publish`, { headers: auth(u) });
    expect(pub.status).toBe(200);
    const resolved = await call("POST", "/pickup/resolve", { body: { code: pub.json.code } });
    expect(resolved.status).toBe(200);
    const cookie = (resolved.headers["set-cookie"] ?? [])[0].split(";")[0];
    return { u, cookie };
  }

  const left = async (u: Upload) =>
    (await call("GET", `/uploads/${u.id}`, { headers: auth(u) })).json.downloads_left as number;

  /** Reads the start of a body, then drops the connection the given way. */
  const cutDownload = (path: string, cookie: string, how: RawStep) =>
    rawExchange(port, [
      {
        write: `GET /api/v1${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${cookie}\r\n\r\n`,
      },
      { waitFor: /\r\n\r\n[\s\S]{1000}/ },
      how,
    ]);

  it("survives downloads and archives dropped mid-body; each cut transfer stays counted", async () => {
    const { u, cookie } = await published();
    const before = await left(u);
    await cutDownload(`/pickup/files/${u.files[0].id}/download`, cookie, { reset: true });
    await cutDownload(`/pickup/files/${u.files[1].id}/download`, cookie, { destroy: true });
    await cutDownload("/pickup/archive", cookie, { end: true });
    await cutDownload("/pickup/archive", cookie, { reset: true });
    await expectAlive();
    const end = Date.now() + 5000;
    while ((await left(u)) !== before - 4 && Date.now() < end)
      await new Promise((r) => setTimeout(r, 20));
    expect(await left(u)).toBe(before - 4);
    // HEAD consumes nothing, even when dropped at once.
    await rawExchange(port, [
      {
        write: `HEAD /api/v1/pickup/archive HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${cookie}\r\n\r\n`,
      },
      { reset: true },
    ]);
    await expectAlive();
    expect(await left(u)).toBe(before - 4);
    // A whole download still works afterwards.
    const whole = await call("GET", `/pickup/files/${u.files[0].id}/download`, {
      headers: { cookie },
    });
    expect(whole.status).toBe(200);
    expect(whole.body.length).toBe(big);
  });
});
