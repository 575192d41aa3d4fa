import { describe, expect, it } from "vitest";
import type { Connection, ConnectionsView } from "../../server/contract/proxy.js";
import type { Key } from "../../renderer/proxy/i18n.js";
import { en as enTable, zh as zhTable } from "../../renderer/proxy/words.js";
import { say } from "../../renderer/shared/i18n.js";
import {
  ConnectionTable,
  MAX_WINDOW,
  aheadOf,
  holds,
  wordsOf,
  type Sort,
} from "../../renderer/proxy/connections/connections-table.js";

const BASE = Date.parse("2026-03-01T10:00:00Z");

function conn(i: number, over: Partial<Connection> = {}): Connection {
  return {
    id: `c${i}`,
    metadata: {
      network: i % 2 ? "udp" : "tcp",
      type: "HTTP",
      sourceIP: `192.168.1.${i % 250}`,
      destinationIP: "203.0.113.9",
      destinationPort: "443",
      host: `host-${String(i).padStart(3, "0")}.example`,
    },
    upload: i * 10,
    download: 1000 - i,
    start: new Date(BASE + i * 1000).toISOString(),
    chains: ["DIRECT"],
    rule: "Match",
    rulePayload: "",
    ...over,
  };
}

function view(list: Connection[] | null): ConnectionsView {
  return { uploadTotal: 5, downloadTotal: 7, connections: list };
}

const tables = { en: enTable, "zh-CN": zhTable } as const;
const translate = (lang: "en" | "zh-CN", key: Key): string => say(lang, tables[lang][key]);
const en = wordsOf((key) => translate("en", key));
const zh = wordsOf((key) => translate("zh-CN", key));

function tableOf(list: Connection[]): ConnectionTable {
  const table = new ConnectionTable();
  table.setWords(en);
  table.setData(view(list));
  return table;
}

const ids = (t: ConnectionTable, start = 0, end = 1000): string[] =>
  t.window(start, end).rows.map((c) => c.id);

