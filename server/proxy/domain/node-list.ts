import { coreNodeName, nodeId, type MihomoProxy } from "../types.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import type { LiveView } from "./live-delays.js";

/** One node of an enabled subscription as the list shows it, minus the live fields. */
interface NodeRef {
  id: string;
  /** The node's name inside the core (`[<subscription>] <name>`). */
  coreName: string;
  udp: boolean;
  /** `{"id":…,"name":…,"subscriptionID":…,"subscriptionName":…,"type":…,` of its JSON. */
  head: string;
}

/** Nodes of enabled subscriptions, in list order. */
export class NodeList {
  private idSet: Set<string> | null = null;

  constructor(
    readonly key: string,
    readonly snapshots: readonly unknown[],
    readonly nodes: readonly NodeRef[],
  ) {}

  /** Every node's id (made on first use: only a selection or a test asks). */
  get ids(): Set<string> {
    this.idSet ??= new Set(this.nodes.map((n) => n.id));
    return this.idSet;
  }
}

/** One subscription's entries, made from one snapshot under one subscription name. */
interface Entries {
  id: string;
  name: string;
  refs: NodeRef[];
}

function entriesOf(sub: { id: string; name: string }, snapshot: readonly MihomoProxy[]): NodeRef[] {
  return snapshot.map((node) => {
    const id = nodeId(sub.id, node.name);
    const head = JSON.stringify({
      id,
      name: node.name,
      subscriptionID: sub.id,
      subscriptionName: sub.name,
      type: String(node.type),
    });
    return {
      id,
      coreName: coreNodeName(sub.id, node.name),
      udp: node.udp === true,
      head: `${head.slice(0, -1)},`,
    };
  });
}

/**
 * Nodes of enabled subscriptions (credentials and server addresses left out). Each
 * subscription's entries are made again only when its snapshot or its name changes, so a
 * refresh of one subscription costs its own nodes, and `GET /nodes` with tens of thousands
 * of nodes only adds the live fields.
 */
export function nodeLister(repos: Pick<SqlProxyStore, "subscriptions" | "nodes">): () => NodeList {
  let last: NodeList | null = null;
  const made = new WeakMap<readonly MihomoProxy[], Entries>();
  return () => {
    const subs = repos.subscriptions.list().filter((s) => s.enabled);
    const snapshots = subs.map((s) => repos.nodes(s.id));
    const key = JSON.stringify(subs.map((s) => [s.id, s.name]));
    if (last && last.key === key && last.snapshots.every((a, i) => a === snapshots[i])) return last;
    const nodes: NodeRef[] = [];
    subs.forEach((sub, i) => {
      const snapshot = snapshots[i];
      let entries = made.get(snapshot);
      if (!entries || entries.id !== sub.id || entries.name !== sub.name) {
        entries = { id: sub.id, name: sub.name, refs: entriesOf(sub, snapshot) };
        made.set(snapshot, entries);
      }
      for (const ref of entries.refs) nodes.push(ref);
    });
    last = new NodeList(key, snapshots, nodes);
    return last;
  };
}

/** Nodes written per turn of the event loop: about a millisecond's work. */
const SLICE = 1000;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The list's JSON, assembled from each node's prepared head, a slice per turn of the loop. */
async function render(
  list: NodeList,
  live: LiveView | null,
  chosen: string | null,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const { nodes } = list;
  for (let start = 0; start < nodes.length; start += SLICE) {
    if (start > 0) await nextTurn();
    const parts: string[] = [];
    for (const n of nodes.slice(start, start + SLICE)) {
      const p = live?.get(n.coreName);
      const delay = p ? p.delay : null;
      const alive = delay === null ? null : delay > 0;
      parts.push(
        `${n.head}"udp":${p?.udp ?? n.udp},"delay":${delay},"alive":${alive},"selected":${chosen === n.id}}`,
      );
    }
    chunks.push(Buffer.from(`${start === 0 ? "[" : ","}${parts.join(",")}`));
  }
  chunks.push(Buffer.from(nodes.length === 0 ? "[]" : "]"));
  return Buffer.concat(chunks);
}

interface Rendering {
  list: NodeList;
  live: LiveView | null;
  version: number;
  chosen: string | null;
  body: Promise<Buffer>;
}

/**
 * `GET /nodes` answers, kept while nothing they show changed: the node list, the copy of the
 * live data (and the test results written into it) and the chosen node. Tens of thousands of
 * nodes make megabytes of JSON; most requests send the kept bytes, and a new answer is
 * written in slices that leave the event loop free in between.
 */
export class NodeListBodies {
  private last: Rendering | null = null;

  get(list: NodeList, live: LiveView | null, chosen: string | null): Promise<Buffer> {
    const version = live?.version ?? 0;
    const l = this.last;
    if (l && l.list === list && l.live === live && l.version === version && l.chosen === chosen) {
      return l.body;
    }
    const body = render(list, live, chosen);
    const rendering: Rendering = { list, live, version, chosen, body };
    this.last = rendering;
    // A failed rendering is not kept.
    body.catch(() => {
      if (this.last === rendering) this.last = null;
    });
    return body;
  }
}
