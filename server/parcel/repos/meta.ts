import { randomBytes } from "node:crypto";
import type { Db } from "../../db/open.js";
import { prepared } from "./statements.js";

export function getMeta(db: Db, key: string): string | undefined {
  const row = prepared(db, "SELECT value FROM meta WHERE key = ?").get(key) as
    { value: string } | undefined;
  return row?.value;
}

export function setMeta(db: Db, key: string, value: string): void {
  prepared(
    db,
    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
  ).run(key, value);
}

/** A random 32-byte key created once and kept in the database. */
export function persistentKey(db: Db, key: string): Buffer {
  const existing = getMeta(db, key);
  if (existing) return Buffer.from(existing, "base64");
  const fresh = randomBytes(32);
  setMeta(db, key, fresh.toString("base64"));
  return fresh;
}

/** A JSON object in meta merged over its defaults (new members get their default). */
export function getJson<T extends object>(db: Db, key: string, defaults: T): T {
  const raw = getMeta(db, key);
  if (!raw) return { ...defaults };
  return { ...defaults, ...(JSON.parse(raw) as Partial<T>) };
}

export function setJson(db: Db, key: string, value: object): void {
  setMeta(db, key, JSON.stringify(value));
}

/** Settings and keys kept in the `meta` table. */
export class MetaRepo {
  constructor(private readonly db: Db) {}

  /** A random 32-byte key created once and kept in the database. */
  key(name: string): Buffer {
    return persistentKey(this.db, name);
  }

  /** A JSON object merged over its defaults (new members get their default). */
  json<T extends object>(name: string, defaults: T): T {
    return getJson(this.db, name, defaults);
  }

  setJson(name: string, value: object): void {
    setJson(this.db, name, value);
  }
}
