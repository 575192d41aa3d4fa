import type { Db } from "../../db/open.js";
import { isoNow, type SubscriptionRecord, type SubscriptionUsage } from "../types.js";
import type { z } from "zod";
import type { SubscriptionInputSchema } from "../../contract/proxy-fields.js";

interface Row {
  id: string;
  position: number;
  name: string;
  url: string;
  enabled: number;
  interval_hours: number;
  updated_at: number | null;
  attempted_at: number | null;
  last_error: string;
  last_error_code: string;
  /** JSON object of the values `last_error` mentions. */
  last_error_params: string;
  usage_json: string | null;
  node_count: number;
  /** When it was added (ms); null for one restored from a backup. */
  created_at?: number | null;
}

/** The editable part of a subscription (what create, edit and restore set). */
export type SubscriptionFields = z.output<typeof SubscriptionInputSchema>;

function readParams(json: string): Record<string, string | number> {
  try {
    const value: unknown = JSON.parse(json);
    if (value && typeof value === "object" && !Array.isArray(value))
      return value as Record<string, string | number>;
  } catch {
    // a damaged value is only a missing translation: the English sentence stays
  }
  return {};
}

/** A refresh failure as it is kept: the English sentence, its code and its values. */
export interface RefreshFailure {
  message: string;
  code: string;
  params: Readonly<Record<string, string | number>>;
}

function toRecord(row: Row): SubscriptionRecord {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    enabled: row.enabled === 1,
    intervalHours: row.interval_hours,
    updatedAt: row.updated_at === null ? null : isoNow(row.updated_at),
    attemptedAt: row.attempted_at === null ? null : isoNow(row.attempted_at),
    lastError: row.last_error,
    lastErrorCode: row.last_error ? row.last_error_code : "",
    lastErrorParams: row.last_error ? readParams(row.last_error_params) : {},
    usage: row.usage_json ? (JSON.parse(row.usage_json) as SubscriptionUsage) : null,
    nodeCount: row.node_count,
    createdAt: row.created_at == null ? null : isoNow(row.created_at),
  };
}

/**
 * The form in which two addresses are compared: parsed, so letter case of the scheme and
 * host, a default port or an empty path do not make the same feed look different.
 */
export function urlKey(url: string): string {
  try {
    return new URL(url.trim()).href;
  } catch {
    return url.trim();
  }
}

/** Full row copy, used to put the previous state back when a restore fails. */
export type SubscriptionRow = Row;

export class SubscriptionsRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      list: db.prepare("SELECT * FROM subscriptions ORDER BY position, id"),
      get: db.prepare("SELECT * FROM subscriptions WHERE id = ?"),
      count: db.prepare("SELECT COUNT(*) AS n FROM subscriptions"),
      nextPos: db.prepare("SELECT COALESCE(MAX(position), 0) + 1 AS p FROM subscriptions"),
      insert: db.prepare(
        `INSERT INTO subscriptions (id, position, name, url, enabled, interval_hours, updated_at,
           attempted_at, last_error, last_error_code, last_error_params, usage_json, node_count,
           created_at)
         VALUES (@id, @position, @name, @url, @enabled, @interval_hours, @updated_at,
           @attempted_at, @last_error, @last_error_code, @last_error_params, @usage_json,
           @node_count, @created_at)`,
      ),
      edit: db.prepare(
        "UPDATE subscriptions SET name = ?, url = ?, enabled = ?, interval_hours = ? WHERE id = ?",
      ),
      success: db.prepare(
        `UPDATE subscriptions SET updated_at = ?, attempted_at = ?, last_error = '',
           last_error_code = '', last_error_params = '{}', usage_json = ?, node_count = ?
         WHERE id = ?`,
      ),
      failure: db.prepare(
        `UPDATE subscriptions SET attempted_at = ?, last_error = ?, last_error_code = ?,
           last_error_params = ? WHERE id = ?`,
      ),
      remove: db.prepare("DELETE FROM subscriptions WHERE id = ?"),
      removeAll: db.prepare("DELETE FROM subscriptions"),
    };
  }

  list(): SubscriptionRecord[] {
    return (this.stmts.list.all() as Row[]).map(toRecord);
  }

  rows(): Row[] {
    return this.stmts.list.all() as Row[];
  }

  get(id: string): SubscriptionRecord | null {
    const row = this.stmts.get.get(id) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  /** Another subscription with the same address (compared as parsed URLs), if any. */
  sameUrl(url: string, exceptId = ""): SubscriptionRecord | null {
    const key = urlKey(url);
    return this.list().find((s) => s.id !== exceptId && urlKey(s.url) === key) ?? null;
  }

  count(): number {
    return (this.stmts.count.get() as { n: number }).n;
  }

  create(id: string, f: SubscriptionFields, createdAt: number | null = null): void {
    const position = (this.stmts.nextPos.get() as { p: number }).p;
    this.stmts.insert.run({
      id,
      position,
      name: f.name,
      url: f.url,
      enabled: f.enabled ? 1 : 0,
      interval_hours: f.intervalHours,
      updated_at: null,
      attempted_at: null,
      last_error: "",
      last_error_code: "",
      last_error_params: "{}",
      usage_json: null,
      node_count: 0,
      created_at: createdAt,
    });
  }

  /** Edits the configurable fields; nodes, times, error and usage are kept. */
  edit(id: string, f: SubscriptionFields): boolean {
    return this.stmts.edit.run(f.name, f.url, f.enabled ? 1 : 0, f.intervalHours, id).changes > 0;
  }

  recordSuccess(id: string, at: number, usage: SubscriptionUsage | null, nodeCount: number): void {
    this.stmts.success.run(at, at, usage ? JSON.stringify(usage) : null, nodeCount, id);
  }

  recordFailure(id: string, at: number, failure: RefreshFailure): void {
    this.stmts.failure.run(at, failure.message, failure.code, JSON.stringify(failure.params), id);
  }

  remove(id: string): boolean {
    return this.stmts.remove.run(id).changes > 0;
  }

  /** Replaces every row (restore and its rollback); call inside a transaction. */
  replaceAll(rows: Row[]): void {
    this.stmts.removeAll.run();
    for (const row of rows) this.stmts.insert.run({ created_at: null, ...row });
  }
}
