import { Fragment, useEffect, useState } from "react";
import { formatBytes, formatDuration } from "../../shared/format.js";
import { useApp } from "../store.js";
import { AdminParcelPageSchema } from "../../../server/contract/parcel-admin.js";
import {
  AdminParcelViewSchema,
  ReissuedSchema,
  type AdminParcelView as AdminParcel,
  type ParcelState,
  type Share,
} from "../../../server/contract/parcel-views.js";
import { PAGE_SIZES, useFilters, type ParcelQuery } from "./filters.js";
import { useA } from "./i18n.js";
import { NAMES_SHOWN, parcelName } from "./parcel-name.js";
import { ParcelFiles } from "./parcel-files.js";
import { ShareCard } from "./share.js";
import { adminCall } from "./session.js";
import {
  Alert,
  Pager,
  StateBadge,
  MatchCount,
  PageSizeSelect,
  formatTime,
  useAction,
  useConfirm,
  useLoad,
} from "./ui.js";

const STATES: ParcelState[] = [
  "uploading",
  "published",
  "review",
  "expired",
  "exhausted",
  "revoked",
];
/** States in which a parcel still holds files someone can pick up (or will). */
export const LIVE: ParcelState[] = ["uploading", "published", "review"];
const SEARCH_DELAY_MS = 300;

function queryString(f: ParcelQuery): string {
  const p = new URLSearchParams({ page: String(f.page), page_size: String(f.pageSize) });
  if (f.q) p.set("q", f.q);
  if (f.state) p.set("state", f.state);
  return p.toString();
}

/** The names cell: each shown name on its own line (cut with … when long), then "+N more". */
function FileNames({ parcel }: { parcel: AdminParcel }) {
  const t = useA();
  if (parcel.files.length === 0) return <span className="muted">{t("parcels.noFilesShort")}</span>;
  const shown = parcel.files.slice(0, NAMES_SHOWN);
  const rest = parcel.files.length - shown.length;
  return (
    <span className="adm-names" title={parcel.files.map((f) => f.name).join("\n")}>
      {shown.map((f) => (
        <span key={f.id} className="adm-name">
          {f.name}
        </span>
      ))}
      {rest > 0 ? (
        <span className="muted adm-more">{t("parcels.moreFiles", { n: rest })}</span>
      ) : null}
    </span>
  );
}

