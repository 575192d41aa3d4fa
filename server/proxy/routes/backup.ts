import { type Router } from "express";
import { HttpError } from "../../http/errors.js";
import { parseOr400 } from "../../http/validate.js";
import { PROBATION_HEADER } from "../domain/probation.js";
import {
  BackupFileSchema,
  BackupRuleSchema,
  SettingsSchema,
  type Ok,
} from "../../contract/proxy.js";
import { DomainError } from "../../domain-errors.js";
import { backupDocument, refusedPart, uniqueIds } from "../domain/backup.js";
import { checkSettings, ruleInput } from "../domain/input-checks.js";
import type { RuleRecord } from "../types.js";
import type { ProxyRouterDeps } from "./router-deps.js";
import { canonicalIp } from "../system/addresses.js";

/** A refusal of one part of the backup, said as the part's (the request parser's or the domain's). */
function invalidPart(rule: number | null, err: unknown): never {
  if (!(err instanceof HttpError) && !(err instanceof DomainError)) throw err;
  throw refusedPart(rule, err);
}

/** `GET /system/backup` and `POST /system/restore` (validate all, one transaction, rollback). */
export function backupRouter(deps: ProxyRouterDeps): Router {
  const { backups } = deps;
  const router = deps.routes.router();

  router.endpoint("GET /system/backup", (_input, _req, res) => {
    const backup = backups.export();
    const date = backup.exportedAt.slice(0, 10);
    res.setHeader("Content-Disposition", `attachment; filename="gatehouse-proxy-${date}.json"`);
    return backup;
  });

  router.raw("POST /system/restore", async (req, res) => {
    const backup = parseOr400(BackupFileSchema, backupDocument(req.body));
    let settings;
    try {
      settings = checkSettings(parseOr400(SettingsSchema, backup.state.settings), deps.machine());
    } catch (err) {
      invalidPart(null, err);
    }
    const subscriptions = backup.state.subscriptions;
    uniqueIds(subscriptions, "subscription");
    const rules: RuleRecord[] = backup.state.rules.map((raw, i) => {
      try {
        const r = parseOr400(BackupRuleSchema, raw);
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
    const deadline = await backups.restore({ settings, subscriptions, rules, devices });
    if (deadline !== null) res.setHeader(PROBATION_HEADER, String(deadline));
    res.json({ ok: true } satisfies Ok);
  });

  return router;
}
