import { z } from "zod";
import {
  Connection,
  ConnectionSchema,
  ConnectionsView,
  ConnectionsViewSchema,
} from "../../../server/contract/proxy-system.js";

/**
 * Checks the service's connection lists against the contract, every second, without paying
 * for tens of thousands of full checks each time: a connection is checked in full when it is
 * new or changed; one that is the same as in the last answer, its byte counts aside (which
 * must still be numbers), was checked then and is taken as it is.
 */

/** The answer with its connections left unchecked (they are checked one by one below). */
const Envelope = ConnectionsViewSchema.extend({ connections: z.array(z.unknown()).nullable() });

type Json = unknown;

function isRecord(v: Json): v is Record<string, Json> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Whether two values read from JSON are the same. */
function same(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, Json>;
  const rb = b as Record<string, Json>;
  let count = 0;
  for (const key in ra) {
    if (!Object.prototype.hasOwnProperty.call(ra, key)) continue;
    if (!Object.prototype.hasOwnProperty.call(rb, key) || !same(ra[key], rb[key])) return false;
    count++;
  }
  for (const key in rb) if (Object.prototype.hasOwnProperty.call(rb, key)) count--;
  return count === 0;
}

/** The same connection as before but for its byte counts, which are still numbers. */
function sameBesideBytes(now: Record<string, Json>, before: Record<string, Json>): boolean {
  if (typeof now.upload !== "number" || typeof now.download !== "number") return false;
  let count = 0;
  for (const key in now) {
    if (!Object.prototype.hasOwnProperty.call(now, key)) continue;
    count++;
    if (key === "upload" || key === "download") continue;
    if (!Object.prototype.hasOwnProperty.call(before, key) || !same(now[key], before[key]))
      return false;
  }
  for (const key in before) if (Object.prototype.hasOwnProperty.call(before, key)) count--;
  return count === 0;
}

export class ConnectionsChecker {
  /** Each connection of the last answer as it came, by id. */
  private last = new Map<string, Record<string, Json>>();
  /** Ids of the last answer's connections that were the same as in the one before. */
  unchanged = new Set<string>();
  /** How many connections the last answer had checked in full. */
  checked = 0;

  /** Throws (as a zod schema does) when the answer is not of the contract's shape. */
  parse(data: unknown): ConnectionsView {
    const view = Envelope.parse(data);
    const list = view.connections ?? [];
    const out: Connection[] = new Array<Connection>(list.length);
    const last = new Map<string, Record<string, Json>>();
    const unchanged = new Set<string>();
    let checked = 0;
    for (let i = 0; i < list.length; i++) {
      const raw = list[i];
      const before =
        isRecord(raw) && typeof raw.id === "string" ? this.last.get(raw.id) : undefined;
      if (before && isRecord(raw) && sameBesideBytes(raw, before)) {
        out[i] = raw as Connection;
        unchanged.add(raw.id as string);
      } else {
        out[i] = ConnectionSchema.parse(raw);
        checked++;
      }
      last.set(out[i].id, raw as Record<string, Json>);
    }
    this.last = last;
    this.unchanged = unchanged;
    this.checked = checked;
    return { ...view, connections: view.connections ? out : null };
  }
}
