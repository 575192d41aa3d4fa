import { readFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort, refusedPort } from "../helpers/free-ports.js";

/**
 * Connects and answers how it went: "connected" or the error's code. A socket connected to
 * itself does not count: the kernel may pick the port itself as the new socket's source (about
 * one connection in 40,000 here), and TCP then connects the socket to itself with no listener
 * (a run failed so); that connection is tried again.
 */
async function tryConnect(port: number): Promise<string> {
  for (;;) {
    const answer = await new Promise<string>((done) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        const self = socket.localPort === port;
        socket.destroy();
        done(self ? "self" : "connected");
      });
      socket.once("error", (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
    });
    if (answer !== "self") return answer;
  }
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

// A handed-out port must stay free until the program it is for listens on it: no listener on
// port 0 (another worker's fake core, say) and no other process of this or another run may
// take it meanwhile (a fresh-clone run failed once because one did).
describe("freePort", () => {
  it.runIf(process.platform === "linux")(
    "comes from below the ephemeral range, claimed for this process on the machine",
    async () => {
      const ephemeralLow = Number(
        readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").split(/\s+/)[0],
      );
      // In the machine's temporary folder, which a second run shares; not in this run's own.
      const machineTmp = process.env.GATEHOUSE_MACHINE_TMP ?? tmpdir();
      if (process.env.GATEHOUSE_MACHINE_TMP !== undefined) expect(tmpdir()).not.toBe(machineTmp);
      const ports = [await freePort(), await freePort(), await freePort()];
      expect(new Set(ports).size).toBe(3);
      for (const port of ports) {
        expect(port).toBeLessThan(ephemeralLow);
        const claim = readFileSync(join(machineTmp, "gatehouse-test-ports", String(port)), "utf8");
        expect(Number(claim)).toBe(process.pid);
        expect(await tryListen(port, "127.0.0.1")).toBe("listening");
      }
    },
  );
});