describe("the connections table of the worker", () => {
  it("shows the newest first, counts everything and hands out only the window asked for", () => {
    const table = tableOf(Array.from({ length: 100 }, (_, i) => conn(i)));
    const w = table.window(10, 15);
    expect(w).toMatchObject({ total: 100, matched: 100, uploadTotal: 5, downloadTotal: 7 });
    expect(w.start).toBe(10);
    expect(w.rows.map((c) => c.id)).toEqual(["c89", "c88", "c87", "c86", "c85"]);
  });

  it("forgets its list when the core is gone: nothing to show until the next answer", () => {
    const table = tableOf(Array.from({ length: 5 }, (_, i) => conn(i)));
    table.setQuery("host-00");
    table.forget();
    expect(table.loaded).toBe(false);
    table.setQuery("");
    expect(table.window(0, 10)).toMatchObject({ total: 0, matched: 0, rows: [], uploadTotal: 0 });
    table.setData(view([conn(7)]));
    expect(table.loaded).toBe(true);
    expect(ids(table)).toEqual(["c7"]);
  });

  it("clamps a window past the end and never hands out more than its cap", () => {
    const table = tableOf(Array.from({ length: MAX_WINDOW + 50 }, (_, i) => conn(i)));
    expect(table.window(-20, 3).rows).toHaveLength(3);
    const tail = table.window(MAX_WINDOW + 40, MAX_WINDOW + 90);
    expect(tail.start).toBe(MAX_WINDOW + 40);
    expect(tail.rows).toHaveLength(10);
    expect(table.window(0, 10_000).rows).toHaveLength(MAX_WINDOW);
    const past = table.window(9_999, 10_050);
    expect(past.start).toBe(MAX_WINDOW + 50);
    expect(past.rows).toHaveLength(0);
  });

  it("sorts by every column both ways, equal keys in the core's order", () => {
    const list = [
      conn(0, { metadata: { network: "tcp", type: "HTTP", host: "b.example" }, upload: 5 }),
      conn(1, { metadata: { network: "udp", type: "Socks5", host: "A.example" }, upload: 9 }),
      conn(2, { metadata: { network: "tcp", type: "HTTP", host: "c.example" }, upload: 5 }),
    ];
    const table = tableOf(list);
    const order = (sort: Sort) => (table.setSort(sort), ids(table));
    expect(order({ key: "host", desc: false })).toEqual(["c1", "c0", "c2"]);
    expect(order({ key: "host", desc: true })).toEqual(["c2", "c0", "c1"]);
    expect(order({ key: "upload", desc: true })).toEqual(["c1", "c0", "c2"]);
    expect(order({ key: "upload", desc: false })).toEqual(["c0", "c2", "c1"]);
    expect(order({ key: "download", desc: true })).toEqual(["c0", "c1", "c2"]);
    expect(order({ key: "network", desc: false })).toEqual(["c0", "c2", "c1"]);
    expect(order({ key: "start", desc: false })).toEqual(["c0", "c1", "c2"]);
    expect(order({ key: "start", desc: true })).toEqual(["c2", "c1", "c0"]);
  });

  it("orders by chain and rule as written, and by bytes as the latest answer says", () => {
    const table = tableOf([
      conn(0, { chains: ["node-z", "PROXY"], rule: "Match" }),
      conn(1, { chains: ["DIRECT"], rule: "DomainSuffix", rulePayload: "example" }),
    ]);
    table.setSort({ key: "chain", desc: false });
    expect(ids(table)).toEqual(["c1", "c0"]);
    table.setSort({ key: "rule", desc: true });
    expect(ids(table)).toEqual(["c0", "c1"]);
    table.setSort({ key: "download", desc: true });
    expect(ids(table)).toEqual(["c0", "c1"]);
    table.setData(view([conn(0, { download: 1 }), conn(1, { download: 5000 })]));
    expect(ids(table)).toEqual(["c1", "c0"]);
  });

  it("searches host, source, program, rule and chain, in words and as the core names them", () => {
    const table = tableOf([
      conn(0, { metadata: { host: "video.example", process: "firefox", sourceIP: "10.0.0.7" } }),
      conn(1, { rule: "DomainSuffix", rulePayload: "shop.example", chains: ["REJECT"] }),
      conn(2, { chains: ["🇯🇵 Tokyo 01", "PROXY"] }),
    ]);
    const hits = (q: string) => (table.setQuery(q), ids(table));
    expect(hits("VIDEO")).toEqual(["c0"]);
    expect(hits("  firefox ")).toEqual(["c0"]);
    expect(hits("10.0.0.7")).toEqual(["c0"]);
    expect(hits("domain and subdomains")).toEqual(["c1"]);
    expect(hits("domainsuffix")).toEqual(["c1"]);
    expect(hits("blocked")).toEqual(["c1"]);
    expect(hits("tokyo")).toEqual(["c2"]);
    expect(hits("udp")).toEqual(["c1"]);
    expect(hits("nothing like it")).toEqual([]);
    const w = table.window(0, 10);
    expect(w).toMatchObject({ total: 3, matched: 0 });
    expect(hits("")).toHaveLength(3);
  });

  it("searches the words of the reader's language once it changes", () => {
    const table = tableOf([conn(0), conn(1, { chains: ["node-a", "PROXY"] })]);
    table.setQuery(translate("zh-CN", "conn.stepDirect").toLowerCase());
    expect(ids(table)).toEqual([]);
    table.setWords(zh);
    expect(ids(table)).toEqual(["c0"]);
    table.setQuery(translate("en", "conn.stepDirect"));
    expect(ids(table)).toEqual([]);
  });

  it("answers the picked connection as listed now, and null once the core no longer lists it", () => {
    const table = tableOf([conn(0), conn(1)]);
    table.setData(view([conn(0, { download: 4242 }), conn(1)]));
    expect(table.window(0, 0, "c0").picked).toEqual({
      id: "c0",
      connection: expect.objectContaining({ download: 4242 }),
    });
    table.setData(view([conn(1)]));
    expect(table.window(0, 0, "c0").picked).toEqual({ id: "c0", connection: null });
    expect(table.window(0, 0).picked).toBeNull();
  });

  it("takes the core's null for an empty list, and says whether anything arrived yet", () => {
    const table = new ConnectionTable();
    expect(table.loaded).toBe(false);
    table.setData(view(null));
    expect(table.loaded).toBe(true);
    expect(table.window(0, 50)).toMatchObject({ total: 0, matched: 0, rows: [] });
  });

  it("sends the worker every word a chain or rule is said with", () => {
    expect(en["conn.stepDirect"]).toBe(translate("en", "conn.stepDirect"));
    expect(en["conn.ruleMatch"]).toBe(translate("en", "conn.ruleMatch"));
    expect(zh["rules.typeSuffix"]).toBe(translate("zh-CN", "rules.typeSuffix"));
    expect(Object.keys(en).every((k) => k.includes("."))).toBe(true);
  });
});

describe("the rows asked for around the ones in view", () => {
  it("asks a screenful ahead on each side, never before the first row", () => {
    expect(aheadOf(100, 130)).toEqual({ start: 70, end: 160 });
    expect(aheadOf(5, 35)).toEqual({ start: 0, end: 65 });
  });

  it("asks again only when the rows in view come within half a screen of an edge", () => {
    const asked = aheadOf(100, 130);
    expect(holds(asked, 100, 130, 20_000)).toBe(true);
    expect(holds(asked, 86, 116, 20_000)).toBe(true);
    expect(holds(asked, 84, 114, 20_000)).toBe(false);
    expect(holds(asked, 144, 174, 20_000)).toBe(false);
    // At the ends of the list there is nothing more to hold.
    expect(holds({ start: 0, end: 60 }, 0, 30, 20_000)).toBe(true);
    expect(holds({ start: 940, end: 1000 }, 970, 1000, 1000)).toBe(true);
    expect(holds({ start: 0, end: 64 }, 0, 0, 0)).toBe(true);
  });
});
