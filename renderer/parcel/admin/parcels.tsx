import { useEffect, useState, type Dispatch, type SetStateAction } from "react";
import type {
  AdminParcelView as AdminParcel,
  ParcelState,
  Share,
} from "../../../server/contract/parcel-views.js";
import { DAY_S } from "../../../server/contract/time-units.js";
import { PAGE_SIZES, useFilters, type ParcelQuery } from "./filters.js";
import { useA } from "./i18n.js";
import { parcelName } from "./parcel-name.js";
import { ParcelRow } from "./parcel-row.js";
import { ShareCard } from "./share.js";
import { adminApi } from "./session.js";
import {
  Alert,
  Pager,
  MatchCount,
  PageSizeSelect,
  useAction,
  useConfirm,
  useLoad,
  type Loaded,
} from "./ui.js";

export { LIVE } from "./parcel-row.js";

const STATES: ParcelState[] = [
  "uploading",
  "published",
  "review",
  "expired",
  "exhausted",
  "revoked",
];
const ENDED: ParcelState[] = ["expired", "exhausted", "revoked"];
const SEARCH_DELAY_MS = 300;

/** The share a reissue gave, and whether the parcel has ended since (its code is dead). */
interface Reissued {
  id: string;
  name: string;
  share: Share;
  /** Deleted here, or seen ended in the list (revoked by its owner, expired, used up). */
  withdrawn: "deleted" | "ended" | null;
}

function queryOf(f: ParcelQuery) {
  return {
    page: String(f.page),
    page_size: String(f.pageSize),
    ...(f.q ? { q: f.q } : {}),
    ...(f.state ? { state: f.state } : {}),
  };
}

/**
 * The search box's text: typing settles for a moment before the search runs (and the list
 * returns to page 1).
 */
