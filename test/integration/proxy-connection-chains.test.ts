import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { labelChains } from "../../server/proxy/domain/core-names.js";
import { coreNodeName } from "../../server/proxy/types.js";
import { startLive, type LiveHarness } from "./proxy-core-harness.js";
import { StubController } from "./proxy-core-stub.js";

const A = "2f00b452053b30d98c0a41c9";
const GONE = "b".repeat(24);
let h: LiveHarness | null = null;
let stub: StubController | null = null;
afterEach(async () => {
  await h?.close();
  await stub?.stop();
  h = null;
  stub = null;
});

describe("GET /connections chain labels", () => {
  it("names each chain step by its node and subscription name, never the subscription id", async () => {
    stub = new StubController();
    const port = await stub.start();
    h = await startLive({ controllerPort: port });
    stub.secret = readFileSync(join(h.dir, "core", "secret"), "utf8").trim();
    h.store.addSubscription(A, [{ name: "🇯🇵 Tokyo", type: "ss" }]);
    h.store.subscriptions[0].name = "Provider A";
    stub.connections = [
      {
        id: "c1",
        metadata: { host: "example.com", destinationPort: "443" },
        upload: 1,
        download: 2,
        start: "2026-01-01T00:00:00Z",
        chains: [coreNodeName(A, "🇯🇵 Tokyo"), "AUTO", "PROXY"],
        rule: "Match",
        rulePayload: "",
      },
      {
        id: "c2",
        metadata: { host: "intranet" },
        upload: 0,
        download: 0,
        start: "2026-01-01T00:00:00Z",
        chains: ["DIRECT"],
        rule: "IPCIDR",
        rulePayload: "10.0.0.0/8",
      },
    ];
    const r = await h.request("GET", "/connections");
    expect(r.status).toBe(200);
    const [c1, c2] = r.json.connections;
    // The core's own fields are passed through as they are.
    expect(c1.chains).toEqual([`[${A}] 🇯🇵 Tokyo`, "AUTO", "PROXY"]);
    expect(c1.chainLabels).toEqual([
      { name: "🇯🇵 Tokyo", subscription: "Provider A" },
      { name: "AUTO", subscription: null },
      { name: "PROXY", subscription: null },
    ]);
    expect(c2.chainLabels).toEqual([{ name: "DIRECT", subscription: null }]);
    expect(JSON.stringify(c1.chainLabels)).not.toContain(A);
  });
});

describe("labelChains", () => {
  it("drops the id of a subscription that no longer exists and leaves other names alone", () => {
    const out = labelChains(
      {
        uploadTotal: 0,
        downloadTotal: 0,
        connections: [
          {
            id: "x",
            metadata: {},
            upload: 0,
            download: 0,
            start: "",
            chains: [coreNodeName(GONE, "[x] odd name"), "[not an id] node", "REJECT"],
            rule: "",
            rulePayload: "",
          },
        ],
      },
      [{ id: A, name: "Provider A" }],
    );
    expect(out.connections[0].chainLabels).toEqual([
      { name: "[x] odd name", subscription: null },
      { name: "[not an id] node", subscription: null },
      { name: "REJECT", subscription: null },
    ]);
  });
});
