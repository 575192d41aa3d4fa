import { useApp } from "../store.js";
import { useA } from "./i18n.js";
import { adminApi } from "./session.js";
import type { RecentProblems } from "./types.js";
import { Alert, Card, formatTime, useLoad } from "./ui.js";

/**
 * The service's last warnings and errors (`GET /admin/errors`), newest first, reloaded with
 * the overview. Messages are the service's own English sentences, marked as such for
 * screen readers; the request id finds the entry in the service's log.
 */
export function RecentProblemsCard({ tick }: { tick: number }) {
  const t = useA();
  const lang = useApp((s) => s.lang);
  const problems = useLoad(String(tick), (signal) =>
    adminApi<RecentProblems>("GET", "/errors", undefined, signal),
  );
  const items = problems.data?.items ?? [];
  return (
    <Card title={t("problems.title")} className="adm-problems">
      <Alert text={problems.error} />
      {problems.data && items.length === 0 ? (
        <p className="muted adm-note" data-testid="problems-empty">
          {t("problems.none")}
        </p>
      ) : null}
      {items.length > 0 ? (
        <>
          <p className="muted adm-note">{t("problems.intro")}</p>
          <ol className="adm-problem-list" aria-label={t("problems.title")}>
            {items.map((p, i) => (
              <li key={`${p.time}-${i}`} data-testid="problem">
                <div className="adm-problem-head">
                  <span className={`adm-badge adm-badge-${p.level === "error" ? "bad" : "fair"}`}>
                    {t(p.level === "error" ? "problems.error" : "problems.warning")}
                  </span>
                  <time dateTime={new Date(p.time * 1000).toISOString()}>
                    {formatTime(p.time, lang, true)}
                  </time>
                </div>
                <p className="adm-problem-message" lang="en">
                  {p.message}
                </p>
                {p.request_id ? (
                  <p className="muted adm-problem-request">
                    {t("problems.request")} <code>{p.request_id}</code>
                  </p>
                ) : null}
              </li>
            ))}
          </ol>
        </>
      ) : null}
    </Card>
  );
}
