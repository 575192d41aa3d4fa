import type { Connection, ConnectionsView } from "../../../server/contract/proxy.js";
import type { Key, Translate } from "../i18n.js";
import { chainText, host, ruleText, WORD_KEYS } from "./connection-text.js";

/**
 * The connections table's data work, kept apart from the page so it can run in a worker:
 * the whole list, its search and its order, and the few rows the page shows. Every key a
 * search or an order compares is worked out once per answer of the service, not once per
 * comparison.
 */

export type SortKey = "host" | "network" | "chain" | "rule" | "upload" | "download" | "start";

export interface Sort {
  key: SortKey;
  desc: boolean;
}

/** The translated words a connection's search text contains (groups, built-ins, rule types). */
export type Words = Partial<Record<Key, string>>;

/** The page's words for every key the search text uses, to send to the worker. */
export function wordsOf(t: Translate): Words {
  return Object.fromEntries(WORD_KEYS.map((key) => [key, t(key)]));
}

/** The rows of the table in view, and everything the page says around them. */
export interface TableWindow {
  /** Connections the core lists. */
  total: number;
  /** Of those, the ones the search matches. */
  matched: number;
  uploadTotal: number;
  downloadTotal: number;
  /** Position (in the searched and ordered list) of `rows[0]`. */
  start: number;
  rows: Connection[];
  /** The connection whose details are open, as the core lists it now; null once it ended. */
  picked: { id: string; connection: Connection | null } | null;
}

/** Most rows one answer carries, whatever range is asked (a few screens' worth). */
export const MAX_WINDOW = 400;

/** The range to ask for around the rows in view: a screenful more on each side. */
export function aheadOf(first: number, last: number): { start: number; end: number } {
  const span = Math.max(1, last - first);
  return { start: Math.max(0, first - span), end: last + span };
}

/**
 * Whether the rows asked for still hold the rows in view with half a screen to spare on
 * either side (no need to ask again while scrolling within them).
 */
export function holds(
  asked: { start: number; end: number },
  first: number,
  last: number,
  matched: number,
): boolean {
  const spare = Math.max(1, last - first) / 2;
  const top = asked.start === 0 || first - asked.start >= spare;
  const bottom = asked.end >= matched || asked.end - last >= spare;
  return first >= asked.start && last <= asked.end && top && bottom;
}

interface Entry {
  c: Connection;
  /** Position in the core's list: equal keys keep the core's order. */
  order: number;
  host: string;
  network: string;
  chain: string;
  rule: string;
  start: number;
  /** Everything the search looks in, in lower case. */
  text: string;
}

function entryOf(c: Connection, order: number, t: Translate): Entry {
  const name = host(c);
  const chain = chainText(c);
  return {
    c,
    order,
    host: name.toLowerCase(),
    network: `${c.metadata.network ?? ""} ${c.metadata.type ?? ""}`,
    chain: chain.toLowerCase(),
    rule: `${c.rule} ${c.rulePayload}`.toLowerCase(),
    start: Date.parse(c.start) || 0,
    text: [
      name,
      c.metadata.sourceIP,
      c.metadata.process,
      c.rule,
      c.rulePayload,
      ruleText(c, t),
      chain,
      chainText(c, t),
      c.metadata.network,
    ]
      .join(" ")
      .toLowerCase(),
  };
}

function compareBy(sort: Sort): (a: Entry, b: Entry) => number {
  const dir = sort.desc ? -1 : 1;
  const key = sort.key;
  return (a, b) => {
    let x: string | number;
    let y: string | number;
    if (key === "upload" || key === "download") {
      x = a.c[key];
      y = b.c[key];
    } else {
      x = a[key];
      y = b[key];
    }
    const d = x < y ? -1 : x > y ? 1 : 0;
    return d === 0 ? a.order - b.order : d * dir;
  };
}

/**
 * The list the table shows. Feed it the service's answers and the page's choices; ask it for
 * a window of rows. Searching and ordering run again only when one of their inputs changed.
 */
export class ConnectionTable {
  private entries: Entry[] = [];
  private byId = new Map<string, Entry>();
  private totals = { up: 0, down: 0 };
  private words: Words = {};
  private t: Translate = (key) => this.words[key] ?? key;
  private query = "";
  private sort: Sort = { key: "start", desc: true };
  /** The searched and ordered entries; null when an input changed since. */
  private arranged: Entry[] | null = null;
  private hasData = false;

  /** Whether an answer of the service has arrived. */
  get loaded(): boolean {
    return this.hasData;
  }

  /**
   * A new answer of the service. `unchanged` names the connections that are the same as in
   * the last answer but for their byte counts: their keys are kept, not worked out again.
   */
  setData(view: ConnectionsView, unchanged?: ReadonlySet<string>): void {
    const list = view.connections ?? [];
    const before = this.byId;
    const byId = new Map<string, Entry>();
    this.entries = list.map((c, i) => {
      const kept = unchanged?.has(c.id) ? before.get(c.id) : undefined;
      if (!kept) {
        const entry = entryOf(c, i, this.t);
        byId.set(c.id, entry);
        return entry;
      }
      // Reused in place: the last answer's arranged list is dropped below. Taken out of the
      // old map, so a second connection with the same id gets an entry of its own.
      before.delete(c.id);
      kept.c = c;
      kept.order = i;
      byId.set(c.id, kept);
      return kept;
    });
    this.byId = byId;
    this.totals = { up: view.uploadTotal, down: view.downloadTotal };
    this.arranged = null;
    this.hasData = true;
  }

  /** Drops the list, as before the first answer (its core is gone, and its connections with it). */
  forget(): void {
    this.entries = [];
    this.byId = new Map();
    this.totals = { up: 0, down: 0 };
    this.arranged = null;
    this.hasData = false;
  }

  /** The words of the reader's language; the search texts are made again in it. */
  setWords(words: Words): void {
    const same =
      Object.keys(words).length === Object.keys(this.words).length &&
      Object.entries(words).every(([k, v]) => this.words[k as Key] === v);
    if (same) return;
    this.words = { ...words };
    this.entries = this.entries.map((e) => entryOf(e.c, e.order, this.t));
    this.arranged = null;
  }

  setQuery(query: string): void {
    const q = query.trim().toLowerCase();
    if (q === this.query) return;
    this.query = q;
    this.arranged = null;
  }

  setSort(sort: Sort): void {
    if (sort.key === this.sort.key && sort.desc === this.sort.desc) return;
    this.sort = { key: sort.key, desc: sort.desc };
    this.arranged = null;
  }

  private arrange(): Entry[] {
    if (this.arranged) return this.arranged;
    const q = this.query;
    const matched = q ? this.entries.filter((e) => e.text.includes(q)) : this.entries.slice();
    matched.sort(compareBy(this.sort));
    this.arranged = matched;
    return matched;
  }

  /** Rows `start` to `end` (end excluded) of the searched, ordered list, and the counts. */
  window(start: number, end: number, picked: string | null = null): TableWindow {
    const rows = this.arrange();
    const from = Math.max(0, Math.min(Math.floor(start), rows.length));
    const to = Math.max(from, Math.min(Math.ceil(end), rows.length, from + MAX_WINDOW));
    return {
      total: this.entries.length,
      matched: rows.length,
      uploadTotal: this.totals.up,
      downloadTotal: this.totals.down,
      start: from,
      rows: rows.slice(from, to).map((e) => e.c),
      picked: picked === null ? null : { id: picked, connection: this.byId.get(picked)?.c ?? null },
    };
  }
}
