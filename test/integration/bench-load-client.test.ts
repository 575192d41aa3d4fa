import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentFor, call, Recorder } from "../../bench/load-client.js";

/**
 * The load benchmark's client sends a request again only when the server closed the reused
 * keep-alive connection before any answer (as browsers and curl do); every other failure is
 * an error in its report.
 */

let server: http.Server;
let url: string;
/** Requests seen per connection; `drop(n)` destroys the connection on its n-th request. */
let drop: (nth: number) => boolean;
const seen = new WeakMap<Socket, number>();

beforeEach(async () => {
  drop = () => false;
  server = http.createServer((req, res) => {
    const nth = (seen.get(req.socket) ?? 0) + 1;
    seen.set(req.socket, nth);
    if (drop(nth)) {
      req.socket.destroy();
      return;
    }
    res.end(`answer ${nth}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("bench load client", () => {
  it("sends again, once, a request whose reused connection the server closed unanswered", async () => {
    const agent = agentFor(1);
    drop = (nth) => nth === 2;
    const rec = new Recorder("r");
    const first = await call(url, { agent, keep: true });
    expect(first.retried).toBe(false);
    const second = await call(url, { agent, keep: true });
    expect(second.retried).toBe(true);
    // The second try went out on a new connection: it is that connection's first request.
    expect(second.body.toString()).toBe("answer 1");
    rec.answer(first);
    rec.answer(second);
    expect(rec.summary()).toMatchObject({ count: 2, errors: 0, retried: 1 });
    agent.destroy();
  });

  it("does not hide a connection closed on its first request: that is an error", async () => {
    const agent = agentFor(1);
    drop = (nth) => nth === 1;
    const rec = new Recorder("r");
    await call(url, { agent }).then(
      () => expect.unreachable(),
      (err: unknown) => rec.socketError(err),
    );
    expect(rec.summary()).toMatchObject({ count: 0, errors: 1, reasons: { ECONNRESET: 1 } });
    agent.destroy();
  });

  it("sends a request again at most once", async () => {
    const agent = agentFor(1);
    // The kept connection is dropped on its second request, and so is the new one's first.
    let requests = 0;
    drop = () => ++requests >= 2;
    await call(url, { agent });
    await expect(call(url, { agent })).rejects.toMatchObject({ code: "ECONNRESET" });
    expect(requests).toBe(3);
    agent.destroy();
  });
});
