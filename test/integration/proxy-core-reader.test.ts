import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CoreReader,
  CoreReaderFault,
  lookupNeighbours,
} from "../../server/proxy/core/core-reader.js";
import {
  CoreApiError,
  CoreTimeoutError,
  CoreUnreachableError,
} from "../../server/proxy/core/errors.js";
import { MihomoClient } from "../../server/proxy/core/mihomo-client.js";
import { labelChains, labelChainsInPlace } from "../../server/proxy/domain/core-names.js";
import { liveColumns } from "../../server/proxy/domain/live-delays.js";
import { coreNodeName } from "../../server/proxy/types.js";
import { refusedPort } from "./proxy-core-harness.js";
import { StubController } from "./proxy-core-stub.js";

const A = "2f00b452053b30d98c0a41c9";
const SUBS = [{ id: A, name: "Provider A" }];

let stub: StubController | null = null;
let reader: CoreReader | null = null;
const servers: http.Server[] = [];
afterEach(async () => {
  await reader?.close();
  await stub?.stop();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  reader = null;
  stub = null;
});

function connection(id: string, host: string, node = "Tokyo") {
  return {
    id,
    metadata: { host, destinationPort: "443", sourceIP: "192.168.1.5" },
    upload: 10,
    download: 2000,
    start: "2026-01-01T00:00:00Z",
    chains: [coreNodeName(A, node), "AUTO", "PROXY"],
    rule: "Match",
    rulePayload: "",
  };
}

async function withStub(): Promise<{
  stub: StubController;
  target: { host: string; port: number; secret: string };
}> {
  stub = new StubController();
  stub.secret = "s3cret";
  const port = await stub.start();
  return { stub, target: { host: "127.0.0.1", port, secret: "s3cret" } };
}

