import {
  problemLabels,
  RecentProblemsList,
  type ProblemClasses,
} from "../../shared/recent-problems.js";
import { useT } from "../i18n.js";
import { proxyProblemText } from "../errors/problem-words.js";
import { useApp } from "../store.js";
import type { RecentProblem } from "../../../server/contract/proxy.js";
import { Card } from "../parts/ui.js";

const CLASSES: ProblemClasses = {
  empty: "muted",
  intro: "muted note",
  list: "problem-list",
  head: "problem-head",
  message: "problem-message",
  request: "muted problem-request",
  badge: (level) => `badge ${level === "error" ? "badge-bad" : "badge-fair"}`,
};

/**
 * The service's last warnings and errors (`recentErrors` of `/status`), newest first, each
 * said in the reader's language by its code.
 */
export function RecentProblemsCard({ items }: { items: RecentProblem[] }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  return (
    <div className="problems-wide">
      <Card title={t("problems.title")}>
        <RecentProblemsList
          items={items.map((p) => ({
            timeMs: Date.parse(p.time),
            level: p.level,
            text: proxyProblemText(p, lang),
            requestId: p.requestId,
          }))}
          lang={lang}
          classes={CLASSES}
          labels={problemLabels(t)}
        />
      </Card>
    </div>
  );
}
