import type { MihomoProxy } from "../types.js";

/**
 * The JSON text of a subscription's node list, kept beside the array it was made from. A
 * node list is never changed once read (a refresh makes a new one), and the same text is
 * written twice per refresh (the snapshot, and inside the core's provider file) and read in
 * again at every start: a feed of 10,000 nodes is a megabyte or more of it.
 */
const texts = new WeakMap<readonly MihomoProxy[], string>();

/** `JSON.stringify(nodes)`, made once per list. */
export function nodesJson(nodes: readonly MihomoProxy[]): string {
  let text = texts.get(nodes);
  if (text === undefined) {
    text = JSON.stringify(nodes);
    texts.set(nodes, text);
  }
  return text;
}

/** The node list a JSON text holds, remembered with that text (not an array: no nodes). */
export function nodesFromJson(text: string): MihomoProxy[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) return [];
  const nodes = parsed as MihomoProxy[];
  texts.set(nodes, text);
  return nodes;
}
