import { describe, expect, it } from "vitest";
import { createCrowd, type CrowdSim } from "../fixtures/mihomo-sim/bulk.mjs";

interface Held {
  id: string;
  upload: number;
  download: number;
  metadata: Record<string, unknown>;
  chains: string[];
  rule: string;
}

/** The parts of the simulator the crowd uses, on a plain map. */
function fakeSim() {
  const table = new Map<string, Held>();
  let next = 0;
  const routed: string[] = [];
  const sim: CrowdSim = {
    addConnection(partial) {
      const id = `x${next++}`;
      table.set(id, { ...(partial as Omit<Held, "id">), id });
      return { id };
    },
    closeConnection: (id) => void table.delete(id),
    addTraffic(up, down, id) {
      const c = id ? table.get(id) : undefined;
      if (c) {
        c.upload += up;
        c.download += down;
      }
    },
    has: (id) => table.has(id),
    route(dst) {
      routed.push(dst.host);
      return { rule: "DomainSuffix", rulePayload: dst.host, chains: ["node-a", "PROXY"] };
    },
  };
  return { sim, table, routed };
}

describe("the simulated core's crowd of connections", () => {
  it("opens as many connections as asked, routed by the core's rules, and closes the oldest to shrink", () => {
    const { sim, table, routed } = fakeSim();
    const crowd = createCrowd(sim);
    crowd.resize(500);
    expect(crowd.size).toBe(500);
    expect(table.size).toBe(500);
    const first = table.get("x0");
    expect(first?.chains).toEqual(["node-a", "PROXY"]);
    expect(first?.metadata.host).toMatch(/^h0\./);
    // One routing per site, not per connection.
    expect(routed.length).toBeLessThan(20);
    crowd.resize(100);
    expect(table.size).toBe(100);
    expect(table.has("x0")).toBe(false);
    expect(table.has("x499")).toBe(true);
  });

  it("moves every connection's bytes each second and replaces a few of them", () => {
    const { sim, table } = fakeSim();
    const crowd = createCrowd(sim);
    crowd.resize(1000);
    const before = new Map([...table].map(([id, c]) => [id, c.download]));
    crowd.tick();
    expect(table.size).toBe(1000);
    const gone = [...before.keys()].filter((id) => !table.has(id));
    expect(gone.length).toBe(5);
    const grew = [...table.values()].filter(
      (c) => before.has(c.id) && c.download > before.get(c.id)!,
    );
    expect(grew.length).toBeGreaterThan(900);
  });

  it("keeps the same connections without churn, and lets go of those closed from outside", () => {
    const { sim, table } = fakeSim();
    const crowd = createCrowd(sim);
    crowd.resize(300, false);
    const ids = [...table.keys()];
    sim.closeConnection(ids[0]);
    crowd.tick();
    crowd.tick();
    expect(crowd.size).toBe(299);
    expect([...table.keys()]).toEqual(ids.slice(1));
  });
});
