import { type Router } from "express";
import { HttpError } from "../../http/errors.js";
import { jsonObject, parseOr400 } from "../../http/validate.js";
import { PROBATION_HEADER } from "../domain/probation.js";
import {
  BackupFile,
  BackupRule,
  Settings,
  type BackupExport,
  type Ok,
} from "../../contract/proxy.js";
import { DomainError } from "../../domain-errors.js";
import { checkSettings, ruleInput } from "../domain/input-checks.js";
import type { SubscriptionRow } from "../store/subscriptions.js";
import { isoNow, type RuleRecord } from "../types.js";
import type { ProxyRouterDeps } from "./router-deps.js";
import { canonicalIp } from "../system/addresses.js";

/**
 * A part of the backup that was refused: the sentence says where, and the inner refusal's
 * code, words and values come along so the console can say both where and why.
 */
function invalidPart(rule: number | null, err: unknown): never {
  if (!(err instanceof HttpError) && !(err instanceof DomainError)) throw err;
  const why = { ...err.params, reason: err.message, reason_code: err.code };
  throw rule === null
    ? HttpError.carrying(400, "backup.invalid_settings", `Invalid settings: ${err.message}`, why)
    : HttpError.carrying(400, "backup.invalid_rule", `Invalid rule ${rule}: ${err.message}`, {
        ...why,
        rule,
      });
}

function uniqueIds(items: Array<{ id: string }>, kind: "subscription" | "rule" | "device"): void {
  const seen = new Set<string>();
  for (const { id } of items) {
    if (seen.has(id))
      throw new HttpError(400, "backup.duplicate_id", `The backup lists ${kind} ${id} twice`, {
        params: { kind, id },
      });
    seen.add(id);
  }
}

/** `GET /system/backup` and `POST /system/restore` (validate all, one transaction, rollback). */
export function backupRouter(deps: ProxyRouterDeps): Router {
  const { repos: store } = deps;
  const router = deps.routes.router();

  router.get("/system/backup", (_req, res) => {
    const now = deps.clock.now();
    const date = isoNow(now).slice(0, 10);
    res.setHeader("Content-Disposition", `attachment; filename="gatehouse-proxy-${date}.json"`);
    res.json({
      version: 1,
      exportedAt: isoNow(now),
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
    } satisfies BackupExport);
  });

  router.post("/system/restore", async (req, res) => {
    const raw: unknown = req.body;
    // A document without either part of a backup is some other file, whatever else it holds.
    if (
      typeof raw !== "object" ||
      raw === null ||
      Array.isArray(raw) ||
      (!("version" in raw) && !("state" in raw))
    ) {
      throw new HttpError(400, "backup.not_backup", "This file is not a Gatehouse backup");
    }
    const body = jsonObject(raw);
    if (body.version !== 1) {
      throw new HttpError(400, "backup.version", "Unsupported backup version (only 1 is accepted)");
    }
    const backup = parseOr400(BackupFile, body);
    let settings;
    try {
      settings = checkSettings(parseOr400(Settings, backup.state.settings), deps.machine());
    } catch (err) {
      invalidPart(null, err);
    }
    const subs = backup.state.subscriptions;
    uniqueIds(subs, "subscription");
    const rules: RuleRecord[] = backup.state.rules.map((raw, i) => {
      try {
        const r = parseOr400(BackupRule, raw);
        const valid = parseOr400(ruleInput, {
          type: r.type,
          value: r.value,
          action: r.action,
          enabled: r.enabled,
        });
        return { id: raw.id, ...valid };
      } catch (err) {
        return invalidPart(i + 1, err);
      }
    });
    uniqueIds(rules, "rule");
    // The same address written another way is the same device.
    const devices = backup.state.devices?.map((d) => ({ ...d, id: canonicalIp(d.id) ?? d.id }));
    if (devices) uniqueIds(devices, "device");

    // Snapshots of the subscriptions the backup drops stay until the change is kept: a change
    // on probation may still bring those subscriptions back.
    const deadline = await deps.probation.change(true, () => {
      const previous = new Map(store.subscriptions.rows().map((r) => [r.id, r]));
      store.saveSettings(settings);
      const rows: SubscriptionRow[] = subs.map((s, i) => {
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
      store.rules.replaceAll(rules);
      if (devices) store.devices.replaceChoices(devices);
    });
    if (deadline !== null) res.setHeader(PROBATION_HEADER, String(deadline));
    res.json({ ok: true } satisfies Ok);
  });

  return router;
}
