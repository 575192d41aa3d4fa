import { describe, expect, it } from "vitest";
import { latencyClass } from "../../renderer/proxy/parts/format.js";
import { delayOf, sortNodes } from "../../renderer/proxy/nodes/node-order.js";
import { chainText } from "../../renderer/proxy/connections/connection-text.js";
import type { Connection, NodeView } from "../../server/contract/proxy.js";

const node = (name: string, delay: number | null): NodeView => ({
  id: `s/p/${name}`,
  name,
  subscriptionID: "s",
  subscriptionName: "Provider",
  type: "ss",
  udp: false,
  delay,
  alive: delay === null ? null : delay > 0,
  selected: false,
});

const names = (list: NodeView[]) => list.map((n) => n.name);
const none = new Set<string>();

describe("latencyClass", () => {
  it("reads delays as fast, medium, slow, failed or not measured", () => {
    expect(latencyClass(40, false)).toBe("good");
    expect(latencyClass(199, false)).toBe("good");
    expect(latencyClass(200, false)).toBe("medium");
    expect(latencyClass(499, false)).toBe("medium");
    expect(latencyClass(500, false)).toBe("slow");
    expect(latencyClass(0, false)).toBe("failed");
    expect(latencyClass(120, true)).toBe("failed");
    expect(latencyClass(null, false)).toBe("unknown");
  });
});

describe("sortNodes", () => {
  const list = [node("n10", 800), node("N2", 40), node("a", 0), node("b", null), node("c", 300)];

  it("keeps the subscription's order, or sorts by name with numbers read as numbers", () => {
    expect(names(sortNodes(list, "list", {}, none))).toEqual(["n10", "N2", "a", "b", "c"]);
    expect(names(sortNodes(list, "name", {}, none))).toEqual(["a", "b", "c", "N2", "n10"]);
  });

  it("puts the fastest first, then failed nodes, then the ones never measured", () => {
    expect(names(sortNodes(list, "latency", {}, none))).toEqual(["N2", "c", "n10", "a", "b"]);
  });

  it("prefers this page's results, and a node being tested counts as not measured", () => {
    const results = {
      "s/p/b": { delay: 10, error: "" },
      "s/p/N2": { delay: 0, error: "Timeout" },
    };
    // Failed ones among themselves by name.
    expect(names(sortNodes(list, "latency", results, none))).toEqual(["b", "c", "n10", "a", "N2"]);
    const pending = new Set(["s/p/b"]);
    expect(delayOf(list[3], results, pending)).toEqual({ delay: null, failed: false, error: "" });
    expect(names(sortNodes(list, "latency", results, pending))).toEqual([
      "c",
      "n10",
      "a",
      "N2",
      "b",
    ]);
  });
});

describe("chainText", () => {
  const conn = (patch: Partial<Connection>): Connection => ({
    id: "c",
    metadata: {},
    upload: 0,
    download: 0,
    start: "",
    chains: [],
    rule: "",
    rulePayload: "",
    ...patch,
  });

  it("reads from the entry group to the node, naming the node's subscription", () => {
    expect(
      chainText(
        conn({
          chains: ["[2f00b452053b30d98c0a41c9] Tokyo", "PROXY"],
          chainLabels: [
            { name: "Tokyo", subscription: "Provider A" },
            { name: "PROXY", subscription: null },
          ],
        }),
      ),
    ).toBe("PROXY → Tokyo (Provider A)");
  });

  it("falls back to the core's names when the service sent no labels", () => {
    expect(chainText(conn({ chains: ["DIRECT"] }))).toBe("DIRECT");
  });
});
