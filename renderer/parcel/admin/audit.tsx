import type { AuditRecord } from "../../../server/contract/parcel-admin.js";
import { navigate } from "../route.js";
import { useApp } from "../store.js";
import { AuditFilters } from "./audit-filters.js";
import { actionName, detailText, sourceText, targetFacts, targetText } from "./audit-words.js";
import { localToUnix, localToUnixEnd, useFilters, type AuditQuery } from "./filters.js";
import { useA } from "./i18n.js";
import { adminApi } from "./session.js";
import { Alert, MatchCount, PageSizeSelect, Pager, formatTime, useLoad } from "./ui.js";

const AUDIT_PAGE_SIZES = [20, 50, 100];

function queryOf(f: AuditQuery): Record<string, string> {
  const p = new URLSearchParams({ page: String(f.page), page_size: String(f.pageSize) });
  if (f.action) p.set("action", f.action);
  if (f.source) p.set("source", f.source);
  if (f.target) p.set("target", f.target);
  const from = f.from ? localToUnix(f.from) : null;
  const to = f.to ? localToUnixEnd(f.to) : null;
  if (from !== null) p.set("from", String(from));
  if (to !== null) p.set("to", String(to));
  return Object.fromEntries(p);
}

/** Lets `Administrator root · 192.168.1.20` and long ids wrap after separators only. */
function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?<=[@:·])/);
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

/** Opens the parcels tab searching for one parcel id. */
function showParcel(id: string): void {
  useFilters.getState().setParcels({ q: id, state: "" });
  navigate("admin/parcels");
}

/** The records of one target: what a removed parcel's "show" leads to, its whole history. */
function showRecords(target: string): void {
  useFilters.getState().setAudit({ target, action: "", source: "", from: "", to: "", preset: "" });
}

/** Who or what a record is about, and where to look next: the parcel, or its whole history. */
function TargetCell({ r, shownTarget }: { r: AuditRecord; shownTarget: string }) {
  const t = useA();
  const lang = useApp((s) => s.lang);
  return (
    <td data-label={t("audit.target")}>
      <span className="adm-target">
        <span className="adm-break" title={r.target}>
          <Breakable text={targetText(r, t)} />
        </span>
        {targetFacts(r, t, lang) ? (
          <span className="muted adm-target-facts">{targetFacts(r, t, lang)}</span>
        ) : null}
      </span>
      {!r.target.startsWith("parcel:") ? null : r.target_name &&
        r.target_name.removed_at === null ? (
        <button
          type="button"
          className="linkish adm-link"
          onClick={() => showParcel(r.target.slice("parcel:".length))}
        >
          {t("audit.showParcel")}
        </button>
      ) : shownTarget === r.target ? null : (
        // Cleanup removed it: there is no parcel to show, only what happened to it.
        <button type="button" className="linkish adm-link" onClick={() => showRecords(r.target)}>
          {t("audit.showRecords")}
        </button>
      )}
    </td>
  );
}

/** One record: when, what, from where, about what, and its details, all in words. */
function AuditRow({ r, shownTarget }: { r: AuditRecord; shownTarget: string }) {
  const t = useA();
  const lang = useApp((s) => s.lang);
  return (
    <tr data-testid="audit-row">
      <td data-label={t("audit.time")}>
        <time dateTime={new Date(r.time * 1000).toISOString()}>
          {formatTime(r.time, lang, true)}
        </time>
      </td>
      <td data-label={t("audit.action")}>
        <span
          className="adm-action"
          title={t("audit.code", { code: r.action })}
          data-action={r.action}
        >
          {actionName(r.action, t)}
        </span>
      </td>
      <td data-label={t("audit.source")}>
        <span className="adm-break" title={r.source}>
          <Breakable text={sourceText(r.source, t)} />
        </span>
      </td>
      <TargetCell r={r} shownTarget={shownTarget} />
      <td data-label={t("audit.detail")}>
        <span className="adm-wrap adm-detail-text" title={JSON.stringify(r.detail)}>
          {detailText(r.detail, t, lang, r.action) || "—"}
        </span>
      </td>
    </tr>
  );
}

export function AuditTab() {
  const t = useA();
  const { audit: f, setAudit } = useFilters();
  const query = queryOf(f);
  const list = useLoad(new URLSearchParams(query).toString(), (signal) =>
    adminApi("GET /admin/audit", { query, signal }),
  );
  const data = list.data;
  const filtered = Boolean(f.action || f.source || f.target || f.from || f.to);
  return (
    <div className="adm-audit">
      <AuditFilters />
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
          <MatchCount loading={list.loading} total={data?.total} text="audit.count" />
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
                <AuditRow key={r.id} r={r} shownTarget={f.target} />
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
