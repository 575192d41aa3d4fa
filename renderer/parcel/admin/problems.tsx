import {
  problemLabels,
  RecentProblemsList,
  type ProblemClasses,
} from "../../shared/recent-problems.js";
import { useApp } from "../store.js";
import { useA } from "./i18n.js";
import { parcelProblemText } from "./problem-words.js";
import { adminApi } from "./session.js";
import { Alert, Card, useLoad } from "./ui.js";

const CLASSES: ProblemClasses = {
  empty: "muted adm-note",
  intro: "muted adm-note",
  list: "adm-problem-list",
  head: "adm-problem-head",
  message: "adm-problem-message",
  request: "muted adm-problem-request",
  badge: (level) => `adm-badge adm-badge-${level === "error" ? "bad" : "fair"}`,
};

/**
 * The service's last warnings and errors (`GET /admin/errors`), newest first, reloaded with
 * the overview, each said in the reader's language by its code.
 */
export function RecentProblemsCard({ tick }: { tick: number }) {
  const t = useA();
  const lang = useApp((s) => s.lang);
  const problems = useLoad(String(tick), (signal) => adminApi("GET /admin/errors", { signal }));
  const items =
    problems.data?.items.map((p) => ({
      timeMs: p.time * 1000,
      level: p.level,
      text: parcelProblemText(p, lang),
      requestId: p.request_id,
    })) ?? null;
  return (
    <Card title={t("problems.title")} className="adm-problems">
      <Alert text={problems.error} />
      <RecentProblemsList items={items} lang={lang} classes={CLASSES} labels={problemLabels(t)} />
    </Card>
  );
}
