import { useState, type FormEvent } from "react";
import { navigate } from "../route.js";
import { useApp } from "../store.js";
import type { Page } from "../types.js";
import { formatBytes } from "../../shared/format.js";
import type { Lang } from "../../shared/lang.js";
import {
  localToUnix,
  localToUnixEnd,
  localZone,
  presetRange,
  useFilters,
  type AuditQuery,
  type RangePreset,
} from "./filters.js";
import { useA, type AdminKey } from "./i18n.js";
import { adminApi } from "./session.js";
import type { AuditRecord } from "./types.js";
import { Alert, Field, MatchCount, PageSizeSelect, Pager, formatTime, useLoad } from "./ui.js";

/** Every action the service records (CONTRACT 2.3). */
export const ACTIONS = [
  "upload.create",
  "upload.fail",
  "parcel.publish",
  "parcel.revoke",
  "parcel.code",
  "parcel.lock",
  "pickup.resolve",
  "pickup.deny",
  "download.start",
  "download.complete",
  "admin.login",
  "admin.login_fail",
  "admin.logout",
  "admin.parcel_delete",
  "admin.file_delete",
  "admin.reissue",
  "admin.policy",
  "admin.runtime",
  "admin.cleanup",
  "system.start",
] as const;
const AUDIT_PAGE_SIZES = [20, 50, 100];
const PRESETS: Array<[RangePreset, AdminKey]> = [
  ["hour", "audit.lastHour"],
  ["today", "audit.today"],
  ["week", "audit.lastWeek"],
];

function queryString(f: AuditQuery): string {
  const p = new URLSearchParams({ page: String(f.page), page_size: String(f.pageSize) });
  if (f.action) p.set("action", f.action);
  if (f.source) p.set("source", f.source);
  if (f.target) p.set("target", f.target);
  const from = f.from ? localToUnix(f.from) : null;
  const to = f.to ? localToUnixEnd(f.to) : null;
  if (from !== null) p.set("from", String(from));
  if (to !== null) p.set("to", String(to));
  return p.toString();
}

/** A detail value for people: times and sizes formatted, nested objects as key=value. */
function detailValue(key: string, value: unknown, lang: Lang): string {
  if (typeof value === "number" && /(_at|^time)$/.test(key)) return formatTime(value, lang, true);
  if (typeof value === "number" && /(^|_)bytes$/.test(key)) return formatBytes(value);
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return "—";
    return entries.map(([k, v]) => `${k}=${detailValue(k, v, lang)}`).join(", ");
  }
  return typeof value === "string" ? value : JSON.stringify(value);
}

function detailText(detail: Record<string, unknown>, lang: Lang): string {
  return Object.entries(detail)
    .map(([k, v]) => `${k}: ${detailValue(k, v, lang)}`)
    .join(" · ");
}

/** Lets `admin:root@192.168.1.20` and `parcel:<id>` wrap after the separators only. */
function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?<=[@:])/);
  return (
    <>
      {parts.map((p, i) => (
        <span key={i}>
          {p}
          {i < parts.length - 1 ? <wbr /> : null}
        </span>
      ))}
    </>
  );
}

