import { formatBytes } from "../../shared/format.js";
import type { Lang } from "../../shared/lang.js";
import type { AdminKey, AT } from "./i18n.js";
import type { AuditRecord } from "../../../server/contract/parcel-admin.js";
import { AUDIT_ACTIONS } from "../../../server/contract/parcel-audit.js";
import { en } from "./i18n-en.js";
import { formatTime } from "./format.js";

/**
 * Audit records in people's words. The service records stable codes (`pickup.deny`,
 * `{ reason: "wrong_password" }`); the console names them in the reader's language and keeps
 * the code itself in a title, so it can still be looked up and typed into a filter.
 */

/** Every action the service records, in the order the filter offers them. */
export const ACTIONS = AUDIT_ACTIONS;

function isKey(key: string): key is AdminKey {
  return Object.prototype.hasOwnProperty.call(en, key);
}

/** A table key when it exists, else the raw text (a code this console does not know yet). */
function known(key: string, raw: string, t: AT): string {
  return isKey(key) ? t(key) : raw;
}

export function actionName(action: string, t: AT): string {
  return known(`action.${action}`, action, t);
}

/** A member of the policy or the runtime settings by its label in the settings form. */
export function settingName(key: string, t: AT): string | null {
  if (isKey(`policy.${key}`)) return t(`policy.${key}` as AdminKey);
  if (isKey(`runtime.${key}`)) return t(`runtime.${key}` as AdminKey);
  return null;
}

