import express from "express";
import http from "node:http";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { BodyBudget, budgetedJson, processBodyBudget } from "../../server/http/body-budget.js";
import { errorHandler } from "../../server/http/errors.js";
import { closeServer, listen } from "../../server/listeners.js";
import { startParcel, type Harness } from "../helpers/parcel-harness.js";

const MiB = 1024 * 1024;
const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});

interface Held {
  socket: net.Socket;
  /** The whole answer once the service closed the connection or answered. */
  answer: Promise<string>;
}

/**
 * A request that declares `declared` bytes of JSON and sends only `sent` of them, from
 * `from` (a loopback address: 127.0.0.2 is another device to the service).
 */
function holdBody(
  port: number,
  path: string,
  declared: number,
  sent: number,
  { from = "127.0.0.1", headers = "" } = {},
): Promise<Held> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: "127.0.0.1", localAddress: from }, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}` +
          `Content-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
      );
      socket.write(Buffer.alloc(sent, 0x20));
      const chunks: Buffer[] = [];
      socket.on("data", (c: Buffer) => chunks.push(c));
      const answer = new Promise<string>((done) => {
        socket.on("close", () => done(Buffer.concat(chunks).toString("latin1")));
      });
      open.push({ close: () => socket.destroy() });
      resolve({ socket, answer });
    });
    socket.on("error", reject);
  });
}

/** A whole small JSON request; its status and body. */
async function post(port: number, path: string, body: unknown, from = "127.0.0.1") {
  const data = JSON.stringify(body);
  return new Promise<{
    status: number;
    body: Record<string, unknown>;
    headers: http.IncomingHttpHeaders;
  }>((resolve, reject) => {
    const req = http.request(
      { port, host: "127.0.0.1", localAddress: from, method: "POST", path, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}"),
            headers: res.headers,
          }),
        );
      },
    );
    req.on("error", reject);
    req.setHeader("content-type", "application/json");
    req.end(data);
  });
}

/** An app that echoes the JSON it read, behind `budgetedJson` with its own budget. */
async function echoApp(budget: BodyBudget): Promise<number> {
  const app = express();
  app.post("/echo", budgetedJson(MiB, budget), (req, res) => void res.json({ got: req.body }));
  app.use(errorHandler(() => undefined));
  const server = http.createServer(app);
  const port = await listen(server, 0, "127.0.0.1");
  open.push({ close: () => closeServer(server) });
  return port;
}

describe("JSON bodies within a budget and a deadline", () => {
  it("refuses a body over the client's share at once (503, Retry-After), lets another device in, and frees the share when bodies end", async () => {
    const budget = new BodyBudget({
      totalBytes: 3 * MiB,
      perClientBytes: 2 * MiB,
      deadlineMs: 60_000,
    });
    const port = await echoApp(budget);
    const held = [await holdBody(port, "/echo", MiB, 100), await holdBody(port, "/echo", MiB, 100)];
    await expect.poll(() => budget.inUse().total).toBe(2 * MiB);
    // The same device: its share is spent, even for a small body; said before a byte is read.
    const refused = await post(port, "/echo", { a: 1 });
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe("request.busy");
    expect(refused.headers["retry-after"]).toBe("5");
    // Another device still gets through, up to what is left of the whole.
    expect((await post(port, "/echo", { b: 2 }, "127.0.0.2")).body).toEqual({ got: { b: 2 } });
    const third = await holdBody(port, "/echo", MiB, 10, { from: "127.0.0.3" });
    await expect.poll(() => budget.inUse().total).toBe(3 * MiB);
    expect((await post(port, "/echo", { c: 3 }, "127.0.0.4")).status).toBe(503);
    // Bodies that end (here: the client gives up) give their share back.
    for (const h of [...held, third]) h.socket.destroy();
    await expect.poll(() => budget.inUse()).toEqual({ total: 0, clients: 0 });
    expect((await post(port, "/echo", { a: 1 })).body).toEqual({ got: { a: 1 } });
  });

  it("answers a body that does not arrive in time 408 and closes its connection", async () => {
    const budget = new BodyBudget({
      totalBytes: 8 * MiB,
      perClientBytes: 4 * MiB,
      deadlineMs: 300,
    });
    const port = await echoApp(budget);
    const slow = await holdBody(port, "/echo", 1000, 10);
    const answer = await slow.answer;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"code":"request.body_timeout"');
    expect(budget.inUse().total).toBe(0);
    // A body that arrives whole in time is read as before.
    expect((await post(port, "/echo", { fine: true })).body).toEqual({ got: { fine: true } });
  });

  it("holds the services' JSON routes to the process's budget: a fifth unfinished 1 MiB body from one device is refused", async () => {
    const h: Harness = await startParcel();
    open.push({ close: () => h.close(true) });
    const origin = `Origin: ${h.origin}\r\n`;
    const held: Held[] = [];
    for (let i = 0; i < 4; i++) {
      held.push(await holdBody(h.port, "/api/v1/pickup/resolve", MiB, 64, { headers: origin }));
    }
    await expect.poll(() => processBodyBudget.inUse().total).toBe(4 * MiB);
    const fifth = await holdBody(h.port, "/api/v1/pickup/resolve", MiB, 64, { headers: origin });
    expect(await fifth.answer).toMatch(/^HTTP\/1\.1 503 [^]*"code":"request.busy"/);
    for (const x of held) x.socket.destroy();
    await expect.poll(() => processBodyBudget.inUse()).toEqual({ total: 0, clients: 0 });
    const r = await h.request("POST", "/api/v1/pickup/resolve", { body: { code: "ZZ0000" } });
    expect(r.status).toBe(404);
  });
});

/** A connection that sends nothing; resolves with how long it stayed open. */
function silentFor(port: number): Promise<number> {
  const began = Date.now();
  const socket = net.connect({ port, host: "127.0.0.1" });
  open.push({ close: () => socket.destroy() });
  return new Promise((done) => socket.on("close", () => done(Date.now() - began)));
}

describe("connections that say nothing", () => {
  it("are closed after the idle time; one whose request is under way is not", async () => {
    let finish: () => void = () => undefined;
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first part ");
      finish = () => res.end("end");
    });
    const port = await listen(server, 0, "127.0.0.1", 200);
    open.push({ close: () => closeServer(server) });
    const busy = http.get({ port, host: "127.0.0.1", agent: false, path: "/" });
    const res = await new Promise<http.IncomingMessage>((done) => busy.on("response", done));
    const body: Buffer[] = [];
    res.on("data", (c: Buffer) => body.push(c));
    // Two silent connections in turn, each closed after its idle time: the request under way,
    // idle as long as both together, is still open, and ends whole.
    for (let i = 0; i < 2; i++) {
      const lasted = await silentFor(port);
      expect(lasted).toBeGreaterThanOrEqual(150);
      expect(lasted).toBeLessThan(5_000);
    }
    expect(res.socket.destroyed).toBe(false);
    finish();
    await new Promise((r) => res.on("end", r));
    expect(Buffer.concat(body).toString()).toBe("first part end");
  });
});
