import { describe, expect, it } from "vitest";
import { execFileSync, spawn } from "node:child_process";
import { createSocket } from "node:dgram";
import { createServer } from "node:http";
import { connect } from "node:net";
import { Worker } from "node:worker_threads";
// The unit run loads this as a setup file; imported here too, so the test holds under any config.
import "../unit-purity.js";

describe("the unit run's purity guard", () => {
  const outWay = /Move this file to test\/integration/;

  it("refuses a process, named or from the module object", () => {
    expect(() => execFileSync("true")).toThrow(outWay);
    expect(() => spawn("true")).toThrow(outWay);
  });

  it("refuses listening, connecting and fetching", async () => {
    expect(() => createServer().listen(0, "127.0.0.1")).toThrow(outWay);
    expect(() => connect({ host: "127.0.0.1", port: 0 })).toThrow(outWay);
    // Never dialled: the guard refuses before any name lookup.
    const failure = await fetch("http://gatehouse.invalid/").catch((err: Error) => err);
    expect(String((failure as Error & { cause?: unknown }).cause)).toMatch(outWay);
  });

  it("refuses UDP sockets and worker threads", () => {
    expect(() => createSocket("udp4")).toThrow(outWay);
    expect(() => new Worker("0", { eval: true })).toThrow(outWay);
  });
});
