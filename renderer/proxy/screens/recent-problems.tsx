import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import type { RecentProblem } from "../types.js";
import { Card } from "../ui.js";

/**
 * The service's last warnings and errors (`recentErrors` of `/status`), newest first. The
 * messages are the service's own English sentences, marked as such for screen readers; the
 * request id finds the entry in the service's log.
 */
export function RecentProblemsCard({ items }: { items: RecentProblem[] }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  return (
    <div className="problems-wide">
      <Card title={t("problems.title")}>
        {items.length === 0 ? (
          <p className="muted" data-testid="problems-empty">
            {t("problems.none")}
          </p>
        ) : (
          <>
            <p className="muted note">{t("problems.intro")}</p>
            <ol className="problem-list" aria-label={t("problems.title")}>
              {items.map((p, i) => (
                <li key={`${p.time}-${i}`} data-testid="problem">
                  <div className="problem-head">
                    <span className={`badge ${p.level === "error" ? "badge-bad" : "badge-fair"}`}>
                      {t(p.level === "error" ? "problems.error" : "problems.warning")}
                    </span>
                    <time dateTime={p.time}>
                      {new Date(p.time).toLocaleString(lang, {
                        dateStyle: "medium",
                        timeStyle: "medium",
                      })}
                    </time>
                  </div>
                  <p className="problem-message" lang="en">
                    {p.message}
                  </p>
                  {p.requestId ? (
                    <p className="muted problem-request">
                      {t("problems.request")} <code>{p.requestId}</code>
                    </p>
                  ) : null}
                </li>
              ))}
            </ol>
          </>
        )}
      </Card>
    </div>
  );
}