function useSearchDraft(applied: string, setParcels: (patch: Partial<ParcelQuery>) => void) {
  const [draft, setDraft] = useState(applied);
  useEffect(() => {
    const q = draft.trim();
    if (q === applied) return;
    const timer = setTimeout(() => setParcels({ q }), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [draft, applied, setParcels]);
  return [draft, setDraft] as const;
}

/**
 * The share the last reissue gave. A reissued code dies with its parcel: once the list shows
 * the parcel ended (deleted here, revoked by its owner, expired), the card says so instead of
 * offering the code. The list loaded before the reissue still shows the parcel locked: a lock
 * counts only when it came after the reissue (the expiry the reissue set is still the parcel's).
 */
function useReissued(items: AdminParcel[] | undefined) {
  const [reissued, setReissued] = useState<Reissued | null>(null);
  const ended = items?.find(
    (p) =>
      p.id === reissued?.id &&
      (ENDED.includes(p.state) ||
        (p.state === "review" && p.expires_at === reissued.share.expires_at)),
  );
  useEffect(() => {
    if (ended) setReissued((r) => (r && !r.withdrawn ? { ...r, withdrawn: "ended" } : r));
  }, [ended]);
  const withdraw = (id: string) =>
    setReissued((r) => (r && r.id === id ? { ...r, withdrawn: "deleted" } : r));
  return { reissued, setReissued, withdraw };
}

/** Which rows show their files. */
function useOpenRows() {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((old) => {
      const next = new Set(old);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return { open, toggle };
}

/** The row actions: each asks first, runs, then reloads the list. */
function useParcelActions(
  reload: () => void,
  withdraw: (id: string) => void,
  setReissued: Dispatch<SetStateAction<Reissued | null>>,
) {
  const t = useA();
  const action = useAction();
  const confirm = useConfirm();
  const deleteParcel = async (p: AdminParcel) => {
    const name = parcelName(p, t);
    if (!(await confirm.ask(t("parcels.confirmDelete", { name }), t("parcels.delete")))) return;
    const ok = await action.run(
      () => adminApi("POST /admin/parcels/:id/delete", { params: { id: p.id } }),
      () => t("parcels.deleted", { name }),
    );
    if (ok) withdraw(p.id);
    reload();
  };
  const deleteFile = async (p: AdminParcel, file: { id: string; name: string }) => {
    const last = p.files.length === 1;
    const text = t(last ? "parcels.confirmDeleteLastFile" : "parcels.confirmDeleteFile", {
      name: file.name,
    });
    if (!(await confirm.ask(text, t("parcels.deleteFile")))) return;
    await action.run(
      async () => {
        const now = await adminApi("POST /admin/files/:id/delete", { params: { id: file.id } });
        if (now.state !== "published") withdraw(p.id);
      },
      () => t("parcels.fileDeleted", { name: file.name }),
    );
    reload();
  };
  /**
   * Reissue starts the parcel again on the current defaults, not on what its sender chose:
   * the question says both before anything changes.
   */
  const reissue = async (p: AdminParcel) => {
    const name = parcelName(p, t);
    let question = "";
    const read = await action.run(async () => {
      const policy = await adminApi("GET /admin/policy");
      const term = Math.max(1, Math.round((p.expires_at - (p.sent_at ?? p.created_at)) / DAY_S));
      question = t("parcels.confirmReissue", {
        name,
        downloads: t("parcels.downloadsCount", { n: policy.default_downloads }),
        days: t("parcels.daysCount", { n: policy.default_days }),
        wasDownloads: t("parcels.downloadsCount", { n: p.downloads_allowed }),
        wasDays: t("parcels.daysCount", { n: term }),
      });
    });
    if (!read || !(await confirm.ask(question, t("parcels.reissue")))) return;
    setReissued(null);
    await action.run(async () => {
      const share = await adminApi("POST /admin/parcels/:id/reissue", { params: { id: p.id } });
      setReissued({ id: p.id, name, share, withdrawn: null });
    });
    reload();
  };
  return { action, confirm, deleteParcel, deleteFile, reissue };
}

type ParcelActions = ReturnType<typeof useParcelActions>;

/** Search text, state, page size and refresh. */
function ParcelToolbar({
  draft,
  setDraft,
  list,
}: {
  draft: string;
  setDraft: (draft: string) => void;
  list: Loaded<unknown>;
}) {
  const t = useA();
  const { parcels: f, setParcels } = useFilters();
  return (
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
  );
}

/** One page of parcels, each row with its actions. */
function ParcelTable({
  items,
  loading,
  rows,
  actions,
}: {
  items: AdminParcel[];
  loading: boolean;
  rows: ReturnType<typeof useOpenRows>;
  actions: ParcelActions;
}) {
  const t = useA();
  const { open, toggle } = rows;
  return (
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
        <tbody aria-busy={loading}>
          {items.map((p) => (
            <ParcelRow
              key={p.id}
              parcel={p}
              expanded={open.has(p.id)}
              busy={actions.action.busy}
              onToggle={() => toggle(p.id)}
              onReissue={() => void actions.reissue(p)}
              onDelete={() => void actions.deleteParcel(p)}
              onDeleteFile={(file) => void actions.deleteFile(p, file)}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ParcelsTab() {
  const t = useA();
  const { parcels: f, setParcels } = useFilters();
  const [draft, setDraft] = useSearchDraft(f.q, setParcels);
  const query = queryOf(f);
  const list = useLoad(new URLSearchParams(query).toString(), (signal) =>
    adminApi("GET /admin/parcels", { query, signal }),
  );
  const data = list.data;
  const { reissued, setReissued, withdraw } = useReissued(data?.items);
  const rows = useOpenRows();
  const actions = useParcelActions(list.reload, withdraw, setReissued);
  const { action, confirm } = actions;
  return (
    <div className="adm-parcels">
      <ParcelToolbar draft={draft} setDraft={setDraft} list={list} />
      <p className="muted adm-count" role="status" data-testid="parcel-count">
        <MatchCount loading={list.loading} total={data?.total} text="parcels.count" />
      </p>
      <Alert text={list.error} />
      <Alert text={action.error} />
      <Alert kind="ok" text={action.done} />
      {reissued ? (
        <ShareCard
          name={reissued.name}
          share={reissued.share}
          withdrawn={reissued.withdrawn}
          onClose={() => setReissued(null)}
        />
      ) : null}
      {data && data.items.length === 0 ? (
        <p className="adm-empty">{f.q || f.state ? t("parcels.noMatch") : t("parcels.none")}</p>
      ) : null}
      {data && data.items.length > 0 ? (
        <ParcelTable items={data.items} loading={list.loading} rows={rows} actions={actions} />
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
