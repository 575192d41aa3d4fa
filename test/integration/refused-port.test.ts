import net from "node:net";
import { describe, expect, it } from "vitest";
import { refusedPort } from "../helpers/free-ports.js";

/** Connects once and answers how it went: "connected" or the error's code. */
function tryConnect(port: number): Promise<string> {
  return new Promise((done) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      done("connected");
    });
    socket.once("error", (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
  });
}

/** Tries to listen on the port and answers "listening" or the error's code. */
function tryListen(port: number, host: string): Promise<string> {
  return new Promise((done) => {
    const server = net.createServer();
    server.once("error", (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
    server.listen(port, host, () => server.close(() => done("listening")));
  });
}

// Tests that want "nobody there" (an unreachable release server, a core that is not running)
// rely on this: a merely free port can be taken by another test's listener in the meantime,
// which then answers instead of refusing (a fresh-clone run failed that way once).
describe("refusedPort", () => {
  it("refuses connections, and no listener can take it while the test runs", async () => {
    const port = await refusedPort();
    expect(await tryConnect(port)).toBe("ECONNREFUSED");
    expect(await tryListen(port, "127.0.0.1")).toBe("EADDRINUSE");
    expect(await tryListen(port, "0.0.0.0")).toBe("EADDRINUSE");
    expect(await tryConnect(port)).toBe("ECONNREFUSED");
  });

  it("hands out a different port each time", async () => {
    const ports = await Promise.all([refusedPort(), refusedPort(), refusedPort()]);
    expect(new Set(ports).size).toBe(3);
  });
});