/** A controller that answers `/connections` with `body`, once `release` is called if held. */
async function rawCore(body: () => string, hold = false) {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  let asked = 0;
  const server = http.createServer((_req, res) => {
    asked++;
    void (hold ? gate : Promise.resolve()).then(() => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body());
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return { port, release, asked: () => asked };
}

describe("labelChainsInPlace", () => {
  it("makes the same JSON as labelChains, key for key, odd connections included", () => {
    const view = () => ({
      downloadTotal: 1,
      uploadTotal: 2,
      memory: 3,
      connections: [
        connection("a", "x.example"),
        { ...connection("b", "y.example"), chainLabels: "the core's own", extra: 1 },
        { ...connection("c", "z.example"), chains: "not a list" as unknown as string[] },
        { id: "d", metadata: {}, upload: 0, download: 0, start: "", rule: "", rulePayload: "" },
        {
          ...connection("e", "w.example"),
          chains: [coreNodeName("b".repeat(24), "Gone"), "REJECT"],
        },
      ],
    });
    const copy = JSON.stringify(labelChains(view() as never, SUBS));
    expect(JSON.stringify(labelChainsInPlace(view() as never, SUBS))).toBe(copy);
  });
});

describe("the core reader", () => {
  it("writes the core's connections with chain labels, the same text res.json wrote", async () => {
    const { stub, target } = await withStub();
    stub.uploadTotal = 5;
    stub.downloadTotal = 7;
    stub.connections = [
      connection("c1", "example.com"),
      { ...connection("c2", "x"), chains: ["DIRECT"] },
    ];
    reader = new CoreReader();
    const lent = await reader.readConnections({
      kind: "connections",
      target,
      timeoutMs: 5000,
      subscriptions: SUBS,
    });
    const expected = labelChains(await new MihomoClient(target).connections(), SUBS);
    expect(lent.body.toString("utf8")).toBe(JSON.stringify(expected));
    expect(JSON.parse(lent.body.toString("utf8")).connections[0].chainLabels[0]).toEqual({
      name: "Tokyo",
      subscription: "Provider A",
    });
    lent.release();
  });

  it("keeps a lent answer's bytes while later answers are read, and reuses its memory once released", async () => {
    const { stub, target } = await withStub();
    const job = { kind: "connections" as const, target, timeoutMs: 5000, subscriptions: SUBS };
    reader = new CoreReader();
    stub.connections = Array.from({ length: 200 }, (_, i) =>
      connection(`a${i}`, `first-${i}.example`),
    );
    const first = await reader.readConnections(job);
    const firstText = first.body.toString("utf8");
    stub.connections = Array.from({ length: 300 }, (_, i) =>
      connection(`b${i}`, `second-${i}.example`),
    );
    const second = await reader.readConnections(job);
    expect(first.body.toString("utf8")).toBe(firstText);
    expect(JSON.parse(second.body.toString("utf8")).connections).toHaveLength(300);
    first.release();
    second.release();
    // A shorter answer written into memory that held a longer one is exactly itself.
    stub.connections = [connection("c", "third.example")];
    const third = await reader.readConnections(job);
    const expected = labelChains(await new MihomoClient(target).connections(), SUBS);
    expect(third.body.toString("utf8")).toBe(JSON.stringify(expected));
    third.release();
    // One longer than the memory kept (1 MiB) gets larger memory, and is whole.
    stub.connections = Array.from({ length: 6000 }, (_, i) =>
      connection(`d${i}`, `é-${i}.example`),
    );
    const fourth = await reader.readConnections(job);
    const longer = labelChains(await new MihomoClient(target).connections(), SUBS);
    expect(fourth.body.length).toBeGreaterThan(1048576);
    expect(fourth.body.toString("utf8")).toBe(JSON.stringify(longer));
    fourth.release();
  });

  it("condenses the core's proxies into the live columns", async () => {
    const { stub, target } = await withStub();
    stub.proxies = {
      [coreNodeName(A, "Tokyo")]: {
        name: coreNodeName(A, "Tokyo"),
        type: "Shadowsocks",
        udp: true,
        history: [
          { time: "t", delay: 0 },
          { time: "t", delay: 87.6 },
        ],
      },
      [coreNodeName(A, "Paris")]: { name: coreNodeName(A, "Paris"), type: "Vmess", history: [] },
    };
    reader = new CoreReader();
    const result = await reader.read({ kind: "live-nodes", target, timeoutMs: 5000 });
    const expected = liveColumns(await new MihomoClient(target).proxies());
    expect(result).toEqual({ kind: "live-nodes", columns: expected });
    expect(expected.delays[0]).toBe(88);
  });

  it("fails with the client's own errors: unreachable, refused secret, no answer in time", async () => {
    const { target } = await withStub();
    reader = new CoreReader();
    const job = { kind: "live-nodes" as const, timeoutMs: 5000 };
    const down = await reader
      .read({ ...job, target: { ...target, port: await refusedPort() } })
      .catch((e: unknown) => e);
    expect(down).toBeInstanceOf(CoreUnreachableError);
    const refused = await reader
      .read({ ...job, target: { ...target, secret: "other" } })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CoreApiError);
    expect((refused as CoreApiError).status).toBe(401);
    const held = await rawCore(() => "{}", true);
    const late = await reader
      .read({ ...job, timeoutMs: 200, target: { ...target, port: held.port } })
      .catch((e: unknown) => e);
    expect(late).toBeInstanceOf(CoreTimeoutError);
    held.release();
  });

  it("refuses an answer longer than its limit unread", async () => {
    const one = JSON.stringify(connection("x", "big.example"));
    const long = await rawCore(
      () =>
        `{"downloadTotal":0,"uploadTotal":0,"connections":[${Array(5000).fill(one).join(",")}]}`,
    );
    reader = new CoreReader({ maxAnswerMb: 1 });
    const target = { host: "127.0.0.1", port: long.port, secret: "" };
    const err = await reader
      .readConnections({ kind: "connections", target, timeoutMs: 5000, subscriptions: SUBS })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreApiError);
    expect((err as Error).message).toBe("The proxy core's answer is larger than 1048576 bytes");
  });

  it("fails the reads of a worker that ran out of memory, and the next read starts a new one", async () => {
    const one = JSON.stringify(connection("x", "big.example"));
    const huge = await rawCore(
      () =>
        `{"downloadTotal":0,"uploadTotal":0,"connections":[${Array(150_000).fill(one).join(",")}]}`,
    );
    // The answer (~50 MB) is within the length limit; what it makes does not fit 48 MB.
    reader = new CoreReader({ memoryMb: 48 });
    const target = { host: "127.0.0.1", port: huge.port, secret: "" };
    const job = { kind: "connections" as const, target, timeoutMs: 10_000, subscriptions: SUBS };
    const err = await reader.readConnections(job).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoreReaderFault);
    expect((err as Error).message).toMatch(/more than 48 MB/);
    const small = await rawCore(() => `{"downloadTotal":1,"uploadTotal":2,"connections":[${one}]}`);
    const lent = await reader.readConnections({ ...job, target: { ...target, port: small.port } });
    expect(JSON.parse(lent.body.toString("utf8"))).toMatchObject({
      downloadTotal: 1,
      connections: [
        {
          id: "x",
          chainLabels: [
            { name: "Tokyo", subscription: "Provider A" },
            { name: "AUTO" },
            { name: "PROXY" },
          ],
        },
      ],
    });
    lent.release();
  });

  it("fails a read in flight when it is closed, and reads again afterwards", async () => {
    const held = await rawCore(
      () => `{"downloadTotal":3,"uploadTotal":4,"connections":null}`,
      true,
    );
    reader = new CoreReader();
    const target = { host: "127.0.0.1", port: held.port, secret: "" };
    const job = { kind: "connections" as const, target, timeoutMs: 5000, subscriptions: SUBS };
    const inFlight = reader.readConnections(job).catch((e: unknown) => e);
    while (held.asked() === 0) await new Promise((r) => setTimeout(r, 10));
    await reader.close();
    expect(await inFlight).toBeInstanceOf(CoreReaderFault);
    held.release();
    const lent = await reader.readConnections(job);
    expect(JSON.parse(lent.body.toString("utf8"))).toEqual({
      downloadTotal: 3,
      uploadTotal: 4,
      connections: [],
    });
    lent.release();
  });

  it("reads the neighbour table in its worker, off the service's event loop", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gatehouse-neigh-"));
    try {
      const file = join(dir, "arp");
      writeFileSync(
        file,
        "IP address  HW type  Flags  HW address         Mask  Device\n" +
          "192.168.1.20  0x1  0x2  A4:83:E7:11:22:33  *  br-lan\n",
      );
      reader = new CoreReader();
      const table = await lookupNeighbours({ file }, reader);
      expect([...table]).toEqual([["192.168.1.20", "a4:83:e7:11:22:33"]]);
      expect((await lookupNeighbours({ file: null }, reader)).size).toBe(0);
      // The system's own table (Linux: /proc/net/arp and `ip -6 neigh`, spawned by the worker).
      expect(await lookupNeighbours({ system: "linux" }, reader)).toBeInstanceOf(Map);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
