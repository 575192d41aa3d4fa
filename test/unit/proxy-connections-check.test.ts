import { describe, expect, it } from "vitest";
import { ConnectionsChecker } from "../../renderer/proxy/connections/connections-check.js";
import { ConnectionTable } from "../../renderer/proxy/connections/connections-table.js";

function raw(i: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `c${i}`,
    metadata: { network: "tcp", host: `h${i}.example`, destinationPort: "443", extra: { a: [1] } },
    upload: i,
    download: i * 10,
    start: "2026-03-01T10:00:00Z",
    chains: ["DIRECT"],
    rule: "Match",
    rulePayload: "",
    ...over,
  };
}

const answer = (list: unknown[] | null) => ({
  uploadTotal: 1,
  downloadTotal: 2,
  connections: list,
});

describe("checking the service's connection lists", () => {
  it("checks every connection of a first answer, then only the new and the changed ones", () => {
    const checker = new ConnectionsChecker();
    checker.parse(answer([raw(1), raw(2), raw(3)]));
    expect(checker.checked).toBe(3);
    const next = checker.parse(
      answer([raw(1, { upload: 99, download: 999 }), raw(2, { rule: "DomainSuffix" }), raw(4)]),
    );
    expect(checker.checked).toBe(2);
    expect([...checker.unchanged]).toEqual(["c1"]);
    expect(next.connections?.map((c) => [c.id, c.upload])).toEqual([
      ["c1", 99],
      ["c2", 2],
      ["c4", 4],
    ]);
    // A member that appears, or a nested value that changes, is a change too.
    checker.parse(answer([raw(1, { more: true }), raw(2, { rule: "DomainSuffix" }), raw(4)]));
    expect(checker.checked).toBe(1);
    checker.parse(
      answer([
        raw(1, { more: true }),
        raw(2, { rule: "DomainSuffix", metadata: { extra: { a: [2] } } }),
        raw(4),
      ]),
    );
    expect([...checker.unchanged].sort()).toEqual(["c1", "c4"]);
  });

  it("refuses an answer whose connection changed into a shape the contract does not allow", () => {
    const checker = new ConnectionsChecker();
    checker.parse(answer([raw(1), raw(2)]));
    expect(() => checker.parse(answer([raw(1, { download: "lots" }), raw(2)]))).toThrow();
    expect(() => checker.parse(answer([raw(1), raw(2, { chains: "DIRECT" })]))).toThrow();
    expect(() => checker.parse(answer([raw(1), { id: "c2" }]))).toThrow();
    expect(() => checker.parse({ connections: [] })).toThrow();
    // After a refused answer the last good one is still what counts as known.
    checker.parse(answer([raw(1, { upload: 5 }), raw(2)]));
    expect(checker.checked).toBe(0);
  });

  it("takes the core's null for no connections", () => {
    const checker = new ConnectionsChecker();
    expect(checker.parse(answer(null)).connections).toBeNull();
    expect(checker.checked).toBe(0);
  });

  it("lets the table keep the keys of unchanged connections while their bytes move", () => {
    const checker = new ConnectionsChecker();
    const table = new ConnectionTable();
    table.setSort({ key: "download", desc: true });
    table.setData(checker.parse(answer([raw(1), raw(2)])), checker.unchanged);
    expect(table.window(0, 5).rows.map((c) => c.id)).toEqual(["c2", "c1"]);
    table.setData(checker.parse(answer([raw(1, { download: 5000 }), raw(2)])), checker.unchanged);
    const w = table.window(0, 5, "c1");
    expect(w.rows.map((c) => [c.id, c.download])).toEqual([
      ["c1", 5000],
      ["c2", 20],
    ]);
    expect(w.picked?.connection?.download).toBe(5000);
    table.setQuery("h2.example");
    expect(table.window(0, 5).rows.map((c) => c.id)).toEqual(["c2"]);
  });
});