function plainValue(key: string, value: unknown, t: AT, lang: Lang): string {
  if (typeof value === "boolean") return t(value ? "common.yes" : "common.no");
  if (typeof value === "number" && /(_at|^time)$/.test(key)) return formatTime(value, lang, true);
  if (typeof value === "number" && (key === "size" || /(^|_)bytes$/.test(key)))
    return formatBytes(value);
  if (typeof value === "number") return value.toLocaleString(lang);
  if (key === "renewal_mode" && (value === "default" || value === "term"))
    return t(value === "default" ? "policy.modeDefault" : "policy.modeTerm");
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/**
 * One detail member as label and value, e.g. "Reason" and "wrong password"; null for a member
 * this console has no words for (see `detailText`).
 */
export function detailPart(
  key: string,
  value: unknown,
  t: AT,
  lang: Lang,
): { label: string; value: string } | null {
  if (!isKey(`detail.${key}`)) return null;
  const label = t(`detail.${key}` as AdminKey);
  // A reason is worded like the others ("wrong password", "expired"); a state like a badge.
  if (key === "reason" && typeof value === "string") {
    const text = isKey(`reason.${value}`)
      ? t(`reason.${value}` as AdminKey)
      : known(`state.${value}`, value, t);
    return { label, value: text };
  }
  if (key === "state" && typeof value === "string") {
    return { label, value: known(`state.${value}`, value, t) };
  }
  if (key === "changed" && value && typeof value === "object" && !Array.isArray(value)) {
    // A setting this console does not know is left out, as an unknown member is below.
    const text = Object.entries(value as Record<string, unknown>)
      .flatMap(([k, v]) => {
        const name = settingName(k, t);
        return name === null ? [] : [`${name} = ${plainValue(k, v, t, lang)}`];
      })
      .join(", ");
    return { label, value: text || "—" };
  }
  return { label, value: plainValue(key, value, t, lang) };
}

/** Members the target column already says (the file's name, its parcel). */
export const SAID_BY_TARGET: ReadonlySet<string> = new Set(["name", "parcel"]);

/**
 * Members left out when another member of the same detail has the same value: a complete
 * download of one file records the file's `size` and the `bytes` sent, the same number.
 */
export const SAID_BY_OTHER: ReadonlyMap<string, string> = new Map([["size", "bytes"]]);

/**
 * What `bytes` counts where it is not the parcel's size: what had arrived when an upload
 * failed, what a download sent, what a cleanup freed.
 */
const BYTES_LABEL: Readonly<Record<string, AdminKey>> = {
  "upload.fail": "detail.bytesReceived",
  "download.complete": "detail.bytesSent",
  "admin.cleanup": "detail.bytesFreed",
};

/**
 * The detail in words, its members in the order recorded and joined by " · "; "" when none
 * is left to say. A member without words here (one a newer service writes) is left out
 * rather than shown by its key: a key is not a sentence, a value without its label means
 * nothing, and the whole detail stays in the cell's tooltip for whoever needs it.
 */
export function detailText(
  detail: Record<string, unknown>,
  t: AT,
  lang: Lang,
  action = "",
): string {
  return Object.entries(detail)
    .filter(([k]) => !SAID_BY_TARGET.has(k))
    .filter(([k, v]) => {
      const other = SAID_BY_OTHER.get(k);
      return other === undefined || detail[other] !== v;
    })
    .flatMap(([k, v]) => {
      const part = detailPart(k, v, t, lang);
      if (!part) return [];
      const label = k === "bytes" && action in BYTES_LABEL ? t(BYTES_LABEL[action]) : part.label;
      return [t("audit.detailPair", { label, value: part.value })];
    })
    .join(" · ");
}

/**
 * `admin:root@192.168.1.20` as "Administrator root · 192.168.1.20"; the forms the service
 * writes are `admin:<name>`, `visitor:<8 chars>`, `token` and `anonymous`, then `@<ip>`.
 */
export function sourceText(source: string, t: AT): string {
  const at = source.lastIndexOf("@");
  if (at < 0) return source;
  const actor = source.slice(0, at);
  const ip = source.slice(at + 1);
  const where = ip === "local" ? t("source.local") : ip;
  let who: string;
  if (actor.startsWith("admin:")) who = t("source.admin", { name: actor.slice(6) });
  else if (actor.startsWith("visitor:")) who = t("source.visitor", { id: actor.slice(8) });
  else if (actor === "token") who = t("source.token");
  else if (actor === "anonymous") who = t("source.anonymous");
  else return source;
  return `${who} · ${where}`;
}

/**
 * A target as people know it: `file:<id>` by the file's name, `parcel:<id>` by its first
 * file names, `policy` as "Policy". Ids are never the words: a file or parcel that is gone
 * and left no name is said to be gone (the id stays in the cell's tooltip).
 */
export function targetText(record: Pick<AuditRecord, "target" | "target_name">, t: AT): string {
  const { target } = record;
  const colon = target.indexOf(":");
  if (colon < 0) return known(`target.${target}`, target, t);
  const kind = target.slice(0, colon);
  const name = record.target_name;
  if (kind === "file") {
    return name ? t("target.file", { name: name.files[0] ?? "" }) : t("target.fileGone");
  }
  if (kind === "parcel") {
    if (!name) return t("target.parcelGone");
    const rest = name.total - name.files.length;
    const shown = name.files.join(", ");
    const names = rest > 0 ? `${shown} ${t("parcels.moreFiles", { n: rest })}` : shown;
    return t(name.removed_at === null ? "target.parcel" : "target.parcelRemoved", { names });
  }
  return target;
}

/**
 * What else tells a removed parcel apart: how many files, their size, the last characters of
 * its code, when cleanup removed it; "" for anything else (the target's names say enough).
 */
export function targetFacts(
  record: Pick<AuditRecord, "target" | "target_name">,
  t: AT,
  lang: Lang,
): string {
  const name = record.target_name;
  if (!record.target.startsWith("parcel:") || !name || name.removed_at === null) return "";
  return [
    t("target.files", { n: name.total }),
    name.bytes === null ? "" : formatBytes(name.bytes),
    name.code_tail ? t("target.codeTail", { tail: name.code_tail }) : "",
    t("target.removedAt", { time: formatTime(name.removed_at, lang) }),
  ]
    .filter(Boolean)
    .join(" · ");
}