export function ParcelsTab() {
  const t = useA();
  const lang = useApp((s) => s.lang);
  const { parcels: f, setParcels } = useFilters();
  const [draft, setDraft] = useState(f.q);
  // Typing settles for a moment before the search runs (and the list returns to page 1).
  useEffect(() => {
    const q = draft.trim();
    if (q === f.q) return;
    const timer = setTimeout(() => setParcels({ q }), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [draft, f.q, setParcels]);
  const key = queryString(f);
  const list = useLoad(key, (signal) =>
    adminCall(AdminParcelPageSchema, "GET", `/parcels?${key}`, undefined, signal),
  );
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const [reissued, setReissued] = useState<{ name: string; share: Share } | null>(null);
  const action = useAction();
  const confirm = useConfirm();
  const now = Math.floor(Date.now() / 1000);

  const toggle = (id: string) =>
    setOpen((old) => {
      const next = new Set(old);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const deleteParcel = async (p: AdminParcel) => {
    const name = parcelName(p, t);
    if (!(await confirm.ask(t("parcels.confirmDelete", { name }), t("parcels.delete")))) return;
    await action.run(
      () => adminCall(AdminParcelViewSchema, "POST", `/parcels/${encodeURIComponent(p.id)}/delete`),
      () => t("parcels.deleted", { name }),
    );
    list.reload();
  };
  const deleteFile = async (p: AdminParcel, file: { id: string; name: string }) => {
    const last = p.files.length === 1;
    const text = t(last ? "parcels.confirmDeleteLastFile" : "parcels.confirmDeleteFile", {
      name: file.name,
    });
    if (!(await confirm.ask(text, t("parcels.deleteFile")))) return;
    await action.run(
      () =>
        adminCall(AdminParcelViewSchema, "POST", `/files/${encodeURIComponent(file.id)}/delete`),
      () => t("parcels.fileDeleted", { name: file.name }),
    );
    list.reload();
  };
  const reissue = async (p: AdminParcel) => {
    const name = parcelName(p, t);
    if (!(await confirm.ask(t("parcels.confirmReissue", { name }), t("parcels.reissue")))) return;
    setReissued(null);
    await action.run(async () => {
      const share = await adminCall(
        ReissuedSchema,
        "POST",
        `/parcels/${encodeURIComponent(p.id)}/reissue`,
      );
      setReissued({ name, share });
    });
    list.reload();
  };

  const data = list.data;
  return (
    <div className="adm-parcels">
      <div className="adm-toolbar adm-filters" role="search" aria-label={t("parcels.filters")}>
        <label className="adm-grow">
          <span className="adm-label">{t("parcels.search")}</span>
          <input
            type="search"
            value={draft}
            placeholder={t("parcels.searchHint")}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter") setParcels({ q: draft.trim() });
            }}
          />
        </label>
        <label>
          <span className="adm-label">{t("parcels.state")}</span>
          <select
            value={f.state}
            onChange={(e) => setParcels({ state: e.target.value as ParcelState | "" })}
          >
            <option value="">{t("parcels.anyState")}</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {t(`state.${s}`)}
              </option>
            ))}
          </select>
        </label>
        <PageSizeSelect
          value={f.pageSize}
          sizes={PAGE_SIZES}
          onChange={(pageSize) => setParcels({ pageSize })}
        />
        <button type="button" onClick={list.reload} disabled={list.loading}>
          {t("stats.refresh")}
        </button>
      </div>
      <p className="muted adm-count" role="status" data-testid="parcel-count">
        <MatchCount loading={list.loading} total={data?.total} text="parcels.count" />
      </p>
      <Alert text={list.error} />
      <Alert text={action.error} />
      <Alert kind="ok" text={action.done} />
      {reissued ? (
        <ShareCard name={reissued.name} share={reissued.share} onClose={() => setReissued(null)} />
      ) : null}
      {data && data.items.length === 0 ? (
        <p className="adm-empty">{f.q || f.state ? t("parcels.noMatch") : t("parcels.none")}</p>
      ) : null}
      {data && data.items.length > 0 ? (
        <div className="adm-table-box">
          <table className="adm-table adm-parcel-table" aria-label={t("tab.parcels")}>
            <thead>
              <tr>
                <th scope="col">{t("parcels.files")}</th>
                <th scope="col">{t("parcels.state")}</th>
                <th scope="col">{t("parcels.size")}</th>
                <th scope="col" className="adm-col-owner">
                  {t("parcels.owner")}
                </th>
                <th scope="col" className="adm-col-sent">
                  {t("parcels.sent")}
                </th>
                <th scope="col">{t("parcels.expires")}</th>
                <th scope="col">{t("parcels.downloads")}</th>
                <th scope="col">
                  <span className="sr-only">{t("common.actions")}</span>
                </th>
              </tr>
            </thead>
            <tbody aria-busy={list.loading}>
              {data.items.map((p) => {
                const expanded = open.has(p.id);
                const live = LIVE.includes(p.state);
                const filesId = `files-${p.id}`;
                return (
                  <Fragment key={p.id}>
                    <tr data-testid="parcel-row" data-id={p.id}>
                      <td data-label={t("parcels.files")} className="adm-col-names">
                        <FileNames parcel={p} />
                      </td>
                      <td data-label={t("parcels.state")}>
                        <StateBadge state={p.state} />
                      </td>
                      <td data-label={t("parcels.size")}>{formatBytes(p.bytes)}</td>
                      <td data-label={t("parcels.owner")} className="adm-col-owner">
                        {t(`owner.${p.owner}`)}
                      </td>
                      <td data-label={t("parcels.sent")} className="adm-col-sent">
                        {p.sent_at === null ? (
                          <span className="muted">{t("parcels.notSent")}</span>
                        ) : (
                          formatTime(p.sent_at, lang)
                        )}
                      </td>
                      <td data-label={t("parcels.expires")}>
                        <span>
                          {formatTime(p.expires_at, lang)}
                          {live && p.expires_at > now ? (
                            <span className="muted adm-sub">
                              {t(
                                p.state === "uploading" ? "parcels.sessionEnds" : "parcels.inTime",
                                {
                                  time: formatDuration(p.expires_at - now, lang),
                                },
                              )}
                            </span>
                          ) : null}
                        </span>
                      </td>
                      <td data-label={t("parcels.downloads")}>
                        {t("parcels.leftOf", {
                          left: p.downloads_left,
                          allowed: p.downloads_allowed,
                        })}
                      </td>
                      <td className="adm-actions">
                        <button
                          type="button"
                          className="small"
                          aria-expanded={expanded}
                          aria-controls={filesId}
                          onClick={() => toggle(p.id)}
                        >
                          {t(expanded ? "parcels.hideFiles" : "parcels.showFiles")}
                          <span className="sr-only"> {parcelName(p, t)}</span>
                        </button>
                        {p.state === "review" ? (
                          <button
                            type="button"
                            className="small"
                            disabled={action.busy}
                            onClick={() => void reissue(p)}
                          >
                            {t("parcels.reissue")}
                            <span className="sr-only"> {parcelName(p, t)}</span>
                          </button>
                        ) : null}
                        {live ? (
                          <button
                            type="button"
                            className="small danger"
                            disabled={action.busy}
                            onClick={() => void deleteParcel(p)}
                          >
                            {t("parcels.delete")}
                            <span className="sr-only"> {parcelName(p, t)}</span>
                          </button>
                        ) : null}
                      </td>
                    </tr>
                    {expanded ? (
                      <tr className="adm-detail-row" id={filesId}>
                        <td colSpan={8}>
                          <ParcelFiles
                            parcel={p}
                            canDelete={live && !action.busy}
                            onDelete={(file) => void deleteFile(p, file)}
                          />
                        </td>
                      </tr>
                    ) : null}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {data && data.total > 0 ? (
        <Pager
          page={data.page}
          pages={data.pages}
          total={data.total}
          onPage={(page) => setParcels({ page })}
          label={t("parcels.pages")}
        />
      ) : null}
      {confirm.dialog}
    </div>
  );
}
