import type { z } from "zod";
import type { BackupExport, BackupSubscriptionSchema } from "../../contract/proxy.js";
import type { Clock } from "../../clock.js";
import { DomainError } from "../../domain-errors.js";
import type { ErrorCode, ErrorParams } from "../../http/error-codes.js";
import type { DeviceChoice } from "../store/devices.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import type { SubscriptionRow } from "../store/subscriptions.js";
import { isoNow, type RuleRecord, type Settings } from "../types.js";
import type { Probation } from "./probation.js";

/** A backup's state once every part of it has been checked. */
export interface CheckedBackup {
  settings: Settings;
  subscriptions: Array<z.output<typeof BackupSubscriptionSchema>>;
  rules: RuleRecord[];
  /** Absent in a backup made before devices were known: the devices are then left alone. */
  devices?: DeviceChoice[];
}

/**
 * The document of `POST /system/restore`, when it is a backup of the one version there is. A
 * document without either part of a backup is some other file, whatever else it holds.
 */
export function backupDocument(raw: unknown): Record<string, unknown> {
  if (
    typeof raw !== "object" ||
    raw === null ||
    Array.isArray(raw) ||
    (!("version" in raw) && !("state" in raw))
  )
    throw new DomainError("invalid", "backup.not_backup", "This file is not a Gatehouse backup");
  const body = raw as Record<string, unknown>;
  if (body.version !== 1)
    throw new DomainError(
      "invalid",
      "backup.version",
      "Unsupported backup version (only 1 is accepted)",
    );
  return body;
}

/**
 * A part of the backup that was refused: the sentence says where, and the inner refusal's
 * code, words and values come along so the console can say both where and why.
 */
export function refusedPart(
  rule: number | null,
  inner: { message: string; code: ErrorCode; params: ErrorParams },
): DomainError {
  const why = { ...inner.params, reason: inner.message, reason_code: inner.code };
  // The inner code and its values were checked where the refusal was first made.
  return rule === null
    ? DomainError.carrying(
        "invalid",
        "backup.invalid_settings",
        `Invalid settings: ${inner.message}`,
        why,
      )
    : DomainError.carrying(
        "invalid",
        "backup.invalid_rule",
        `Invalid rule ${rule}: ${inner.message}`,
        {
          ...why,
          rule,
        },
      );
}

/** Refuses a backup that lists one id twice in a part. */
export function uniqueIds(
  items: Array<{ id: string }>,
  kind: "subscription" | "rule" | "device",
): void {
  const seen = new Set<string>();
  for (const { id } of items) {
    if (seen.has(id))
      throw new DomainError(
        "invalid",
        "backup.duplicate_id",
        `The backup lists ${kind} ${id} twice`,
        {
          params: { kind, id },
        },
      );
    seen.add(id);
  }
}

/** The backup of the stored state, and its restore (one transaction, on probation). */
export class Backups {
  constructor(
    private readonly store: SqlProxyStore,
    private readonly probation: Probation,
    private readonly clock: Clock,
  ) {}

  export(): BackupExport {
    const { store } = this;
    return {
      version: 1,
      exportedAt: isoNow(this.clock.now()),
      state: {
        settings: store.getSettings(),
        subscriptions: store.subscriptions
          .list()
          .map(({ id, name, url, enabled, intervalHours }) => ({
            id,
            name,
            url,
            enabled,
            intervalHours,
          })),
        rules: store.rules.list(),
        devices: store.devices.choices(),
      },
    };
  }

  /**
   * Replaces the stored state with a checked backup's, as one change on probation; answers
   * the probation deadline (null when the change cannot cut the operator off). Snapshots of
   * the subscriptions the backup drops stay until the change is kept: a change on probation
   * may still bring those subscriptions back.
   */
  restore(backup: CheckedBackup): Promise<number | null> {
    const { store } = this;
    return this.probation.change(true, () => {
      const previous = new Map(store.subscriptions.rows().map((r) => [r.id, r]));
      store.saveSettings(backup.settings);
      const rows: SubscriptionRow[] = backup.subscriptions.map((s, i) => {
        // A kept id keeps its snapshot, so it also keeps what describes that snapshot.
        const old = previous.get(s.id);
        return {
          id: s.id,
          position: i + 1,
          name: s.name,
          url: s.url,
          enabled: s.enabled ? 1 : 0,
          interval_hours: s.intervalHours,
          updated_at: old?.updated_at ?? null,
          attempted_at: old?.attempted_at ?? null,
          last_error: old?.last_error ?? "",
          last_error_code: old?.last_error_code ?? "",
          last_error_params: old?.last_error_params ?? "{}",
          usage_json: old?.usage_json ?? null,
          node_count: old?.node_count ?? 0,
          created_at: old?.created_at ?? null,
        };
      });
      store.subscriptions.replaceAll(rows);
      store.rules.replaceAll(backup.rules);
      if (backup.devices) store.devices.replaceChoices(backup.devices);
    });
  }
}