function Filters() {
  const t = useA();
  const { audit: f, setAudit } = useFilters();
  const [d, setD] = useState({
    action: f.action,
    source: f.source,
    target: f.target,
    from: f.from,
    to: f.to,
  });
  const from = d.from ? localToUnix(d.from) : null;
  const to = d.to ? localToUnixEnd(d.to) : null;
  const fromError = d.from && from === null ? t("audit.badTime") : "";
  const toError =
    d.to && to === null
      ? t("audit.badTime")
      : from !== null && to !== null && from > to
        ? t("audit.toBeforeFrom")
        : "";
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (fromError || toError) return;
    setAudit({ ...d, source: d.source.trim(), target: d.target.trim() });
  };
  const clear = () => {
    const empty = { action: "", source: "", target: "", from: "", to: "" };
    setD(empty);
    setAudit(empty);
  };
  const zone = localZone();
  return (
    <form
      className="adm-audit-filters"
      onSubmit={submit}
      noValidate
      role="search"
      aria-label={t("audit.filters")}
    >
      <Field label={t("audit.action")}>
        {(p) => (
          <select {...p} value={d.action} onChange={(e) => setD({ ...d, action: e.target.value })}>
            <option value="">{t("audit.anyAction")}</option>
            {ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={t("audit.source")} hint={t("audit.sourceHint")}>
        {(p) => (
          <input
            {...p}
            value={d.source}
            spellCheck={false}
            onChange={(e) => setD({ ...d, source: e.target.value })}
          />
        )}
      </Field>
      <Field label={t("audit.target")} hint={t("audit.targetHint")}>
        {(p) => (
          <input
            {...p}
            value={d.target}
            spellCheck={false}
            onChange={(e) => setD({ ...d, target: e.target.value })}
          />
        )}
      </Field>
      <Field label={t("audit.from")} error={fromError} hint={zone ? t("audit.zone", { zone }) : ""}>
        {(p) => (
          <input
            {...p}
            type="datetime-local"
            value={d.from}
            onChange={(e) => setD({ ...d, from: e.target.value })}
          />
        )}
      </Field>
      <Field label={t("audit.to")} error={toError} hint={t("audit.toHint")}>
        {(p) => (
          <input
            {...p}
            type="datetime-local"
            value={d.to}
            onChange={(e) => setD({ ...d, to: e.target.value })}
          />
        )}
      </Field>
      <div className="adm-form-actions">
        <button type="submit" className="primary">
          {t("audit.apply")}
        </button>
        <button type="button" onClick={clear}>
          {t("audit.clear")}
        </button>
        <div className="adm-presets" role="group" aria-label={t("audit.presets")}>
          {PRESETS.map(([preset, label]) => (
            <button
              key={preset}
              type="button"
              className="small"
              onClick={() => {
                const next = { ...d, ...presetRange(preset) };
                setD(next);
                setAudit({ ...next, source: next.source.trim(), target: next.target.trim() });
              }}
            >
              {t(label)}
            </button>
          ))}
        </div>
      </div>
    </form>
  );
}

/** Opens the parcels tab searching for one parcel id. */
function showParcel(id: string): void {
  useFilters.getState().setParcels({ q: id, state: "" });
  navigate("admin/parcels");
}

export function AuditTab() {
  const t = useA();
  const lang = useApp((s) => s.lang);
  const { audit: f, setAudit } = useFilters();
  const key = queryString(f);
  const list = useLoad(key, (signal) =>
    adminApi<Page<AuditRecord>>("GET", `/audit?${key}`, undefined, signal),
  );
  const data = list.data;
  const filtered = Boolean(f.action || f.source || f.target || f.from || f.to);
  return (
    <div className="adm-audit">
      <Filters />
      <div className="adm-toolbar">
        <PageSizeSelect
          value={f.pageSize}
          sizes={AUDIT_PAGE_SIZES}
          onChange={(pageSize) => setAudit({ pageSize })}
        />
        <button type="button" onClick={list.reload} disabled={list.loading}>
          {t("stats.refresh")}
        </button>
        <span className="muted" role="status" data-testid="audit-count">
          <MatchCount
            loading={list.loading}
            total={data?.total}
            one="audit.countOne"
            many="audit.count"
          />
        </span>
      </div>
      <Alert text={list.error} />
      {data && data.items.length === 0 ? (
        <p className="adm-empty">{filtered ? t("audit.noMatch") : t("audit.none")}</p>
      ) : null}
      {data && data.items.length > 0 ? (
        <div className="adm-table-box">
          <table className="adm-table adm-audit-table" aria-label={t("tab.audit")}>
            <thead>
              <tr>
                <th scope="col">{t("audit.time")}</th>
                <th scope="col">{t("audit.action")}</th>
                <th scope="col">{t("audit.source")}</th>
                <th scope="col">{t("audit.target")}</th>
                <th scope="col">{t("audit.detail")}</th>
              </tr>
            </thead>
            <tbody aria-busy={list.loading}>
              {data.items.map((r) => (
                <tr key={r.id} data-testid="audit-row">
                  <td data-label={t("audit.time")}>
                    <time dateTime={new Date(r.time * 1000).toISOString()}>
                      {formatTime(r.time, lang, true)}
                    </time>
                  </td>
                  <td data-label={t("audit.action")}>
                    <span className="mono">{r.action}</span>
                  </td>
                  <td data-label={t("audit.source")}>
                    <span className="mono adm-break">
                      <Breakable text={r.source} />
                    </span>
                  </td>
                  <td data-label={t("audit.target")}>
                    <span className="mono adm-break">
                      <Breakable text={r.target} />
                    </span>
                    {r.target.startsWith("parcel:") ? (
                      <button
                        type="button"
                        className="linkish adm-link"
                        onClick={() => showParcel(r.target.slice("parcel:".length))}
                      >
                        {t("audit.showParcel")}
                      </button>
                    ) : null}
                  </td>
                  <td data-label={t("audit.detail")}>
                    <span className="mono adm-wrap adm-detail-text">
                      {Object.keys(r.detail).length > 0 ? detailText(r.detail, lang) : "—"}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {data && data.total > 0 ? (
        <Pager
          page={data.page}
          pages={data.pages}
          total={data.total}
          onPage={(page) => setAudit({ page })}
          label={t("audit.pages")}
        />
      ) : null}
    </div>
  );
}
