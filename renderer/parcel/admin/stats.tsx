import { useCallback, useEffect, useState } from "react";
import { formatBytes } from "../../shared/format.js";
import { useApp } from "../store.js";
import type { ParcelState } from "../../../server/contract/parcel-views.js";
import { useFilters } from "./filters.js";
import { RecentProblemsCard } from "./problems.js";
import { VerifyCard } from "./verify-card.js";
import { useA } from "./i18n.js";
import type { CleanupResult, Stats } from "../../../server/contract/parcel-admin.js";
import { adminApi } from "./session.js";
import {
  Alert,
  Card,
  StateBadge,
  UsageBar,
  countText,
  formatCount,
  formatTime,
  useAction,
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
const REFRESH_MS = 15_000;

/** The parcels tab, filtered to one state (the link itself does the navigation). */
function showState(state: ParcelState): void {
  useFilters.getState().setParcels({ q: "", state });
}

function percent(part: number, whole: number): string {
  if (whole <= 0) return "0 %";
  return `${Math.round((part / whole) * 1000) / 10} %`;
}

function Cleanup({ onDone }: { onDone(): void }) {
  const t = useA();
  const lang = useApp((s) => s.lang);
  const action = useAction();
  const [result, setResult] = useState<CleanupResult | null>(null);
  const run = () =>
    void action.run(async () => {
      setResult(null);
      const r = await adminApi("POST /admin/cleanup");
      setResult(r);
      onDone();
    });
  return (
    <Card title={t("cleanup.title")}>
      <p className="muted">{t("cleanup.intro")}</p>
      <button type="button" onClick={run} disabled={action.busy}>
        {action.busy ? t("common.working") : t("cleanup.run")}
      </button>
      <Alert text={action.error} />
      {result ? (
        <p className="adm-alert adm-alert-ok" role="status" data-testid="cleanup-result">
          {result.parcels === 0 && result.files === 0 && result.bytes === 0
            ? t("cleanup.nothing")
            : t("cleanup.result", {
                parcels: countText(result.parcels, "cleanup.parcels", t, lang),
                files: countText(result.files, "cleanup.files", t, lang),
                bytes: formatBytes(result.bytes),
              })}
        </p>
      ) : null}
    </Card>
  );
}

/**
 * The figures, loaded again every 15 s while the page is shown and on `refresh`; `tick` counts
 * the loads (the verify and problems cards reload with it); `updated` is when the last came.
 */
function useStats() {
  const [tick, setTick] = useState(0);
  const stats = useLoad(String(tick), (signal) => adminApi("GET /admin/stats", { signal }));
  const [updated, setUpdated] = useState<number | null>(null);
  useEffect(() => {
    if (stats.data) setUpdated(Math.floor(Date.now() / 1000));
  }, [stats.data]);
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") setTick((n) => n + 1);
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  const refresh = useCallback(() => setTick((n) => n + 1), []);
  return { stats, tick, refresh, updated };
}

/** How many parcels, and how many in each state (each a link to the parcels of that state). */
function ParcelsCard({ s }: { s: Stats }) {
  const t = useA();
  const lang = useApp((st) => st.lang);
  return (
    <Card title={t("stats.parcels")}>
      <p className="adm-big" data-testid="stats-total">
        {t("stats.parcelsTotal", {
          n: formatCount(s.parcels.total, lang),
        })}
      </p>
      <ul className="adm-states" aria-label={t("stats.byState")}>
        {STATES.map((st) => (
          <li key={st} data-testid={`stats-state-${st}`}>
            <a href="#/admin/parcels" onClick={() => showState(st)}>
              <StateBadge state={st} />
              <strong>{formatCount(s.parcels.by_state[st] ?? 0, lang)}</strong>
            </a>
          </li>
        ))}
      </ul>
    </Card>
  );
}

/** Files, stored copies and bytes: what the parcels hold and what that takes on disk. */
function StorageCard({ s }: { s: Stats }) {
  const t = useA();
  const lang = useApp((st) => st.lang);
  const savings = Math.max(0, s.logical_bytes - s.stored_bytes);
  return (
    <Card title={t("stats.storage")}>
      <dl className="adm-facts">
        <div>
          <dt>{t("stats.files")}</dt>
          <dd data-testid="stats-files">{formatCount(s.files.total, lang)}</dd>
        </div>
        <div>
          <dt>{t("stats.blobs")}</dt>
          <dd>{formatCount(s.files.blobs, lang)}</dd>
        </div>
        <div>
          <dt>{t("stats.logical")}</dt>
          <dd data-testid="stats-logical">{formatBytes(s.logical_bytes)}</dd>
        </div>
        <div>
          <dt>{t("stats.stored")}</dt>
          <dd>{formatBytes(s.stored_bytes)}</dd>
        </div>
        <div>
          <dt>{t("stats.savings")}</dt>
          <dd>
            {formatBytes(savings)}{" "}
            <span className="muted">({percent(savings, s.logical_bytes)})</span>
          </dd>
        </div>
        <div>
          <dt>{t("stats.reserved")}</dt>
          <dd>{formatBytes(s.reserved_bytes)}</dd>
        </div>
      </dl>
      <p className="muted adm-note" data-testid="stats-files-note">
        {t("stats.filesNote")}
      </p>
    </Card>
  );
}

/** The file, data and disk budgets as bars, and how much can still be uploaded. */
function BudgetsCard({ s }: { s: Stats }) {
  const t = useA();
  const lang = useApp((st) => st.lang);
  const b = s.budgets;
  const uploadable = Math.max(0, b.disk_free_bytes - b.disk_headroom_bytes - s.reserved_bytes);
  return (
    <Card title={t("stats.budgets")}>
      <UsageBar
        label={t("stats.fileBudget")}
        used={b.files_used}
        limit={b.file_budget}
        text={t("stats.ofCount", {
          used: formatCount(b.files_used, lang),
          limit: formatCount(b.file_budget, lang),
        })}
      />
      <UsageBar
        label={t("stats.dataBudget")}
        used={b.data_used_bytes}
        limit={b.data_budget_bytes}
        text={t("stats.ofBytes", {
          used: formatBytes(b.data_used_bytes),
          limit: formatBytes(b.data_budget_bytes),
        })}
      />
      <UsageBar
        label={t("stats.disk")}
        used={b.disk_headroom_bytes + s.reserved_bytes}
        limit={b.disk_free_bytes}
        text={t("stats.diskText", {
          free: formatBytes(b.disk_free_bytes),
          headroom: formatBytes(b.disk_headroom_bytes),
          reserved: formatBytes(s.reserved_bytes),
        })}
      />
      <p className="muted adm-note">
        {uploadable > 0
          ? t("stats.uploadable", { bytes: formatBytes(uploadable) })
          : t("stats.diskFull")}
      </p>
    </Card>
  );
}

/** Uploads and downloads running now. */
function ActivityCard({ s }: { s: Stats }) {
  const t = useA();
  const lang = useApp((st) => st.lang);
  return (
    <Card title={t("stats.activity")}>
      <dl className="adm-facts">
        <div>
          <dt>{t("stats.uploadsActive")}</dt>
          <dd>{formatCount(s.concurrency.uploads_active, lang)}</dd>
        </div>
        <div>
          <dt>{t("stats.downloadsActive")}</dt>
          <dd>{formatCount(s.concurrency.downloads_active, lang)}</dd>
        </div>
      </dl>
    </Card>
  );
}

export function StatsTab() {
  const t = useA();
  const lang = useApp((s) => s.lang);
  const { stats, tick, refresh, updated } = useStats();
  const s = stats.data;
  return (
    <div className="adm-stats">
      <div className="adm-toolbar">
        <button type="button" onClick={refresh} disabled={stats.loading}>
          {stats.loading ? t("common.loading") : t("stats.refresh")}
        </button>
        <span className="muted" aria-live="polite">
          {updated ? t("stats.updated", { time: formatTime(updated, lang, true) }) : ""}
        </span>
      </div>
      <Alert text={stats.error} />
      {s ? (
        <div className="adm-grid">
          <ParcelsCard s={s} />
          <StorageCard s={s} />
          <BudgetsCard s={s} />
          <ActivityCard s={s} />
          <Cleanup onDone={refresh} />
          <VerifyCard tick={tick} onFinished={refresh} />
          <RecentProblemsCard tick={tick} />
        </div>
      ) : null}
    </div>
  );
}
